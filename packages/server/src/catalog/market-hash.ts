import { encodeAbiParameters, keccak256 } from 'viem';

/**
 * The market hash is derived from the fields that define what a market pays out on, so the same
 * market always gets the same hash (and a duplicate is detected by its hash):
 *
 *   marketHash = keccak256(abi.encode(string eventId, uint256 type, string line, string outcomeOneName, string outcomeTwoName))
 *
 * `line` is the canonical decimal text of the line ("-0.75", "220.5") or "" for a type without one.
 * Outcome names are hashed as stored (trimmed). Betting delay, minimum size and flags are not part of it.
 */
export function computeMarketHash(market: {
  eventId: string;
  type: number;
  line: string | null;
  outcomeOneName: string;
  outcomeTwoName: string;
}): `0x${string}` {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'uint256' }, { type: 'string' }, { type: 'string' }, { type: 'string' }],
      [market.eventId, BigInt(market.type), market.line ?? '', market.outcomeOneName, market.outcomeTwoName],
    ),
  );
}
