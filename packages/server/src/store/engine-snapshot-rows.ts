import type {
  EngineSnapshot,
  MarketOutcome,
  MarketSnapshot,
  OrderSnapshot,
  ParlaySnapshot,
  ParlaySpec,
} from '../engine/index.js';
import { legResult } from '../engine/index.js';
import { isTrue } from './trading-rows.js';

type Row = Record<string, unknown>;

/** The rows the engine's snapshot is made of, as either store reads them (any order). */
export type EngineSnapshotRows = {
  /** Accounts with money (available, escrowed or owed not 0). */
  balances: readonly Row[];
  positions: readonly Row[];
  /** `engine_markets` in opening order. */
  markets: readonly Row[];
  /** The ACTIVE orders in placing order. */
  orders: readonly Row[];
  /** `market_settlements`: the resolved markets' outcomes (a parlay's legs' results so far). */
  resolutions: readonly Row[];
};

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const PERCENT_SCALE = 10n ** 20n;

/** The engine state as the projections hold it, in the engine's canonical snapshot form (`oddsbook replay`). */
export function engineSnapshotFromRows(
  rows: EngineSnapshotRows,
  ladderSize: number,
  engineLastSeq: number,
): EngineSnapshot {
  const balances = (rows.balances as { account: string; available: string; escrowed: string; owed: string }[])
    .slice()
    .sort((a, b) => compare(a.account, b.account));
  const netDeposits = balances.reduce(
    (sum, b) => sum + BigInt(b.available) + BigInt(b.escrowed) - BigInt(b.owed),
    0n,
  );
  const positions = new Map<string, [string, string, string, string, string, string][]>();
  for (const row of rows.positions as Record<string, string>[]) {
    const list = positions.get(row.market_hash!) ?? [];
    list.push([row.account!, row.stake_one!, row.stake_two!, row.pot_one!, row.pot_two!, row.refunded!]);
    positions.set(row.market_hash!, list);
  }
  const outcomes = new Map(
    rows.resolutions.map((r) => [r.market_hash as string, Number(r.outcome) as MarketOutcome]),
  );
  const legsOf = new Map(
    rows.markets.flatMap((m) =>
      m.whole_leg !== null && m.half_leg !== null
        ? [[m.market_hash as string, [m.whole_leg as string, m.half_leg as string]] as const]
        : [],
    ),
  );
  const markets: MarketSnapshot[] = rows.markets.map((m) => ({
    marketHash: m.market_hash as string,
    eventId: m.event_id as string,
    status: m.status as MarketSnapshot['status'],
    version: Number(m.version),
    positions: (positions.get(m.market_hash as string) ?? []).sort((a, b) => compare(a[0], b[0])),
    ...(m.whole_leg !== null && m.half_leg !== null
      ? { legs: [m.whole_leg as string, m.half_leg as string] as const }
      : {}),
    ...(typeof m.parlay === 'string' ? { parlay: parlayOfRow(m.parlay, legsOf, outcomes) } : {}),
  }));
  const orders: OrderSnapshot[] = rows.orders.map((o) => [
    o.id as string,
    o.account as string,
    o.market_hash as string,
    isTrue(o.is_outcome_one),
    Number((BigInt(o.percentage_odds as string) * BigInt(ladderSize)) / PERCENT_SCALE),
    o.total_bet_size as string,
    o.remaining_size as string,
    Number(o.expiry),
    Number(o.placed_seq),
  ]);
  return {
    format: 2,
    ladderSize,
    lastSeq: engineLastSeq,
    netDeposits: netDeposits.toString(),
    accounts: balances.map((b) =>
      b.owed === '0'
        ? ([b.account, b.available, b.escrowed] as const)
        : ([b.account, b.available, b.escrowed, b.owed] as const),
    ),
    markets,
    orders,
  };
}

/**
 * A parlay market's snapshot from its row's rules and its legs' outcomes so far (a quarter-line leg's from its
 * halves'): what the engine holds of it.
 */
function parlayOfRow(
  json: string,
  legsOf: ReadonlyMap<string, readonly [string, string]>,
  outcomes: ReadonlyMap<string, MarketOutcome>,
): ParlaySnapshot {
  const spec = JSON.parse(json) as ParlaySpec;
  const result = (marketHash: string, pickOne: boolean) => {
    const outcome = outcomes.get(marketHash);
    return outcome === undefined ? null : legResult(outcome, pickOne);
  };
  return {
    ...spec,
    results: spec.legs.map(({ marketHash, bettingOutcomeOne }) =>
      (legsOf.get(marketHash) ?? [marketHash]).map((m) => result(m, bettingOutcomeOne)),
    ),
  };
}
