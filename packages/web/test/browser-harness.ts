import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll } from 'vitest';
import { withTestStore } from '../../server/test/helpers/test-store.js';
import { buildWeb } from './web-build.js';

export { buildWeb };

export const CHROMIUM = '/usr/bin/chromium';
export const ADMIN_TOKEN = 'browser-test-admin-token-0123';
const webDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = fileURLToPath(new URL('../../..', import.meta.url));
export const ARTIFACTS = join(webDir, 'test-artifacts');

/** Whether the browser suite can run; in CI a missing Chromium is a failure, not a skip. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`);
  return false;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type RunningExchange = {
  url: string;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
};

/**
 * A real `oddsbook serve` process on a fresh data dir and a free port, its store on the tests' store
 * (`ODDSBOOK_TEST_STORE`, as the server's integration tests); `env` adds settings.
 */
export async function startExchange(
  options: { env?: Record<string, string> } = {},
): Promise<RunningExchange> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbook-browser-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: join(repoDir, 'packages/server'),
    env: {
      ...process.env,
      ...(await withTestStore({ DATA_DIR: dataDir })),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      DEMO: '1',
      // The demo market maker's quotes would stand between the tests' maker and taker: on when a test asks.
      DEMO_MARKET_MAKER: '0',
      BLOCK_TIME_MS: '50',
      LOG_LEVEL: 'info',
      ...options.env,
    },
  });
  // The server's log, its last 64 KiB (shown when it fails to start).
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-65_536);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const check = setInterval(() => {
      if (output.includes('"msg":"oddsbook is up"')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.once('exit', () => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`server exited:\n${output}`));
    });
  });
  try {
    await started;
  } catch (error) {
    // Never leave a server behind: one that did not come up is stopped and its data dir removed.
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    admin: adminAt(url),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The operator routes of the exchange at `url`, with the tests' token. */
export function adminAt(url: string): RunningExchange['admin'] {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-admin-token': ADMIN_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() };
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * For a suite of browser tests: builds the pages, starts an exchange (with `env` added to its settings) and
 * Chromium before its tests and stops both after. Read the fields inside the tests, once `beforeAll` has set them.
 */
export function exchangeAndBrowser(env?: Record<string, string>): {
  exchange: RunningExchange;
  browser: Browser;
} {
  const running = {} as { exchange: RunningExchange; browser: Browser };
  beforeAll(async () => {
    buildWeb();
    running.exchange = await startExchange({ env });
    running.browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await running.browser?.close();
    await running.exchange?.stop();
  });
  return running;
}

declare global {
  interface Window {
    __walletRequest(method: string, params: unknown): Promise<unknown>;
    ethereum: unknown;
  }
}

/**
 * A browser context whose page has an EIP-1193 wallet at `window.ethereum`, backed by a real viem local
 * account on the Node side: `personal_sign` and `eth_signTypedData_v4` sign with the private key.
 */
export async function walletContext(
  browser: Browser,
  privateKey: Hex,
  chainId: number,
  options: { signOtherMessage?: boolean } = {},
): Promise<{
  context: BrowserContext;
  page: Page;
  address: `0x${string}`;
  requests: string[];
  cspViolations: string[];
}> {
  const account = privateKeyToAccount(privateKey);
  const requests: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.exposeBinding('__walletRequest', async (_source, method: string, params: unknown[]) => {
    requests.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address];
      case 'eth_chainId':
        return `0x${chainId.toString(16)}`;
      case 'personal_sign':
        return account.signMessage({
          message: options.signOtherMessage ? 'not the sign-in message' : { raw: params[0] as Hex },
        });
      case 'eth_signTypedData_v4':
        return account.signTypedData(JSON.parse(params[1] as string));
      default:
        throw new Error(`wallet: ${method} is not supported`);
    }
  });
  await context.addInitScript(() => {
    window.ethereum = {
      request: ({ method, params }: { method: string; params?: unknown }) =>
        window.__walletRequest(method, params ?? []),
    };
  });
  const page = await context.newPage();
  return { context, page, address: account.address, requests, cspViolations: cspViolations(page) };
}

/** What the page's Content-Security-Policy refuses from now on (Chromium reports each on the console). */
export function cspViolations(page: Page): string[] {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refused.push(message.text());
  });
  return refused;
}

/** Saves a full-page screenshot in the artifacts dir and returns its path and size. */
export async function screenshot(page: Page, name: string): Promise<{ path: string; bytes: number }> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return { path, bytes: statSync(path).size };
}
