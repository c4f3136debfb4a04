import type { FillToReverse } from '../engine/index.js';
import type { AppliedEntry, SequencerInput } from './inputs.js';

/** Fields that hold bigint amounts; they are decimal strings in the journal. */
const BIGINT_FIELDS = ['percentageOdds', 'totalBetSize', 'amount'] as const;

/** Journal payloads are JSON with amounts as decimal strings, so a journal row is readable by people. */
export function encodeInput(input: SequencerInput): string {
  return JSON.stringify(input, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

const payloads = new WeakMap<AppliedEntry, string>();

/**
 * An entry's journal payload, encoded once: the journal writes it and the leader's committed stream sends
 * the same text (kept as long as the entry is).
 */
export function journalPayload(entry: AppliedEntry): string {
  let payload = payloads.get(entry);
  if (payload === undefined) {
    payload = encodeInput(entry.input);
    payloads.set(entry, payload);
  }
  return payload;
}

/**
 * The amounts sit on the command of an `engine` input and on the order of an `admit`: converted there
 * after a plain parse (a reviver, called for every value, made a replay's decoding several times slower).
 */
export function decodeInput(payload: string): SequencerInput {
  const input = JSON.parse(payload) as { command?: Record<string, unknown>; order?: Record<string, unknown> };
  const body = input.command ?? input.order;
  if (body) {
    for (const field of BIGINT_FIELDS) {
      const value = body[field];
      if (typeof value === 'string') body[field] = BigInt(value);
    }
    if (body.type === 'reverseFill') body.fill = decodeFill(body.fill as EncodedFill);
  }
  return input as unknown as SequencerInput;
}

type EncodedFill = Omit<FillToReverse, 'makerStake' | 'takerStake' | 'legs' | 'refunds'> & {
  makerStake: string;
  takerStake: string;
  legs?: { marketHash: string; makerStake: string; takerStake: string }[];
  refunds: { account: string; marketHash: string; amount: string }[];
};

/** A `reverseFill`'s fill, its amounts back to bigints. */
function decodeFill(fill: EncodedFill): FillToReverse {
  const { legs, ...rest } = fill;
  return {
    ...rest,
    makerStake: BigInt(fill.makerStake),
    takerStake: BigInt(fill.takerStake),
    ...(legs
      ? {
          legs: legs.map((leg) => ({
            marketHash: leg.marketHash,
            makerStake: BigInt(leg.makerStake),
            takerStake: BigInt(leg.takerStake),
          })),
        }
      : {}),
    refunds: fill.refunds.map((r) => ({ ...r, amount: BigInt(r.amount) })),
  };
}
