import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitGroup } from '../../src/http/plugins/rate-limits.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, signOrder, USDC } from '../helpers/trading.js';

type Schema = { title?: string; anyOf?: Schema[] } & Record<string, unknown>;
type Response = { description?: string; content?: Record<string, { schema?: Schema }> };
type Operation = {
  summary?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, Response>;
};

/** The error body schemas of protocol/src/schemas/common.ts, by title: the only ones a route may declare. */
const ERROR_SHAPES = new Set(['ErrorBody', 'UnavailableBody', 'BetSizeTooLowBody', 'LegacyFailureBody']);
const titles = (schema: Schema | undefined): string[] =>
  schema?.anyOf ? schema.anyOf.flatMap(titles) : [schema?.title ?? '(untitled)'];

describe('the OpenAPI document (/docs/openapi.json)', () => {
  let t: TestExchange;
  let user: TestUser;
  let operations: { name: string; method: string; path: string; op: Operation }[];
  beforeAll(async () => {
    t = await startTestExchange();
    user = await createTrader(t);
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        op,
      })),
    );
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('gives every route a summary, tags, and its error responses in the shared error shapes', () => {
    expect(operations.length).toBeGreaterThan(40);
    for (const { name, method, path, op } of operations) {
      expect(op.summary?.trim(), `${name}: summary`).toBeTruthy();
      expect(op.tags?.length, `${name}: tags`).toBeGreaterThan(0);
      const statuses = Object.keys(op.responses).map(Number);
      expect(statuses, `${name}: a success response`).toContain(200);
      const errors = statuses.filter((s) => s >= 400);
      expect(errors.length, `${name} declares only 200`).toBeGreaterThan(0);
      for (const status of errors) {
        const response = op.responses[status]!;
        expect(response.description?.trim(), `${name} ${status}: description`).toBeTruthy();
        const shapes = titles(response.content?.['application/json']?.schema);
        expect(
          shapes.every((s) => ERROR_SHAPES.has(s)),
          `${name} ${status}: ${shapes} not a shared error shape`,
        ).toBe(true);
        if (status === 503) expect(shapes, `${name} 503`).toEqual(['UnavailableBody']);
        else expect(shapes.includes('ErrorBody') || shapes.includes('LegacyFailureBody')).toBe(true);
      }
      // What every route of its kind can answer.
      const secured = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (path.startsWith('/admin/')) expect(secured, `${name}: operator token`).toEqual(['adminToken']);
      if (secured.length > 0) expect(errors, `${name}: 401 for a bad credential`).toContain(401);
      if ((op.parameters?.length ?? 0) > 0 || op.requestBody)
        expect(errors, `${name}: 400 for bad input`).toContain(400);
      if (rateLimitGroup(method, path)) expect(errors, `${name}: 429 past a rate limit`).toContain(429);
      if (errors.includes(429)) expect(op.responses[429]!).toHaveProperty('headers.Retry-After');
    }
  });

  it('answers GET /health with 503 in its declared shape once the database is gone', async () => {
    const stopped = await startTestExchange();
    try {
      await stopped.exchange.close();
      const response = await stopped.app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ message: 'The database does not answer', statusCode: 503 });
    } finally {
      await stopped.app.close();
      removeDataDir(stopped.dataDir);
    }
  });

  it('declares the shapes the routes really answer with', async () => {
    const ajv = addFormats.default(new Ajv({ strict: false }));
    const { marketHash } = await createMarket(t, { minBetSize: '2000000' });
    const tooSmall = await signOrder(t, user, { marketHash, tick: 400, size: USDC });
    const zero = `0x${'0'.repeat(64)}`;
    const cases: {
      route: string;
      url: string;
      method: 'GET' | 'POST' | 'DELETE';
      status: number;
      [k: string]: unknown;
    }[] = [
      { route: 'GET /orders-v3', method: 'GET', url: '/orders-v3', status: 401 },
      { route: 'GET /orders-v3', method: 'GET', url: '/orders-v3?perPage=0', status: 400, auth: true },
      { route: 'GET /orders-v3', method: 'GET', url: '/orders-v3?nextKey=bad', status: 400, auth: true },
      {
        route: 'GET /orders-v3/{orderId}',
        method: 'GET',
        url: `/orders-v3/${zero}`,
        status: 404,
        auth: true,
      },
      {
        route: 'DELETE /orders-v3',
        method: 'DELETE',
        url: '/orders-v3',
        status: 400,
        auth: true,
        payload: { orders: [{ orderId: 'abc' }] },
      },
      {
        route: 'POST /orders-v3',
        method: 'POST',
        url: '/orders-v3',
        status: 400,
        auth: true,
        payload: { orders: [tooSmall] },
      },
      { route: 'GET /markets/find', method: 'GET', url: '/markets/find?marketHashes=bad', status: 400 },
      {
        route: 'GET /orderbook-v3/snapshot',
        method: 'GET',
        url: `/orderbook-v3/snapshot?marketHash=${zero}`,
        status: 404,
      },
      { route: 'POST /admin/leagues', method: 'POST', url: '/admin/leagues', status: 401, payload: {} },
      {
        route: 'POST /admin/leagues',
        method: 'POST',
        url: '/admin/leagues',
        status: 404,
        admin: true,
        payload: { sportId: 999_999, label: 'Nowhere' },
      },
    ];
    for (const c of cases) {
      const response = await t.app.inject({
        method: c.method,
        url: c.url,
        headers: { ...(c.auth ? user.headers : {}), ...(c.admin ? t.admin : {}) },
        ...(c.payload ? { payload: c.payload as Record<string, unknown> } : {}),
      });
      const where = `${c.method} ${c.url} -> ${response.statusCode} ${response.body}`;
      expect(response.statusCode, where).toBe(c.status);
      const op = operations.find((o) => o.name === c.route)!;
      const schema = op.op.responses[c.status]?.content?.['application/json']?.schema;
      expect(schema, `${c.route} declares ${c.status}`).toBeDefined();
      const validate = ajv.compile(schema!);
      expect(validate(response.json()), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});
