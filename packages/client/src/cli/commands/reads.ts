import type { FillRow, Market, OrderRow, PositionRow, TradeRow } from '@oddsbook/protocol';
import type { Command, CommandIo } from '../command.js';
import { COMMON_HELP, type Context, clientFor, makeContext, parse, print, UsageError } from '../context.js';
import { decimalOdds, percent, shortHash, table, usdc } from '../format.js';

const MARKET_HASH = /^0x[0-9a-fA-F]{64}$/;

function limitOption(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new UsageError('--limit is a whole number from 1 to 10000');
  return n;
}

function marketOption(value: string | undefined): `0x${string}` | undefined {
  if (value === undefined) return undefined;
  if (!MARKET_HASH.test(value))
    throw new UsageError('--market is a 32-byte hex market hash (0x + 64 hex digits)');
  return value.toLowerCase() as `0x${string}`;
}

/** Reads up to `limit` rows of an iterator. */
async function take<T>(rows: AsyncIterable<T>, limit: number): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) {
    out.push(row);
    if (out.length >= limit) break;
  }
  return out;
}

/** A read command: its options, and how it loads and prints. */
function readCommand<V extends Record<string, unknown>>(spec: {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run: (ctx: Context, values: V, io: CommandIo) => Promise<void>;
}): Command {
  const usage = `${spec.usage}\n${COMMON_HELP}`;
  return {
    name: spec.name,
    summary: spec.summary,
    usage,
    async run(args, io) {
      const { values } = parse(args, spec.options);
      if (values.help) {
        io.out(usage);
        return 0;
      }
      await spec.run(makeContext(values, io), values as unknown as V, io);
      return 0;
    },
  };
}

const orderSide = (isOne: boolean) => (isOne ? 'one' : 'two');

export const marketsCommand = readCommand<{
  league?: string;
  event?: string;
  live?: boolean;
  limit?: string;
}>({
  name: 'markets',
  summary: 'list the active markets',
  usage: `Usage: oddsbook-client markets [--league <id>] [--event <eventId>] [--live] [--limit <n>] [options]

Lists active markets (GET /markets/active), main lines first as the exchange orders them: hash, teams,
outcomes, type and line, game time, minimum stake and betting delay.

Options:
  --league <id>        one league's markets
  --event <eventId>    one fixture's markets
  --live               only markets in play
  --limit <n>          at most n markets (default 50)`,
  options: {
    league: { type: 'string' },
    event: { type: 'string' },
    live: { type: 'boolean' },
    limit: { type: 'string' },
  },
  async run(ctx, v) {
    const limit = limitOption(v.limit, 50);
    const leagueId = v.league === undefined ? undefined : Number(v.league);
    if (leagueId !== undefined && (!Number.isInteger(leagueId) || leagueId < 1))
      throw new UsageError('--league is a league id (a whole number)');
    const markets = await take(
      clientFor(ctx).activeMarkets({
        ...(leagueId !== undefined ? { leagueId } : {}),
        ...(v.event ? { eventId: v.event } : {}),
        ...(v.live ? { liveOnly: true } : {}),
        pageSize: Math.min(limit, 50),
      }),
      limit,
    );
    print(ctx, markets, () =>
      table(
        ['market', 'game', 'outcomes', 'type', 'line', 'starts', 'min', 'delay'],
        markets.map((m: Market) => [
          m.marketHash,
          `${m.teamOneName} – ${m.teamTwoName}`,
          `${m.outcomeOneName} / ${m.outcomeTwoName}`,
          String(m.type),
          m.line === null ? '' : String(m.line),
          new Date(m.gameTime * 1000).toISOString().slice(0, 16).replace('T', ' '),
          usdc(m.minBetSize),
          `${m.bettingDelay}s`,
        ]),
      ),
    );
  },
});

export const ordersCommand = readCommand<{ market?: string; limit?: string; ended?: boolean }>({
  name: 'orders',
  summary: "list the account's open orders, or with --ended those that ended",
  usage: `Usage: oddsbook-client orders [--market <hash>] [--ended] [--limit <n>] [options]

The account's open orders (PENDING or ACTIVE): id, market, outcome, odds, stake, what is left, status.
With --ended, the orders that ended (filled, cancelled, expired), newest first: what of each matched, and why
it ended.

Options:
  --market <hash>      one market's orders
  --ended              the ended orders instead of the open ones
  --limit <n>          at most n orders (default 100)`,
  options: { market: { type: 'string' }, limit: { type: 'string' }, ended: { type: 'boolean' } },
  async run(ctx, v) {
    const marketHash = marketOption(v.market);
    const client = clientFor(ctx, { key: true });
    const query = marketHash ? { marketHash } : {};
    const orders = await take(
      v.ended ? client.endedOrders(query) : client.orders(query),
      limitOption(v.limit, 100),
    );
    const [last, lastHeader] = v.ended
      ? [(o: OrderRow) => [usdc(o.fillAmount), o.inactiveReason ?? ''], ['matched', 'ended']]
      : [(o: OrderRow) => [usdc(o.remainingSize), o.status], ['left', 'status']];
    print(ctx, orders, () =>
      table(
        ['order', 'market', 'outcome', 'odds', 'stake', ...lastHeader, 'client id'],
        orders.map((o: OrderRow) => [
          o.id,
          shortHash(o.marketHash),
          orderSide(o.isBettingOutcomeOne),
          `${percent(o.percentageOdds)} (${decimalOdds(o.percentageOdds)})`,
          usdc(o.totalBetSize),
          ...last(o),
          o.clientOrderId ?? '',
        ]),
      ),
    );
  },
});

