import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { TEST_NATS_URL } from '../../src/cluster/test-support.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import { ADMIN_TOKEN, type TestExchange, userCreator } from './test-exchange.js';

/*
 * Cluster nodes run inside a test process (the cluster tests that reach into nodes' objects): their settings,
 * and an opened exchange served as the tests' `TestExchange`.
 */

/** A node's settings on the test PostgreSQL database and NATS, on a fresh data dir (added to `dirs`). */
export function nodeConfig(o: {
  databaseUrl: string;
  cluster: string;
  role: string;
  dirs: string[];
  env?: Record<string, string>;
}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-node-'));
  o.dirs.push(dataDir);
  return loadConfig([], {
    DATA_DIR: dataDir,
    DATABASE_URL: o.databaseUrl,
    NATS_URL: TEST_NATS_URL,
    CLUSTER: o.cluster,
    ROLE: o.role,
    ADMIN_TOKEN,
    DEMO: '0',
    LOG_LEVEL: 'silent',
    BLOCK_TIME_MS: '20',
    RATE_LIMITS: '0',
    ...o.env,
  });
}

/**
 * An opened exchange behind its HTTP app (injected, not listening). `settled` resolves once what was committed
 * so far is settled as the test needs it; closing closes both; a node is not reopened.
 */
export async function servedExchange(
  exchange: Exchange,
  settled: () => Promise<void>,
): Promise<TestExchange> {
  const app = await buildApp(exchange, { logger: false });
  await app.ready();
  const admin = { 'x-admin-token': ADMIN_TOKEN };
  return {
    app,
    exchange,
    config: exchange.config,
    dataDir: exchange.config.dataDir,
    admin,
    createUser: userCreator(app, admin),
    settled,
    async close() {
      await app.close();
      await exchange.close();
    },
    reopen: () => Promise.reject(new Error('not here')),
  };
}
