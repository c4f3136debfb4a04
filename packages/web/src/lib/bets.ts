import type { FillRow, PortfolioRefund, TradeRow } from '@oddsbook/protocol';

/** A trade's key in the account's rows (a self-match has a maker and a taker trade of one id). */
export const tradeKey = (t: Pick<TradeRow, 'tradeId' | 'isMaker'>) => `${t.tradeId}-${t.isMaker}`;

/**
 * One bet as the bettor placed it: an ordinary trade, or a quarter-line order's two leg trades together
 * (the whole line and the half line, each with half the stake) on the quarter-line market.
 */
export type Bet = {
  key: string;
  /** The market bet on: the quarter-line market for a quarter-line bet. */
  marketHash: string;
  isQuarterLine: boolean;
  isBettingOutcomeOne: boolean;
  isMaker: boolean;
  isParlay: boolean;
  /** One trade, or a quarter-line bet's legs in the order the exchange lists them. */
  legs: TradeRow[];
  stake: bigint;
  potentialPayout: bigint;
  status: TradeRow['status'];
  createdAt: string;
};

/** A quarter-line bet's status from its legs: FAILED if one is, SETTLED once both are, LOCKED once both are locked or settled. */
function combinedStatus(legs: TradeRow[]): TradeRow['status'] {
  if (legs.some((l) => l.status === 'FAILED')) return 'FAILED';
  if (legs.every((l) => l.status === 'SETTLED')) return 'SETTLED';
  if (legs.every((l) => l.status === 'LOCKED' || l.status === 'SETTLED')) return 'LOCKED';
  return 'MATCHED';
}

/** The account's trades as bets: a quarter-line order's leg trades become one bet, in the rows' order. */
export function groupBets(trades: readonly TradeRow[]): Bet[] {
  const bets: Bet[] = [];
  const byOrder = new Map<string, Bet>();
  for (const t of trades) {
    const parent = t.isQuarterLineLeg ? t.quarterLineParentMarketHash : undefined;
    if (!parent) {
      bets.push({
        key: tradeKey(t),
        marketHash: t.marketHash,
        isQuarterLine: false,
        isBettingOutcomeOne: t.isBettingOutcomeOne,
        isMaker: t.isMaker,
        isParlay: t.isParlay,
        legs: [t],
        stake: BigInt(t.stake),
        potentialPayout: BigInt(t.potentialPayout),
        status: t.status,
        createdAt: t.createdAt,
      });
      continue;
    }
    const key = `${t.orderId}-${t.isMaker}-${parent}`;
    const known = byOrder.get(key);
    if (known) {
      known.legs.push(t);
      known.stake += BigInt(t.stake);
      known.potentialPayout += BigInt(t.potentialPayout);
      known.status = combinedStatus(known.legs);
      continue;
    }
    const bet: Bet = {
      key,
      marketHash: parent,
      isQuarterLine: true,
      isBettingOutcomeOne: t.isBettingOutcomeOne,
      isMaker: t.isMaker,
      isParlay: false,
      legs: [t],
      stake: BigInt(t.stake),
      potentialPayout: BigInt(t.potentialPayout),
      status: t.status,
      createdAt: t.createdAt,
    };
    byOrder.set(key, bet);
    bets.push(bet);
  }
  return bets;
}

/** What capital efficiency has refunded per market (the refunds route's `totalRefunded`). */
export function refundedByMarket(refunds: readonly PortfolioRefund[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const r of refunds) {
    const hash = r.marketHash.toLowerCase();
    const total = BigInt(r.totalRefunded);
    if (total > (totals.get(hash) ?? 0n)) totals.set(hash, total);
  }
  return totals;
}

/** What each trade's fills gave back at once through capital efficiency (`ceRefundAmount`), by trade key. */
export function refundedByTrade(fills: readonly FillRow[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const f of fills) {
    const amount = BigInt(f.ceRefundAmount);
    if (amount === 0n) continue;
    const key = tradeKey(f);
    totals.set(key, (totals.get(key) ?? 0n) + amount);
  }
  return totals;
}

/** A settled trade's payout split into what came back earlier as refunds and what settlement credited. */
export type SettledAmounts = {
  /** All the bet returned (`settlement.payout`, net of any parlay fee). */
  payout: bigint;
  /** The part of it capital efficiency had already refunded before the market was resolved. */
  refundedEarlier: bigint;
  /** What the resolution credited to the balance: payout - refundedEarlier. */
  credited: bigint;
};

/**
 * Splits each settled trade's payout into the refunds its market gave back before resolution and what the
 * resolution credited. A market's refunds R came out of the position's payout (the settlement pays only
 * what is left, docs/matching.md): R is taken from the market's settled payouts in the rows' time order, so
 * the credits of a market add up to its payouts minus R, what the balance saw at resolution.
 */
export function settledAmounts(
  trades: readonly TradeRow[],
  refunded: ReadonlyMap<string, bigint>,
): Map<string, SettledAmounts> {
  const result = new Map<string, SettledAmounts>();
  const settled = trades
    .filter((t) => t.settlement && t.status === 'SETTLED')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.tradeId.localeCompare(b.tradeId));
  const left = new Map(refunded);
  for (const t of settled) {
    const hash = t.marketHash.toLowerCase();
    const payout = BigInt(t.settlement!.payout);
    const available = left.get(hash) ?? 0n;
    const refundedEarlier = available < payout ? available : payout;
    left.set(hash, available - refundedEarlier);
    result.set(tradeKey(t), { payout, refundedEarlier, credited: payout - refundedEarlier });
  }
  return result;
}

/** How a settled leg or bet ended, from the side bet and the market's outcome (0 void). */
export function settledResult(
  trade: Pick<TradeRow, 'settlement' | 'isBettingOutcomeOne'>,
): 'won' | 'lost' | 'void' | null {
  if (!trade.settlement) return null;
  const { outcome } = trade.settlement;
  if (outcome === 0) return 'void';
  return (outcome === 1) === trade.isBettingOutcomeOne ? 'won' : 'lost';
}
