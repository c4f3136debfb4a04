import type {
  ConsolidatedTradeRow,
  FillRow,
  OrderRow,
  PortfolioRefund,
  PositionRow,
  RefundEvent,
  TradeRow,
} from '@oddsbook/protocol';
import { ODDS_SCALE } from '@oddsbook/protocol';
import { getAddress } from 'viem';
import { guaranteedReceipt } from '../engine/index.js';
import { isParlayEventId } from '../records/parlay-event-id.js';
import type {
  FillRecord,
  MarketRefunds,
  OrderRecord,
  PositionRecord,
  RefundRecord,
  TradeRecord,
} from '../records/records.js';
import { tradeIdOf } from '../records/records.js';
import { tradeFee } from '../records/shown.js';

// A batch's rows share a few times (its own, their orders' creation and expiry), asked for in turn: the
// conversions are kept, and dropped all together now and then.
const isoCache = new Map<number, string>();
function iso(ms: number): string {
  let text = isoCache.get(ms);
  if (text === undefined) {
    if (isoCache.size >= 4096) isoCache.clear();
    text = new Date(ms).toISOString();
    isoCache.set(ms, text);
  }
  return text;
}

/** `quarterLineParentMarketHash` on a quarter-line leg's row; absent, not null, on every other row (spec). */
export const parentMarketField = (parent: string | null): { quarterLineParentMarketHash?: string } =>
  parent === null ? {} : { quarterLineParentMarketHash: parent };

export function orderToWire(o: OrderRecord, wallet: `0x${string}`): OrderRow {
  return {
    id: o.id,
    clientOrderId: o.clientOrderId,
    marketHash: o.marketHash,
    userAddress: o.account,
    wallet,
    isBettingOutcomeOne: o.isBettingOutcomeOne,
    percentageOdds: o.percentageOdds,
    totalBetSize: o.totalBetSize,
    remainingSize: o.remainingSize,
    fillAmount: o.filledSize,
    timeInForce: o.timeInForce,
    expiry: iso(o.expiry * 1000),
    status: o.status,
    inactiveReason: o.inactiveReason,
    eventId: o.eventId,
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
  };
}

export function fillToWire(f: FillRecord): FillRow {
  return {
    id: f.id,
    matchId: f.matchId,
    orderId: f.orderId,
    tradeId: f.tradeId,
    marketHash: f.marketHash,
    isBettingOutcomeOne: f.isBettingOutcomeOne,
    isMaker: f.isMaker,
    fillAmount: f.fillAmount,
    fillOdds: f.fillOdds,
    status: f.status as FillRow['status'],
    ceRefundAmount: f.ceRefundAmount,
    isQuarterLineLeg: f.quarterLineParentMarketHash !== null,
    ...parentMarketField(f.quarterLineParentMarketHash),
    createdAt: iso(f.createdAt),
  };
}

/** One refund as a portfolio event; `bettor` is the checksummed address of `r.account`. */
export function refundEventToWire(r: RefundRecord, bettor: string, baseToken: string): RefundEvent {
  return {
    maker: r.isMaker,
    amount: r.amount,
    bettor,
    baseToken,
    createdAt: iso(r.createdAt),
    marketHash: r.marketHash,
    fillOrderHash: r.fillId,
  };
}

/**
 * One refund as its market's portfolio entry holding that one event (a `ce_refunds:{bettor}` message):
 * `totalRefunded` is the position's total so far, this refund included.
 */
export function refundToWire(r: RefundRecord, bettor: string, baseToken: string): PortfolioRefund {
  return {
    marketHash: r.marketHash,
    baseToken,
    totalRefunded: r.refundedTotal,
    events: [refundEventToWire(r, bettor, baseToken)],
  };
}

/** The owner's weighted odds: own stake / pot x 10^20 (its implied probability across fills). */
export const weightedOdds = (stake: string, pot: string) =>
  pot === '0' ? '0' : ((BigInt(stake) * ODDS_SCALE) / BigInt(pot)).toString();

