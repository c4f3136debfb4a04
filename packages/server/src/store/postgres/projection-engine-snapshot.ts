import type { EngineSnapshot, MarketSnapshot, OrderSnapshot } from '../../engine/index.js';
import type { Query } from './projection-committed-reads.js';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The engine state as the projections hold it, in the engine's canonical snapshot form (`oddsbook replay`). */
/** The engine state as the projections hold it, in the engine's canonical snapshot form. */
export async function engineSnapshotOf(
  query: Query,
  ladderSize: number,
  engineLastSeq: number,
): Promise<EngineSnapshot> {
  const [balanceRows, positionRows, marketRows, orderRows] = await Promise.all([
    query(
      'SELECT account, available, escrowed, owed FROM balances WHERE available <> 0 OR escrowed <> 0 OR owed <> 0',
    ),
    query('SELECT * FROM positions'),
    query('SELECT * FROM engine_markets ORDER BY open_seq'),
    query(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
        expiry, placed_seq FROM orders WHERE status = 'ACTIVE' ORDER BY placed_seq`),
  ]);
  const balances = balanceRows as { account: string; available: string; escrowed: string; owed: string }[];
  balances.sort((a, b) => compare(a.account, b.account));
  const netDeposits = balances.reduce(
    (sum, b) => sum + BigInt(b.available) + BigInt(b.escrowed) - BigInt(b.owed),
    0n,
  );
  const positions = new Map<string, [string, string, string, string, string, string][]>();
  for (const row of positionRows as Record<string, string>[]) {
    const list = positions.get(row.market_hash!) ?? [];
    list.push([row.account!, row.stake_one!, row.stake_two!, row.pot_one!, row.pot_two!, row.refunded!]);
    positions.set(row.market_hash!, list);
  }
  const markets: MarketSnapshot[] = marketRows.map((m) => ({
    marketHash: m.market_hash as string,
    eventId: m.event_id as string,
    status: m.status as MarketSnapshot['status'],
    version: m.version as number,
    positions: (positions.get(m.market_hash as string) ?? []).sort((a, b) => compare(a[0], b[0])),
    ...(m.whole_leg !== null && m.half_leg !== null
      ? { legs: [m.whole_leg as string, m.half_leg as string] as const }
      : {}),
  }));
  const scale = 10n ** 20n;
  const orders: OrderSnapshot[] = orderRows.map((o) => [
    o.id as string,
    o.account as string,
    o.market_hash as string,
    o.is_outcome_one as boolean,
    Number((BigInt(o.percentage_odds as string) * BigInt(ladderSize)) / scale),
    o.total_bet_size as string,
    o.remaining_size as string,
    o.expiry as number,
    o.placed_seq as number,
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
