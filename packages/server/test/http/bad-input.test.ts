import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import { startTestExchange, type TestExchange, type TestUser } from '../helpers/test-exchange.js';

type OpenApiOperation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };

/** Operator switches that make the embedded chain misbehave on purpose: not input, left out. */
const NOT_FUZZED = new Set(['POST /admin/faults']);

let t: TestExchange;
let user: TestUser;
let operations: { method: 'GET' | 'POST' | 'DELETE'; path: string; op: OpenApiOperation }[];
/** Real values (a market, its event, an address, ...) to mix with garbage: set once the exchange runs. */
let real: string[];

beforeAll(async () => {
  t = await startTestExchange({ env: { DEMO: '1' } });
  user = await t.createUser();
  await t.app.inject({ method: 'POST', url: '/user/deploy-proxy', headers: user.headers });
  const spec = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .map(([method, op]) => ({ method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE', path, op }))
      .filter(({ method }) => !NOT_FUZZED.has(`${method} ${path}`)),
  );
  const market = (await t.app.inject({ method: 'GET', url: '/markets/active?pageSize=1' })).json().data
    .markets[0] as { marketHash: string; sportXeventId: string };
  real = [market.marketHash, market.sportXeventId, user.address, `0x${'0'.repeat(64)}`, '10', 'true'];
});

afterAll(async () => {
  await t?.close();
});

/** Mostly real values (so that requests get past validation into the handlers), else garbage. */
const values = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '0',
        '-1',
        '1.5',
        '1e309',
        '9'.repeat(400),
        'NaN',
        'null',
        'true',
        '0x',
        `0x${'g'.repeat(64)}`,
        '\u0000',
        '💥',
        '[]',
        '{}',
        'a'.repeat(5000),
        '2026-13-45T99:99:99Z',
        '../../etc/passwd',
      ),
    },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.bigInt().map(String) },
  );

const anyJson = fc.oneof(fc.jsonValue(), fc.constantFrom(null, [], {}, '', -1, 1e308, '9'.repeat(500)));

/** Bodies shaped like the route's schema, with any field wrong, missing or extra. */
function bodyLike(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return anyJson;
  const shaped: fc.Arbitrary<unknown>[] = [anyJson];
  if (schema.properties) {
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, field] of Object.entries(schema.properties))
      fields[name] = fc.oneof(bodyLike(field, depth + 1), values(), anyJson);
    shaped.push(fc.record(fields, { requiredKeys: [] }));
  }
  if (schema.items) shaped.push(fc.array(bodyLike(schema.items, depth + 1), { maxLength: 12 }));
  for (const alternative of schema.anyOf ?? []) shaped.push(bodyLike(alternative, depth + 1));
  return fc.oneof(...shaped);
}

describe('bad input on every route of the OpenAPI document', () => {
  it('is answered below 500 (503 aside) and, when refused, in one of the spec error shapes', async () => {
    expect(operations.length).toBeGreaterThan(40);
    const refused = new Map<number, number>();
    for (const { method, path, op } of operations) {
      const queryNames = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const request = fc.record({
        query: fc.array(
          fc.tuple(
            queryNames.length > 0
              ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...queryNames) }, fc.string())
              : fc.string(),
            values(),
          ),
          { maxLength: 5 },
        ),
        pathValue: values(),
        body: bodyLike(op.requestBody?.content?.['application/json']?.schema),
        raw: fc.option(fc.constantFrom('{', '{"a":', 'not json', '[1,2', '{"orders":[{}]}'), { nil: null }),
        contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', null),
        auth: fc.constantFrom('user', 'user', 'admin', 'none', 'wrong'),
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const url = new URL(
            path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.pathValue) || 'x'),
            'http://x',
          );
          for (const [name, value] of r.query) url.searchParams.append(name, value);
          const headers: Record<string, string> = {
            ...(r.contentType ? { 'content-type': r.contentType } : {}),
            ...(r.auth === 'user' ? user.headers : {}),
            ...(r.auth === 'admin' ? t.admin : {}),
            ...(r.auth === 'wrong' ? { 'x-svc-api-key': 'wrong', 'x-admin-token': 'wrong' } : {}),
          };
          const res = await t.app.inject({
            method,
            url: url.pathname + url.search,
            headers,
            ...(method === 'GET' ? {} : { payload: r.raw ?? JSON.stringify(r.body) }),
          });
          const where = `${method} ${url.pathname}${url.search} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          expect(res.statusCode < 500 || res.statusCode === 503, where).toBe(true);
          if (res.statusCode >= 400) {
            refused.set(res.statusCode, (refused.get(res.statusCode) ?? 0) + 1);
            expectSpecErrorShape(res.statusCode, res.json());
          }
        }),
        { numRuns: 60 },
      );
    }
    // The generator really reaches the checks: refusals of several kinds.
    expect([...refused.keys()]).toEqual(expect.arrayContaining([400, 401, 404]));
  }, 120_000);
});
