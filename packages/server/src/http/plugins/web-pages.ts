import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** packages/web/dist, from this file in packages/server/src/http/plugins or packages/server/dist/http/plugins. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../../../web/dist', import.meta.url));

/**
 * Serves the built web pages (the account and trading pages, one index.html with hash routes) at `/`.
 * Each built file becomes its own route, so the API's routes keep precedence and an unknown path is the
 * API's JSON 404. Without a build the server runs as before and says so in its log.
 */
export async function registerWebPages(app: FastifyInstance, webDir = DEFAULT_WEB_DIR): Promise<void> {
  if (!existsSync(join(webDir, 'index.html'))) {
    app.log.warn({ webDir }, 'the web pages are not built (npm run build): / serves nothing');
    return;
  }
  await app.register(fastifyStatic, { root: webDir, prefix: '/', wildcard: false, index: ['index.html'] });
}
