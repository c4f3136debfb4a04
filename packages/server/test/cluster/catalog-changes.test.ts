import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEvent } from '../../src/catalog/catalog-events.js';
import { shareCatalogChanges } from '../../src/cluster/catalog-changes.js';
import { connectNats, uniqueNames } from '../../src/cluster/test-support.js';
import {
  createTestDatabase,
  type TestDatabase,
} from '../../src/store/test-support/postgres-test-database.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, until } from '../helpers/trading.js';

/**
 * Two nodes on one PostgreSQL catalog, each keeping market trading states in memory, hearing each other's
 * catalog changes over NATS (ADR 0018).
 */
let database: TestDatabase;
let nc: NatsConnection;
let a: TestExchange;
let b: TestExchange;
const stops: (() => void)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  nc = await connectNats();
  a = await startTestExchange({ databaseUrl: database.url });
  b = await startTestExchange({ databaseUrl: database.url });
  const subject = `${uniqueNames().submit}.catalog`;
  for (const node of [a, b])
    stops.push(await shareCatalogChanges({ nc, subject, catalog: node.exchange.catalog }));
});

afterAll(async () => {
  for (const stop of stops) stop();
  for (const node of [a, b]) {
    if (!node) continue;
    await node.close();
    removeDataDir(node.dataDir);
  }
  await nc?.close();
  await database?.drop();
});

describe('catalog changes across nodes', () => {
  it('a fixture suspended on A closes the market in B’s order path, and B hears it as a change made elsewhere', async () => {
    const { marketHash, eventId } = await createMarket(a);
    // B has the market's trading state in memory (open).
    expect((await b.exchange.catalog.tradingState(marketHash))?.open).toBe(true);
    const heard: { event: CatalogEvent; origin: string }[] = [];
    stops.push(b.exchange.catalog.onChange((event, origin) => heard.push({ event, origin })));

    const suspended = await a.app.inject({
      method: 'POST',
      url: `/admin/fixtures/${eventId}/status`,
      headers: a.admin,
      payload: { status: 6 },
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    await until(
      () => heard.length,
      (n) => n > 0,
      10_000,
    );
    expect(heard[0]).toMatchObject({ origin: 'elsewhere', event: { type: 'fixture' } });
    expect((await b.exchange.catalog.tradingState(marketHash))?.open).toBe(false);
  });
});
