import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker whose entry is the module `name` beside `siblingUrl` (a caller's `import.meta.url`).
 * Built (`dist/*.js`), it is the compiled sibling file. Run from sources (vitest, `node --import tsx`), the
 * URL ends in `.ts`; Node 20 ignores `--import` in a worker's execArgv, so a small CommonJS bootstrap
 * registers tsx's loader in the worker, then imports the TypeScript entry.
 */
export function spawnWorker(siblingUrl: string, name: string, workerData: unknown): Worker {
  if (!siblingUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, siblingUrl), { workerData });
  const tsxApi = createRequire(siblingUrl).resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, siblingUrl).href;
  const bootstrap = `require(${JSON.stringify(tsxApi)}).register();
import(${JSON.stringify(entry)}).catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
