import { createHash, webcrypto } from 'node:crypto';
import type { Engine } from '../engine/index.js';

/** SHA-256 of a snapshot's bytes, in hex: checks a stored checkpoint before it is trusted. */
export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The state hash of an engine: the digest of its canonical bytes, equal for equal states. */
export function stateHashOf(engine: Engine): string {
  return digestOf(engine.snapshotBytes());
}

/**
 * `digestOf`, computed off the event loop (WebCrypto's digest runs on libuv's thread pool): a checkpoint at
 * 1 M resting orders is some 180 MB, a third of a second of SHA-256.
 */
export async function digestOfAsync(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}
