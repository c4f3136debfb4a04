import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

describe('the web pages at /', () => {
  let t: TestExchange;
  const webDir = mkdtempSync(join(tmpdir(), 'oddsbook-web-'));
  beforeAll(async () => {
    t = await startTestExchange();
    writeFileSync(join(webDir, 'index.html'), '<!doctype html><div id="app"></div>');
    mkdirSync(join(webDir, 'assets'));
    writeFileSync(join(webDir, 'assets', 'index-abc.js'), 'console.log(1)');
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
    rmSync(webDir, { recursive: true, force: true });
  });

  it('serves the built pages; the API and its JSON 404 keep their places', async () => {
    const app = await buildApp(t.exchange, { logger: false, webDir });
    try {
      const index = await app.inject({ method: 'GET', url: '/' });
      expect(index.statusCode).toBe(200);
      expect(index.headers['content-type']).toMatch(/text\/html/);
      expect(index.body).toContain('<div id="app">');
      const script = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
      expect(script.statusCode).toBe(200);
      expect(script.headers['content-type']).toMatch(/javascript/);
      expect((await app.inject({ method: 'GET', url: '/sports' })).json().status).toBe('success');
      const missing = await app.inject({ method: 'GET', url: '/assets/nothing.js' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({
        message: 'Cannot GET /assets/nothing.js',
        error: 'Not Found',
        statusCode: 404,
        code: 'ROUTE_NOT_FOUND',
      });
      expect((await app.inject({ method: 'GET', url: '/../package.json' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('runs without a build: / is the JSON 404 and the API works', async () => {
    const app = await buildApp(t.exchange, { logger: false, webDir: join(webDir, 'missing') });
    try {
      const index = await app.inject({ method: 'GET', url: '/' });
      expect(index.statusCode).toBe(404);
      expect(index.json()).toMatchObject({ statusCode: 404 });
      expect((await app.inject({ method: 'GET', url: '/sports' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
