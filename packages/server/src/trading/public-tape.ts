import type { ConsolidatedTrade, RecentTrade } from '@oddsbook/protocol';
import { parentMarketField, publicTradeToWire } from '../orders/wire.js';
import { quarterLineParentTrade } from '../records/quarter-line-parent.js';
import { type TradeRecord, tradeIdOf } from '../records/records.js';

/**
 * The payloads of the two public tapes (`recent_trades:global`, `recent_trades_consolidated:global`).
 * A quarter-line bet's trades are its legs, one per leg market (`quarterLineParentMarketHash` names the
 * market it was placed on): each goes on both tapes as itself, and the consolidated tape adds, after
 * them, one synthetic parent on the quarter-line market with their totals (its id is the order's
 * ordinary trade id, which the legs carry as `quarterLineFillHash`).
 */

type PublicRow = ReturnType<typeof publicTradeToWire>;

export function recentTrade(trade: TradeRecord, row: PublicRow): Omit<RecentTrade, 'messageId'> {
  const parent = trade.quarterLineParentMarketHash;
  return { ...row, isQuarterLineLeg: parent !== null, ...parentMarketField(parent) };
}

export function consolidatedTrade(trade: TradeRecord, row: PublicRow): Omit<ConsolidatedTrade, 'messageId'> {
  const isLeg = trade.quarterLineParentMarketHash !== null;
  return consolidated(row, {
    isParent: false,
    isLeg,
    fillHash: isLeg ? tradeIdOf(trade.orderId) : null,
  });
}

/**
 * The synthetic parent of a quarter-line bet's two leg trades (whole line, half line, as the projection
 * writes them): their sums on the quarter-line market, as `GET /trades-v3/consolidated` shows it.
 */
export function quarterLineParent(
  legs: readonly [TradeRecord, TradeRecord],
): Omit<ConsolidatedTrade, 'messageId'> {
  const row = publicTradeToWire(quarterLineParentTrade(...legs));
  return consolidated(row, { isParent: true, isLeg: false, fillHash: null });
}

/**
 * The taker quarter-line bets of an entry's trades, keyed by the leg trade that comes last in `trades`
 * (the parent is published right after it). Legs pair by order id; one quarter-line fill changes both
 * legs of each of its orders, so both are in the entry. A leg alone (never expected) gets no parent
 * rather than one with half the totals.
 */
export function quarterLineBets(
  trades: readonly TradeRecord[],
): Map<TradeRecord, [TradeRecord, TradeRecord]> {
  const legsOf = new Map<string, TradeRecord[]>();
  for (const trade of trades) {
    if (trade.isMaker || trade.quarterLineParentMarketHash === null) continue;
    const legs = legsOf.get(trade.orderId);
    if (legs) legs.push(trade);
    else legsOf.set(trade.orderId, [trade]);
  }
  const bets = new Map<TradeRecord, [TradeRecord, TradeRecord]>();
  for (const legs of legsOf.values()) {
    const [first, second] = legs;
    if (legs.length === 2 && first && second) bets.set(second, [first, second]);
  }
  return bets;
}

function consolidated(
  row: PublicRow,
  flags: { isParent: boolean; isLeg: boolean; fillHash: string | null },
): Omit<ConsolidatedTrade, 'messageId'> {
  return {
    ...row,
    isQuarterLineParent: flags.isParent,
    isQuarterLineLeg: flags.isLeg,
    quarterLineFillHash: flags.fillHash,
    netReturn: (BigInt(row.totalReturn) - BigInt(row.totalStake)).toString(),
  };
}
