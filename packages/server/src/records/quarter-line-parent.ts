import { type TradeRecord, tradeIdOf } from './records.js';

/** How a parent's status follows its legs': any FAILED fails it; SETTLED or LOCKED once both legs are. */
function parentStatus(whole: TradeRecord, half: TradeRecord): string {
  const statuses = [whole.status, half.status];
  if (statuses.includes('FAILED')) return 'FAILED';
  if (statuses.every((s) => s === 'SETTLED')) return 'SETTLED';
  if (statuses.every((s) => s === 'SETTLED' || s === 'LOCKED')) return 'LOCKED';
  return 'MATCHED';
}

/**
 * The synthetic parent of a quarter-line bet (`GET /trades-v3/consolidated`): its two leg trades (whole
 * line, half line) as one trade on the quarter-line market, with the order's ordinary trade id. Stakes, pots
 * and payouts are the legs' summed; it is settled once both legs are, with the half line's outcome (a half
 * line never pushes: it says which side the quarter line went to, the whole line whether only half did).
 */
export function quarterLineParentTrade(whole: TradeRecord, half: TradeRecord): TradeRecord {
  const status = parentStatus(whole, half);
  const settled = status === 'SETTLED';
  return {
    id: tradeIdOf(whole.orderId),
    orderId: whole.orderId,
    account: whole.account,
    marketHash: whole.quarterLineParentMarketHash ?? whole.marketHash,
    eventId: whole.eventId,
    isBettingOutcomeOne: whole.isBettingOutcomeOne,
    isMaker: whole.isMaker,
    stake: (BigInt(whole.stake) + BigInt(half.stake)).toString(),
    pot: (BigInt(whole.pot) + BigInt(half.pot)).toString(),
    status,
    outcome: settled ? half.outcome : null,
    payout: settled ? (BigInt(whole.payout ?? '0') + BigInt(half.payout ?? '0')).toString() : null,
    marketHasRefunds: whole.marketHasRefunds || half.marketHasRefunds,
    quarterLineParentMarketHash: null,
    // The whole line's, which keys the parent in the consolidated listing (both legs start with one fill).
    createdAt: whole.createdAt,
    updatedAt: Math.max(whole.updatedAt, half.updatedAt),
  };
}
