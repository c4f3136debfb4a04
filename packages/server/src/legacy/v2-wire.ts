import type { V2ConsolidatedTradeRow, V2OrderRow as V2OrderRowSchema, V2TradeRow } from '@oddsbook/protocol';
import type { Static } from 'typebox';
import { getAddress } from 'viem';
import type { OrderView } from '../engine/index.js';
import { weightedOdds } from '../orders/wire.js';
import { type TradeRecord, tradeIdOf } from '../records/records.js';
import type { SignedOrderRecord } from '../store/trading-reads.js';
import { V2_SIGNED_EXPIRY } from './v2-signing.js';

export type V2OrderRow = Static<typeof V2OrderRowSchema>;

/**
 * A resting order as `GET /orders` (v2) shows it, whether placed through v2 or v3 (one book): its live sizes
 * from the book, its signed fields from its row. A v3 order shows the v2 constant `expiry` and its real
 * expiry as `apiExpiry`, like a v2 order; its signature is its v3 EIP-712 one.
 */
export function v2OrderRow(
  view: OrderView,
  row: SignedOrderRecord,
  extra: { executor: `0x${string}`; pendingFillAmount: bigint },
): V2OrderRow {
  return {
    orderHash: view.orderId as `0x${string}`,
    marketHash: view.marketHash,
    maker: getAddress(view.account),
    totalBetSize: view.totalBetSize.toString(),
    percentageOdds: view.percentageOdds.toString(),
    fillAmount: view.filledSize.toString(),
    pendingFillAmount: extra.pendingFillAmount.toString(),
    baseToken: getAddress(row.baseToken),
    executor: extra.executor,
    salt: row.salt,
    isMakerBettingOutcomeOne: view.isBettingOutcomeOne,
    signature: row.signature,
    expiry: V2_SIGNED_EXPIRY,
    apiExpiry: view.expiry,
    sportXeventId: view.eventId,
    orderStatus: 'ACTIVE',
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

/** v2 trade statuses: PENDING until the chain has it, then SUCCESS, or FAILED. */
function tradeStatus(status: string): string {
  if (status === 'FAILED') return 'FAILED';
  return status === 'MATCHED' ? 'PENDING' : 'SUCCESS';
}

/** A trade as `GET /trades` (v2) shows it: one row per bet (an order's fills on a market). */
export function v2TradeRow(t: TradeRecord, baseToken: `0x${string}`): Static<typeof V2TradeRow> {
  const settled = t.status === 'SETTLED';
  return {
    baseToken,
    bettor: getAddress(t.account),
    stake: t.stake,
    odds: weightedOdds(t.stake, t.pot),
    orderHash: t.orderId,
    marketHash: t.marketHash,
    maker: t.isMaker,
    bettingOutcomeOne: t.isBettingOutcomeOne,
    settled,
    betTime: Math.floor(t.createdAt / 1000),
    fillHash: t.id,
    tradeStatus: tradeStatus(t.status),
    valid: t.status !== 'FAILED',
    outcome: t.outcome ?? 0,
    settleDate: settled ? new Date(t.updatedAt).toISOString() : null,
    sportXeventId: t.eventId,
    netReturn: t.pot,
    marketHasRefunds: t.marketHasRefunds,
    isQuarterLineLeg: t.quarterLineParentMarketHash !== null,
    ...(t.quarterLineParentMarketHash !== null
      ? { quarterLineParentMarketHash: t.quarterLineParentMarketHash }
      : {}),
  };
}

/** A consolidated trade (v2): an ordinary trade, a quarter-line leg (pointing at its parent), or the parent. */
export function v2ConsolidatedRow(
  r: { kind: 'trade' | 'leg' | 'parent'; trade: TradeRecord },
  baseToken: `0x${string}`,
): Static<typeof V2ConsolidatedTradeRow> {
  const t = r.trade;
  const settled = t.status === 'SETTLED' && t.outcome !== null;
  const returned = settled ? BigInt(t.payout ?? '0') : BigInt(t.pot);
  return {
    baseToken,
    bettor: getAddress(t.account),
    tradeStatus: tradeStatus(t.status),
    totalStake: t.stake,
    weightedAverageOdds: weightedOdds(t.stake, t.pot),
    marketHash: t.marketHash,
    maker: t.isMaker,
    settled: t.status === 'SETTLED',
    fillHash: t.id,
    sportXeventId: t.eventId,
    bettingOutcome: t.isBettingOutcomeOne ? 1 : 2,
    outcome: t.outcome ?? 0,
    betTime: Math.floor(t.createdAt / 1000),
    totalReturn: t.pot,
    netReturn: (returned - BigInt(t.stake)).toString(),
    marketHasRefunds: t.marketHasRefunds,
    isQuarterLineParent: r.kind === 'parent',
    isQuarterLineLeg: r.kind === 'leg',
    quarterLineFillHash: r.kind === 'leg' ? tradeIdOf(t.orderId) : null,
  };
}