export function tradeToWire(t: TradeRecord): TradeRow {
  return {
    tradeId: t.id,
    orderId: t.orderId,
    marketHash: t.marketHash,
    eventId: t.eventId,
    isBettingOutcomeOne: t.isBettingOutcomeOne,
    isMaker: t.isMaker,
    stake: t.stake,
    odds: weightedOdds(t.stake, t.pot),
    potentialPayout: t.pot,
    status: t.status as TradeRow['status'],
    settlement: t.outcome === null ? null : { outcome: t.outcome, payout: t.payout ?? '0' },
    marketHasRefunds: t.marketHasRefunds,
    isQuarterLineLeg: t.quarterLineParentMarketHash !== null,
    ...parentMarketField(t.quarterLineParentMarketHash),
    isParlay: isParlayEventId(t.eventId),
    fee: t.status === 'SETTLED' && t.outcome !== null ? tradeFee(t, t.outcome as 0 | 1 | 2).toString() : '0',
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

/**
 * A row of `GET /trades-v3/consolidated`: the trade's wire row with its totals, a leg pointing at its
 * parent (`quarterLineFillHash`, the parent's trade id). `netReturn` is the profit if it wins until the
 * trade is settled, then what it returned (the settlement's payout) minus its stake.
 */
export function consolidatedTradeToWire(r: ConsolidatedTradeRecordLike): ConsolidatedTradeRow {
  const t = r.trade;
  const settled = t.status === 'SETTLED' && t.outcome !== null;
  const returned = settled ? BigInt(t.payout ?? '0') : BigInt(t.pot);
  return {
    ...tradeToWire(t),
    isQuarterLineParent: r.kind === 'parent',
    quarterLineFillHash: r.kind === 'leg' ? tradeIdOf(t.orderId) : null,
    totalStake: t.stake,
    totalReturn: t.pot,
    netReturn: (returned - BigInt(t.stake)).toString(),
  };
}

/** What `consolidatedTradeToWire` reads of a `ConsolidatedTradeRecord` (store/trading-reads.ts). */
type ConsolidatedTradeRecordLike = { kind: 'trade' | 'leg' | 'parent'; trade: TradeRecord };

export function publicTradeToWire(t: TradeRecord) {
  return {
    tradeId: t.id,
    marketHash: t.marketHash,
    eventId: t.eventId,
    isBettingOutcomeOne: t.isBettingOutcomeOne,
    totalStake: t.stake,
    totalReturn: t.pot,
    weightedAverageOdds: weightedOdds(t.stake, t.pot),
    betTime: iso(t.createdAt),
    isParlay: isParlayEventId(t.eventId),
  };
}

/** A position with what it is sure to collect (`guaranteedReceipt`) and the most it can still lose. */
export function positionToWire(p: PositionRecord): PositionRow {
  const [stakeOne, stakeTwo] = [BigInt(p.stakeOne), BigInt(p.stakeTwo)];
  const guaranteed = guaranteedReceipt(stakeOne, stakeTwo, BigInt(p.potOne), BigInt(p.potTwo));
  return {
    marketHash: p.marketHash,
    eventId: p.eventId,
    outcomeOne: { stake: p.stakeOne, potentialPayout: p.potOne },
    outcomeTwo: { stake: p.stakeTwo, potentialPayout: p.potTwo },
    guaranteedReceipt: guaranteed.toString(),
    refunded: p.refunded,
    maxLoss: (stakeOne + stakeTwo - guaranteed).toString(),
  };
}

export function marketRefundsToWire(m: MarketRefunds, baseToken: string): PortfolioRefund {
  return {
    marketHash: m.marketHash,
    baseToken,
    totalRefunded: m.totalRefunded,
    events: m.events.map((r) => refundEventToWire(r, getAddress(r.account), baseToken)),
  };
}
