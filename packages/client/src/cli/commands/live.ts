import {
  type BookSnapshot,
  type Channel,
  channels,
  GLOBAL_CHANNELS,
  type GlobalChannelKind,
  parseChannel,
  takerBook,
} from '@oddsbook/protocol';
import type { Command, CommandIo } from '../command.js';
import { COMMON_HELP, type Context, clientFor, makeContext, parse, UsageError } from '../context.js';
import { decimalOdds, json, percent, usdc } from '../format.js';

const BOOK_USAGE = `Usage: oddsbook-client book <market> [--taker] [--depth <n>] [--once] [options]

Shows a market's order book and keeps it live until Ctrl-C: seeded from GET /orderbook-v3/snapshot, then
the order_book:market_ channel (needs an API key for the realtime token; without one it polls every second).
In a terminal the book is redrawn in place; piped, each new version is one line (--json: one JSON book).

Options:
  --taker              what a taker can take on each outcome (default: the resting orders, maker frame)
  --depth <n>          levels shown per outcome (default 10)
  --once               print the book once and exit
${COMMON_HELP}`;

function levelsText(book: BookSnapshot, depth: number, names: [string, string]): string {
  const side = (levels: BookSnapshot['outcomeOne']) =>
    levels
      .slice(0, depth)
      .map(
        (l) =>
          `${percent(l.percentageOdds).padStart(8)} ${decimalOdds(l.percentageOdds).padStart(6)} ${usdc(l.size).padStart(12)}`,
      );
  const one = side(book.outcomeOne);
  const two = side(book.outcomeTwo);
  const width = 29;
  const header = `${names[0].slice(0, width).padEnd(width)}   ${names[1].slice(0, width)}`;
  const columns = `${'prob     odds         USDC'.padEnd(width)}   prob     odds         USDC`;
  const rows = Array.from(
    { length: Math.max(one.length, two.length, 1) },
    (_, i) =>
      `${(one[i] ?? (i === 0 && one.length === 0 ? '(empty)' : '')).padEnd(width)}   ${two[i] ?? (i === 0 && two.length === 0 ? '(empty)' : '')}`,
  );
  return [header, columns, ...rows].join('\n');
}