export const fillsCommand = readCommand<{ order?: string; since?: string; limit?: string }>({
  name: 'fills',
  summary: "list the account's fills, newest first",
  usage: `Usage: oddsbook-client fills [--order <orderId>] [--since <ISO date>] [--limit <n>] [options]

The account's fills (one row per match it took part in), newest first.

Options:
  --order <orderId>    one order's fills
  --since <ISO date>   fills made since then
  --limit <n>          at most n fills (default 50)`,
  options: { order: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx, v) {
    const fills = await take(
      clientFor(ctx, { key: true }).fills({
        sortAsc: false,
        ...(v.order ? { orderId: v.order } : {}),
        ...(v.since ? { startDate: new Date(v.since).toISOString() } : {}),
      }),
      limitOption(v.limit, 50),
    );
    print(ctx, fills, () =>
      table(
        ['time', 'market', 'outcome', 'role', 'odds', 'stake', 'status', 'order'],
        fills.map((f: FillRow) => [
          f.createdAt,
          shortHash(f.marketHash),
          orderSide(f.isBettingOutcomeOne),
          f.isMaker ? 'maker' : 'taker',
          `${percent(f.fillOdds)} (${decimalOdds(f.fillOdds)})`,
          usdc(f.fillAmount),
          f.status,
          shortHash(f.orderId),
        ]),
      ),
    );
  },
});

export const tradesCommand = readCommand<{ market?: string; limit?: string }>({
  name: 'trades',
  summary: "list the account's trades (bets), newest first",
  usage: `Usage: oddsbook-client trades [--market <hash>] [--limit <n>] [options]

The account's trades: one per order's fills together, with stake, odds, what it pays if it wins and its
status (MATCHED, LOCKED, SETTLED, FAILED).

Options:
  --market <hash>      one market's trades
  --limit <n>          at most n trades (default 50)`,
  options: { market: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx, v) {
    const marketHash = marketOption(v.market);
    const trades = await take(
      clientFor(ctx, { key: true }).trades({ sortAsc: false, ...(marketHash ? { marketHash } : {}) }),
      limitOption(v.limit, 50),
    );
    print(ctx, trades, () =>
      table(
        ['time', 'market', 'outcome', 'role', 'odds', 'stake', 'pays', 'status'],
        trades.map((tr: TradeRow) => [
          tr.createdAt,
          shortHash(tr.marketHash),
          orderSide(tr.isBettingOutcomeOne),
          tr.isMaker ? 'maker' : 'taker',
          `${percent(tr.odds)} (${decimalOdds(tr.odds)})`,
          usdc(tr.stake),
          usdc(tr.potentialPayout),
          tr.status,
        ]),
      ),
    );
  },
});

export const positionsCommand = readCommand<{ market?: string; limit?: string }>({
  name: 'positions',
  summary: "list the account's open positions",
  usage: `Usage: oddsbook-client positions [--market <hash>] [--limit <n>] [options]

The account's open positions, per market: stake and payout per outcome, the guaranteed receipt, what
capital efficiency refunded, and the most it can still lose.

Options:
  --market <hash>      one market's position
  --limit <n>          at most n positions (default 50)`,
  options: { market: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx, v) {
    const marketHash = marketOption(v.market);
    const positions = await take(
      clientFor(ctx, { key: true }).positions(marketHash ? { marketHash } : {}),
      limitOption(v.limit, 50),
    );
    print(ctx, positions, () =>
      table(
        ['market', 'one: stake/pays', 'two: stake/pays', 'guaranteed', 'refunded', 'max loss'],
        positions.map((p: PositionRow) => [
          p.marketHash,
          `${usdc(p.outcomeOne.stake)}/${usdc(p.outcomeOne.potentialPayout)}`,
          `${usdc(p.outcomeTwo.stake)}/${usdc(p.outcomeTwo.potentialPayout)}`,
          usdc(p.guaranteedReceipt),
          usdc(p.refunded),
          usdc(p.maxLoss),
        ]),
      ),
    );
  },
});

export const balanceCommand = readCommand<Record<string, never>>({
  name: 'balance',
  summary: "show the account's balance",
  usage: `Usage: oddsbook-client balance [options]

The account's money in USDC: available (what orders can use), what resting orders promise of it, in
escrow (matched, unsettled bets), and what it owes after a failed settlement.`,
  options: {},
  async run(ctx) {
    const b = await clientFor(ctx, { key: true }).getBalance();
    print(ctx, b, () =>
      [
        `account    ${b.userAddress}`,
        `wallet     ${b.wallet}`,
        `available  ${usdc(b.availableAmount)} USDC`,
        `  promised ${usdc(b.exposureAmount)} USDC to resting orders`,
        `in escrow  ${usdc(b.escrowedAmount)} USDC`,
        `owed       ${usdc(b.owedAmount)} USDC`,
      ].join('\n'),
    );
  },
});
