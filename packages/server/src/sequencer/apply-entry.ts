import type { Engine } from '../engine/index.js';
import type { Admission } from './admission.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';

/** One journaled input applied to the trading state (the engine and admission): live and in replays alike. */
export function applyEntry(
  state: { engine: Engine; admission: Admission },
  input: SequencerInput,
  seq: number,
  ts: number,
): AppliedEntry {
  const events = input.kind === 'engine' ? state.engine.apply({ ...input.command, seq, ts }) : [];
  state.admission.observe(input, ts);
  return { seq, ts, input, events };
}