/** The best level of each side in one line: what a piped `book` prints per version. */
function bookLine(book: BookSnapshot): string {
  const best = (levels: BookSnapshot['outcomeOne']) =>
    levels[0] ? `${percent(levels[0].percentageOdds)} x ${usdc(levels[0].size)}` : '-';
  return `version ${book.version}  one: ${best(book.outcomeOne)} (${book.outcomeOne.length} levels)  two: ${best(book.outcomeTwo)} (${book.outcomeTwo.length} levels)`;
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

export const bookCommand: Command = {
  name: 'book',
  summary: "show a market's order book, live",
  usage: BOOK_USAGE,
  async run(args, io: CommandIo) {
    const { values, positionals } = parse(
      args,
      { taker: { type: 'boolean' }, depth: { type: 'string' }, once: { type: 'boolean' } },
      true,
    );
    if (values.help) {
      io.out(BOOK_USAGE);
      return 0;
    }
    const [marketHash] = positionals;
    if (!marketHash || !/^0x[0-9a-fA-F]{64}$/.test(marketHash) || positionals.length > 1)
      throw new UsageError('name one market: oddsbook-client book <marketHash>');
    const depth = values.depth === undefined ? 10 : Number(values.depth);
    if (!Number.isInteger(depth) || depth < 1 || depth > 1000)
      throw new UsageError('--depth is a whole number from 1 to 1000');
    const ctx = makeContext(values, io);
    const client = clientFor(ctx);
    const [market] = await client.findMarkets([marketHash]);
    if (!market) throw new Error(`no market ${marketHash} at ${ctx.url}`);
    const { oddsLadderStepSize } = await client.getMetadata();
    const names: [string, string] = values.taker
      ? [`take ${market.outcomeOneName}`, `take ${market.outcomeTwoName}`]
      : [`${market.outcomeOneName} (resting)`, `${market.outcomeTwoName} (resting)`];
    const frame = (book: BookSnapshot) => (values.taker ? takerBook(book, oddsLadderStepSize) : book);
    const terminal = !ctx.json && io.isTTY === true;
    const show = (book: BookSnapshot, live: string) => {
      const shown = frame(book);
      if (ctx.json) return io.out(json(shown));
      if (!terminal) return io.out(bookLine(shown));
      io.out(
        `\x1b[H\x1b[2J${market.teamOneName} – ${market.teamTwoName} · ${market.marketHash}\nversion ${shown.version} · ${live} · Ctrl-C to quit\n\n${levelsText(shown, depth, names)}`,
      );
    };
    if (values.once) {
      show(await client.getOrderBook(marketHash), 'snapshot');
      return 0;
    }
    if (!ctx.apiKey) {
      io.err('oddsbook-client: no API key (oddsbook-client login): polling the book every second');
      let last = '';
      while (!io.signal.aborted) {
        const book = await client.getOrderBook(marketHash);
        if (book.version !== last) show(book, 'polling');
        last = book.version;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      return 0;
    }
    // A failure before the book is live rejects watchBook and is reported once, by main.
    let started = false;
    const live = await client.watchBook(marketHash, {
      onError: (error) => {
        if (started) io.err(`oddsbook-client: ${(error as Error).message ?? error}`);
      },
    });
    started = true;
    show(live.maker!, 'live');
    live.on((book) => show(book, live.live ? 'live' : 'reconnecting'));
    await untilAborted(io.signal);
    client.close();
    return 0;
  },
};

const WATCH_USAGE = `Usage: oddsbook-client watch <channel> [options]

Prints every event of a realtime channel as one JSON line until Ctrl-C: {"type":"subscribed","recovered":…}
after each (re)subscribe (recovered false: reload what you hold from REST), {"type":"publication",
"offset":…,"data":…} per publication, {"type":"gap"} when publications were missed. Needs an API key.

<channel> is a channel name (docs/realtime.md), or a short name:
  book:<marketHash>    order_book:market_<marketHash>
  event:<eventId>      order_book:event_<eventId>
  orders               account:orders_v3_#<your address>
  trades               account:trades_v3_#<your address>
  fills                account:fills_v3
  active               active_orders:<your address>
  refunds              ce_refunds:<your address>
  ${Object.keys(GLOBAL_CHANNELS).join(', ')}
${COMMON_HELP}`;

async function resolveChannel(ctx: Context, name: string, address: () => Promise<string>): Promise<Channel> {
  if (name.startsWith('book:')) return channels.orderBookMarket(name.slice(5));
  if (name.startsWith('event:')) return channels.orderBookEvent(name.slice(6));
  switch (name) {
    case 'orders':
      return channels.accountOrders(await address());
    case 'trades':
      return channels.accountTrades(await address());
    case 'fills':
      return channels.accountFills();
    case 'active':
      return channels.activeOrders(await address());
    case 'refunds':
      return channels.ceRefunds(await address());
  }
  if (name in GLOBAL_CHANNELS) return GLOBAL_CHANNELS[name as GlobalChannelKind];
  if (parseChannel(name)) return name as Channel;
  throw new UsageError(`not a channel: ${name} (oddsbook-client watch --help lists them) at ${ctx.url}`);
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'print a realtime channel as JSON lines',
  usage: WATCH_USAGE,
  async run(args, io) {
    const { values, positionals } = parse(args, {}, true);
    if (values.help) {
      io.out(WATCH_USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('name one channel: oddsbook-client watch <channel>');
    const ctx = makeContext(values, io);
    const client = clientFor(ctx, { key: true });
    let channel: Channel;
    try {
      channel = await resolveChannel(ctx, positionals[0]!, () => client.accountAddress());
    } catch (error) {
      if (error instanceof TypeError) throw new UsageError(error.message);
      throw error;
    }
    const sub = client.subscribe(channel);
    let failed: Error | undefined;
    const stop = new Promise<void>((resolve) => {
      io.signal.addEventListener('abort', () => resolve(), { once: true });
      sub.on((event) => {
        if (event.type === 'unsubscribed') {
          failed = event.error;
          resolve();
          return;
        }
        io.out(json({ ...event, channel }));
      });
    });
    await stop;
    client.close();
    if (failed) throw failed;
    return 0;
  },
};
