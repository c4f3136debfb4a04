import type { PositionRow, TradeRow } from '@oddsbook/protocol';
import { tokenAmount } from './display.js';

/** A signed amount of base units as a token amount: "+1.50", "-0.25", "0.00". */
export function signedAmount(units: bigint): string {
  if (units === 0n) return '0.00';
  return `${units < 0n ? '-' : '+'}${tokenAmount(units < 0n ? -units : units)}`;
}

/** An open position's outlook: what the bettor ends with over each result, against all it staked. */
export function positionOutlook(p: PositionRow): {
  staked: bigint;
  ifOne: bigint;
  ifTwo: bigint;
  ifVoid: bigint;
} {
  const staked = BigInt(p.outcomeOne.stake) + BigInt(p.outcomeTwo.stake);
  return {
    staked,
    ifOne: BigInt(p.outcomeOne.potentialPayout) - staked,
    ifTwo: BigInt(p.outcomeTwo.potentialPayout) - staked,
    ifVoid: 0n,
  };
}

/** A market the account bet in that is settled: what went in, what came back and when, the profit or loss. */
export type SettledPosition = {
  marketHash: string;
  staked: bigint;
  /** All the market's bets returned (refunds included). */
  returned: bigint;
  /** What capital efficiency gave back before the resolution. */
  refunded: bigint;
  /** What the resolution credited: returned - refunded. */
  paidAtSettlement: bigint;
  /** returned - staked. */
  profit: bigint;
  outcome: number;
};

/**
 * The account's settled markets from its trades (the positions route lists open markets only): a market
 * counts once every trade of it that did not fail is settled. FAILED trades were reversed (stakes back).
 */
export function settledPositions(
  trades: readonly TradeRow[],
  refunded: ReadonlyMap<string, bigint>,
): SettledPosition[] {
  const byMarket = new Map<string, TradeRow[]>();
  for (const t of trades) {
    if (t.status === 'FAILED') continue;
    const hash = t.marketHash.toLowerCase();
    byMarket.set(hash, [...(byMarket.get(hash) ?? []), t]);
  }
  const settled: SettledPosition[] = [];
  for (const [hash, rows] of byMarket) {
    if (!rows.every((t) => t.status === 'SETTLED' && t.settlement)) continue;
    const staked = rows.reduce((s, t) => s + BigInt(t.stake), 0n);
    const returned = rows.reduce((s, t) => s + BigInt(t.settlement!.payout), 0n);
    const r = refunded.get(hash) ?? 0n;
    settled.push({
      marketHash: rows[0]!.marketHash,
      staked,
      returned,
      refunded: r,
      paidAtSettlement: returned - r,
      profit: returned - staked,
      outcome: rows[0]!.settlement!.outcome,
    });
  }
  return settled;
}
