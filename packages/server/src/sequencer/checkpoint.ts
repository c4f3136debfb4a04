import { Engine, type EngineRuleOptions } from '../engine/index.js';
import { Admission } from './admission.js';

/** 'OBK1' read as a little-endian u32: a checkpoint holding the engine's bytes and the admission state's. */
const CHECKPOINT_MAGIC = 0x314b_424f;

/**
 * A checkpoint's bytes: the engine's state (`Engine.snapshotBytes`) and the sequencer's admission state
 * (`Admission.snapshotBytes`, issue 35) together, so that one digest vouches for both.
 */
export function checkpointBytes(engine: Engine, admission: Admission): Uint8Array {
  const a = engine.snapshotBytes();
  const b = admission.snapshotBytes();
  const out = new Uint8Array(8 + a.length + b.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, CHECKPOINT_MAGIC, true);
  view.setUint32(4, a.length, true);
  out.set(a, 8);
  out.set(b, 8 + a.length);
  return out;
}

/**
 * The state a checkpoint holds, or null for a checkpoint of the engine alone (written before issue 35): it
 * lacks the admission state, which only the whole journal rebuilds.
 */
export function restoreCheckpoint(
  bytes: Uint8Array,
  options: EngineRuleOptions,
): { engine: Engine; admission: Admission } | null {
  if (bytes.length < 8) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== CHECKPOINT_MAGIC) return null;
  const length = view.getUint32(4, true);
  return {
    engine: Engine.restoreBytes(bytes.subarray(8, 8 + length), options),
    admission: Admission.restoreBytes(bytes.subarray(8 + length)),
  };
}
