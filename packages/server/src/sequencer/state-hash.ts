import { createHash } from 'node:crypto';
import type { Engine } from '../engine/index.js';

/** SHA-256 of a snapshot's bytes, in hex: checks a stored checkpoint before it is trusted. */
export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The state hash of an engine: the digest of its canonical bytes, equal for equal states. */
export function stateHashOf(engine: Engine): string {
  return digestOf(engine.snapshotBytes());
}
