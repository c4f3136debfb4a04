import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { ManualBlockTimer } from './block-timer.js';
import type { ChainStore } from './chain-store.js';
import type { Address } from './chain-types.js';
import { EmbeddedChain } from './embedded-chain.js';

export const BASE_TOKEN: Address = '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054';
export const ESCROW: Address = '0xa70B8BddF7B752f3756BecCB7710584d47597fC3';

/** Hardhat/Anvil dev keys (public; tests only). */
export const KEYS = {
  A: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  B: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  C: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
} as const;
export const A: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const B: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const C: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** A's proxy on chain 4162 with the v1.4.1 SafeL2 singleton and salt nonce 0 (safe-vectors.json). */
export const SAFE_A: Address = '0xd9f8dE3B1E996B792C5eBb78A747F974D618D172';

/** A chain on `store` whose blocks the test mines (`timer.tick()`), its clock a second further at each read. */
function testChainOptions(store: ChainStore, chainId: number, onListenerError?: (error: unknown) => void) {
  const timer = new ManualBlockTimer();
  let now = 1_800_000_000_000;
  const clock = { now: () => (now += 1000) };
  const options = {
    chainId,
    store,
    baseToken: BASE_TOKEN,
    escrowAddress: ESCROW,
    timer,
    clock,
    ...(onListenerError ? { onListenerError } : {}),
  };
  return { options, timer };
}

/** A started test chain on a store that loads at once (memory, SQLite). */
export function createTestChain(
  store: ChainStore,
  chainId = 4162,
  onListenerError?: (error: unknown) => void,
) {
  const { options, timer } = testChainOptions(store, chainId, onListenerError);
  const chain = new EmbeddedChain(options);
  chain.start();
  return { chain, timer };
}

/** A started test chain on any store (PostgreSQL too). */
export async function openTestChain(
  store: ChainStore,
  chainId = 4162,
  onListenerError?: (error: unknown) => void,
) {
  const { options, timer } = testChainOptions(store, chainId, onListenerError);
  const chain = await EmbeddedChain.open(options);
  chain.start();
  return { chain, timer };
}

export function tempSqlite(): { path: string; open(): Database; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbook-chain-'));
  const path = join(dir, 'chain.sqlite');
  return {
    path,
    open() {
      const db = new BetterSqlite3(path);
      db.pragma('journal_mode = WAL');
      return db;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
