import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createAdminClient,
  createExchangeClient,
  ExchangeApiError,
  type ExchangeClient,
  type KeepAlive,
  ladderSize,
  type Market,
  MarketQuoter,
  parseTokenAmount,
} from '@oddsbook/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/*
 * The demo market maker: with the demo data (DEMO=1), the server quotes every active market on both sides
 * through its own HTTP API, as the SDK's example market maker does (`MarketQuoter`), from an account of its
 * own funded by the faucet. Its orders are signed and posted like any client's: the engine sees nothing
 * special, so the journal replays the same. Only the single process (ROLE all) runs it.
 */

/** The label of its API key, which the pages show where accounts show. */
export const DEMO_MARKET_MAKER_LABEL = 'demo market maker';
/** Its key and API key, kept in the data dir so that a restart quotes from the same account. */
export const DEMO_MARKET_MAKER_FILE = 'demo-market-maker.json';

export type DemoMarketMakerOptions = {
  /** The exchange's own address (http://127.0.0.1:PORT). */
  baseUrl: string;
  adminToken: string;
  dataDir: string;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
  /** How often the active markets are read again: new ones quoted, closed ones pulled (default 5 s). */
  pollMs?: number;
  /** Stake of each order (default 5 USDC), orders a side (default 2), spread in ticks (default 16: 2 %). */
  size?: bigint;
  levels?: number;
  spread?: number;
};

export type DemoMarketMaker = {
  readonly address: `0x${string}`;
  /** The markets quoted now. */
  readonly markets: ReadonlySet<string>;
  /** Pulls every quote, disarms the heartbeat, closes the connection. */
  stop(): Promise<void>;
};

/** Topped up from the faucet to this when below half of it. */
const FUNDS = parseTokenAmount('10000');
/** Its quotes go when the server stops without pulling them (the heartbeat lapses). */
const HEARTBEAT_SECONDS = 15;

type Stored = { privateKey: `0x${string}`; apiKey?: string };

function loadStored(file: string): Stored {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Stored;
  const stored: Stored = { privateKey: generatePrivateKey() };
  writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
  return stored;
}

/** The demo market maker's address, from its stored key (made now on a first start): known before it quotes. */
export function demoMarketMakerAddress(dataDir: string): `0x${string}` {
  return privateKeyToAccount(loadStored(join(dataDir, DEMO_MARKET_MAKER_FILE)).privateKey).address;
}

/** A fair price for a market, spread over 35-65 % by its hash so that the ladders differ. */
function fairTick(marketHash: string, ticks: number): number {
  const byte = Number.parseInt(marketHash.slice(-2), 16) || 0;
  return Math.round(ticks * (0.35 + (byte / 255) * 0.3));
}

/** Makes (or finds) the account, deploys its proxy wallet, funds it, and starts quoting. */
export async function startDemoMarketMaker(options: DemoMarketMakerOptions): Promise<DemoMarketMaker> {
  const { baseUrl, log } = options;
  const file = join(options.dataDir, DEMO_MARKET_MAKER_FILE);
  const stored = loadStored(file);
  const signer = privateKeyToAccount(stored.privateKey);
  const admin = createAdminClient({ baseUrl, adminToken: options.adminToken });

  let client = stored.apiKey ? createExchangeClient({ baseUrl, apiKey: stored.apiKey, signer }) : null;
  if (client && !(await keyWorks(client))) client = null;
  if (!client) {
    const { apiKey } = await admin.createApiKey({ address: signer.address, label: DEMO_MARKET_MAKER_LABEL });
    writeFileSync(file, JSON.stringify({ ...stored, apiKey }), { mode: 0o600 });
    client = createExchangeClient({ baseUrl, apiKey, signer });
  }
  await deployProxy(client);
  const balance = await client.getBalance();
  if (BigInt(balance.availableAmount) < FUNDS / 2n) await admin.faucet(signer.address, FUNDS);

  const metadata = await client.getMetadata();
  const ticks = ladderSize(metadata.oddsLadderStepSize);
  const levels = Math.min(options.levels ?? 2, metadata.limits.maxCreateOrders / 2);
  const size = options.size ?? parseTokenAmount('5');
  const spread = options.spread ?? 16;

  const alive: KeepAlive = client.keepAlive({
    timeoutSeconds: HEARTBEAT_SECONDS,
    onError: (error) => log.warn({ err: error }, 'demo market maker: heartbeat refresh failed'),
  });
  await alive.armed;
  const orders = await client.watchOrders();
  const fills = await client.watchFills();
  const quoters = new Map<string, MarketQuoter>();
  const onError = (marketHash: string) => (error: unknown) =>
    log.warn({ marketHash, err: error }, 'demo market maker: quote failed');
  fills.on((fill) => quoters.get(fill.marketHash)?.fill(fill));

  const quotable = (market: Market) => market.status === 'ACTIVE';
  const exchange = client;
  let syncing: Promise<void> | null = null;
  /** Quotes the active markets not quoted yet, and pulls the quotes of those no longer active. */
  async function sync(): Promise<void> {
    const active = new Set<string>();
    for await (const market of exchange.activeMarkets({ pageSize: 50 })) {
      if (!quotable(market)) continue;
      active.add(market.marketHash);
      if (quoters.has(market.marketHash)) continue;
      const quoter = new MarketQuoter(exchange, orders, market, {
        ticks,
        fair: fairTick(market.marketHash, ticks),
        spread,
        levels,
        size,
        onError: onError(market.marketHash),
      });
      quoters.set(market.marketHash, quoter);
      quoter.requote();
    }
    for (const [marketHash, quoter] of quoters) {
      if (active.has(marketHash)) continue;
      quoters.delete(marketHash);
      await quoter
        .stop()
        .then(
          () => log.info({ marketHash }, 'demo market maker: market closed, quotes pulled'),
          onError(marketHash),
        );
    }
  }
  const tick = () => {
    syncing ??= sync()
      .catch((error: unknown) => log.warn({ err: error }, 'demo market maker: reading the markets failed'))
      .finally(() => {
        syncing = null;
      });
  };
  tick();
  const timer = setInterval(tick, options.pollMs ?? 5000);
  timer.unref();
  log.info({ address: signer.address, label: DEMO_MARKET_MAKER_LABEL }, 'demo market maker quoting');

  return {
    address: signer.address,
    get markets() {
      return new Set(quoters.keys());
    },
    async stop() {
      clearInterval(timer);
      await syncing;
      quoters.clear();
      try {
        await exchange.cancelAll();
        await alive.stop();
      } finally {
        exchange.close();
      }
    },
  };
}

async function keyWorks(client: ExchangeClient): Promise<boolean> {
  try {
    await client.getBalance();
    return true;
  } catch (error) {
    if (error instanceof ExchangeApiError && error.status === 401) return false;
    throw error;
  }
}

async function deployProxy(client: ExchangeClient): Promise<void> {
  let proxy = await client.deployProxy();
  while (proxy.pending) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy = await client.getProxy();
  }
  if (!proxy.deployed)
    throw new Error(`the demo market maker's proxy wallet was not deployed (${proxy.state})`);
}
