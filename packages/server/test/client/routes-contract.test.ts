import { createAdminClient, createExchangeClient } from '@oddsbook/client';
import { ADMIN_ROUTES, API_ROUTES, LEGACY_ROUTES, type RouteSpec } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

type Json = Record<string, unknown>;
type Operation = {
  parameters?: { in: string; name: string; required?: boolean; schema: Json }[];
  requestBody?: { content: { 'application/json': { schema: Json } } };
  responses: Record<string, { content?: { 'application/json': { schema: Json } } }>;
  security?: Record<string, string[]>[];
};

const DROPPED = new Set(['description', 'title', '$id', 'examples', 'default']);

/**
 * A schema in the form both sides can be compared in: what the OpenAPI generator writes differently from
 * TypeBox (`nullable` for a union with null, tuples, descriptions) made the same, everything else kept:
 * fields, types, patterns, bounds, required, additionalProperties.
 */
function canonical(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(canonical);
  if (!schema || typeof schema !== 'object') return schema;
  let out: Json = {};
  for (const [key, value] of Object.entries(schema)) if (!DROPPED.has(key)) out[key] = canonical(value);
  const anyOf = out.anyOf as Json[] | undefined;
  if (anyOf?.some((s) => s.type === 'null')) {
    const rest = anyOf.filter((s) => s.type !== 'null');
    const { anyOf: _anyOf, ...others } = out;
    out = { ...others, ...(rest.length === 1 ? rest[0] : { anyOf: rest }), nullable: true };
  }
  if (out.type === 'array' && Array.isArray(out.items)) {
    delete out.minItems;
    delete out.maxItems;
    delete out.additionalItems;
  }
  // A record: TypeBox writes `patternProperties {"^.*$": V}`, the generator `additionalProperties: V`.
  const patterns = out.patternProperties as Record<string, unknown> | undefined;
  if (patterns && Object.keys(patterns).length === 1 && patterns['^.*$']) {
    out.additionalProperties = patterns['^.*$'];
    delete out.patternProperties;
  }
  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
  }
  if (Array.isArray(out.required)) out.required = [...(out.required as string[])].sort();
  // Keys in one order, so that equal schemas print equal.
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const AUTH_OF_SECURITY: Record<string, RouteSpec['auth']> = {
  apiKey: 'apiKey',
  adminToken: 'admin',
  webSession: 'session',
};

/** The route's parameters of one kind as the object schema they make up. */
function parametersAsObject(operation: Operation, where: 'query' | 'path'): Json | undefined {
  const params = (operation.parameters ?? []).filter((p) => p.in === where);
  if (params.length === 0) return undefined;
  return canonical({
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    ...(params.some((p) => p.required)
      ? { required: params.filter((p) => p.required).map((p) => p.name) }
      : {}),
  }) as Json;
}

/** The route's object schema without the parts OpenAPI does not carry for parameters. */
function paramsSchema(schema: unknown): Json | undefined {
  if (!schema) return undefined;
  const { additionalProperties: _a, ...rest } = canonical(schema) as Json;
  const properties = rest.properties as Record<string, Json>;
  return { ...rest, properties };
}

describe('the route table of @oddsbook/protocol and the SDK against the served OpenAPI document', () => {
  let t: TestExchange;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    t = await startTestExchange();
    const response = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
    paths = response.json().paths;
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const routes = [
    ...Object.entries(API_ROUTES).map(([name, route]) => ({ name, route: route as RouteSpec, admin: false })),
    ...Object.entries(ADMIN_ROUTES).map(([name, route]) => ({
      name,
      route: route as RouteSpec,
      admin: true,
    })),
  ];
  // The legacy v2 API is in the table and the served document, not in the (v3) SDK.
  const legacy = Object.entries(LEGACY_ROUTES).map(([name, route]) => ({
    name,
    route: route as RouteSpec,
    admin: false,
  }));

  it('names every route the server serves, once, and no other', () => {
    const served = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const named = [...routes, ...legacy].map(({ route }) => `${route.method} ${route.path}`);
    expect(new Set(named).size).toBe(named.length);
    expect([...named].sort()).toEqual([...served].sort());
  });

  it('has the server’s schemas: answer data, body, query and path parameters, and who may call it', () => {
    const mismatches: string[] = [];
    for (const { name, route } of [...routes, ...legacy]) {
      const operation = paths[route.path]![route.method.toLowerCase()]!;
      const ok = operation.responses['200']!.content!['application/json'].schema;
      const served = route.shape === 'bare' ? ok : (ok.properties as Record<string, unknown>).data;
      const compare = (part: string, mine: unknown, theirs: unknown) => {
        if (JSON.stringify(mine) !== JSON.stringify(theirs))
          mismatches.push(
            `${name} ${part}:\n  table  ${JSON.stringify(mine)}\n  served ${JSON.stringify(theirs)}`,
          );
      };
      compare('response', canonical(route.response), canonical(served));
      compare(
        'body',
        route.body ? canonical(route.body) : undefined,
        operation.requestBody
          ? canonical(operation.requestBody.content['application/json'].schema)
          : undefined,
      );
      compare('query', paramsSchema(route.query), parametersAsObject(operation, 'query'));
      compare('params', paramsSchema(route.params), parametersAsObject(operation, 'path'));
      const security = Object.keys(operation.security?.[0] ?? {})[0];
      compare('auth', route.auth, security ? AUTH_OF_SECURITY[security] : 'none');
    }
    expect(mismatches).toEqual([]);
  });

  it('has one SDK method per route, named as the route', () => {
    const client = createExchangeClient({ baseUrl: 'http://127.0.0.1:1' });
    const admin = createAdminClient({ baseUrl: 'http://127.0.0.1:1', adminToken: 'x' });
    const missing = routes
      .filter(
        ({ name, admin: isAdmin }) => typeof (isAdmin ? admin : client)[name as keyof object] !== 'function',
      )
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });
});
