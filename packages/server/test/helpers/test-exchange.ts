import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { type AppOptions, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import { type Exchange, openExchange } from '../../src/exchange/exchange.js';
import type { Clock } from '../../src/lib/clock.js';
import { SettlementDriver } from '../../src/settlement/settlement-driver.js';
import { databaseUrlOf } from './test-store.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export type TestExchange = {
  app: FastifyInstance;
  exchange: Exchange;
  config: Config;
  dataDir: string;
  admin: { 'x-admin-token': string };
  /** Issues an API key for a fresh (or given) account through the admin route. */
  createUser(privateKey?: `0x${string}`): Promise<TestUser>;
  /**
   * Resolves once everything committed so far is settled on the chain and its receipts are journaled and
   * projected (fills LOCKED or FAILED, payouts paid: trades SETTLED).
   */
  settled(): Promise<void>;
  /** Closes the app and the database; reopens on the same data dir when `reopen` is called. */
  close(): Promise<void>;
  reopen(): Promise<TestExchange>;
};

export type TestUser = {
  address: `0x${string}`;
  privateKey: `0x${string}`;
  apiKey: string;
  headers: { 'x-svc-api-key': string };
};

let counter = 0;
/** A deterministic, distinct private key per call (never a real account). */
export function testPrivateKey(): `0x${string}` {
  counter += 1;
  return `0x${(0x1000 + counter + process.pid * 1000).toString(16).padStart(64, '0')}`;
}

/**
 * A real exchange on a real SQLite file in a temp dir (or on PostgreSQL: test-store.ts), driven through HTTP
 * with `app.inject`.
 */
export async function startTestExchange(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    clock?: Clock;
    settleWaitMs?: number;
    /** The PostgreSQL database to run on (by default the data dir's, when the tests run on PostgreSQL). */
    databaseUrl?: string;
    /** Options of the HTTP app beyond the silent logger. */
    app?: Omit<AppOptions, 'logger'>;
  } = {},
): Promise<TestExchange> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'oddsbook-test-'));
  const databaseUrl = options.databaseUrl ?? (await databaseUrlOf(dataDir));
  const config = loadConfig([], {
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ADMIN_TOKEN,
    DEMO: '0',
    LOG_LEVEL: 'silent',
    BLOCK_TIME_MS: '20',
    RATE_LIMITS: '0',
    ...options.env,
  });
  const exchange = await openExchange(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.settleWaitMs ? { settleWaitMs: options.settleWaitMs } : {}),
  });
  const app = await buildApp(exchange, { ...options.app, logger: false });
  await app.ready();
  const admin = { 'x-admin-token': ADMIN_TOKEN };
  const self: TestExchange = {
    app,
    exchange,
    config,
    dataDir,
    admin,
    createUser: userCreator(app, admin),
    async settled() {
      const { trading, settlement } = exchange;
      if (!(settlement instanceof SettlementDriver))
        throw new Error('settled() needs the exchange’s own settlement driver');
      await trading.idle();
      await settlement.whenSettled(trading.sequencer.lastSeq);
      await settlement.drained();
      await trading.idle();
    },
    async close() {
      await app.close();
      await exchange.close();
    },
    async reopen() {
      await self.close();
      return startTestExchange({ ...options, dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    },
  };
  return self;
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

/** `TestExchange.createUser` on `app`: a user with an API key issued through the operator route. */
export function userCreator(app: FastifyInstance, admin: Record<string, string>): TestExchange['createUser'] {
  return async (privateKey = testPrivateKey()) => {
    const address = privateKeyToAccount(privateKey).address;
    const response = await app.inject({
      method: 'POST',
      url: '/admin/api-keys',
      headers: admin,
      payload: { address },
    });
    if (response.statusCode !== 200) throw new Error(`createUser: ${response.statusCode} ${response.body}`);
    const apiKey = response.json().data.apiKey as string;
    return { address, privateKey, apiKey, headers: { 'x-svc-api-key': apiKey } };
  };
}
