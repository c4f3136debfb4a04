import type { SequencerInput } from './inputs.js';

/** Fields that hold bigint amounts; they are decimal strings in the journal. */
const BIGINT_FIELDS = new Set(['percentageOdds', 'totalBetSize', 'amount']);

/** Journal payloads are JSON with amounts as decimal strings, so a journal row is readable by people. */
export function encodeInput(input: SequencerInput): string {
  return JSON.stringify(input, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

export function decodeInput(payload: string): SequencerInput {
  return JSON.parse(payload, (key, value) =>
    BIGINT_FIELDS.has(key) && typeof value === 'string' ? BigInt(value) : value,
  ) as SequencerInput;
}
