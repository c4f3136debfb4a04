import type { Database } from 'better-sqlite3';
import type { BlockTimer } from './block-timer.js';
import type { Address } from './chain-types.js';
import { EmbeddedChain } from './embedded-chain.js';
import { MultisigCoordinator } from './multisig.js';
import { SqliteChainStore } from './sqlite-chain-store.js';
import { SqliteMultisigStore } from './sqlite-multisig-store.js';

export type OpenEmbeddedChainOptions = {
  /** The server's database; the chain's tables are created in it when missing. */
  db: Database;
  chainId: number;
  baseToken: Address;
  escrowAddress: Address;
  blockTimeMs?: number;
  timer?: BlockTimer;
  clock?: { now(): number };
  onListenerError?: (error: unknown) => void;
};

/**
 * Wires the embedded chain and the multisig coordinator on one SQLite database and starts both:
 * the coordinator subscribes first, then blocks begin (pending transactions from before a restart
 * land in the first block). Stop with `stop()`; closing the database stays with its owner.
 */
export async function openEmbeddedChain(options: OpenEmbeddedChainOptions) {
  const chain = new EmbeddedChain({ ...options, store: new SqliteChainStore(options.db) });
  const multisig = new MultisigCoordinator({
    chain,
    store: new SqliteMultisigStore(options.db),
    clock: options.clock,
  });
  await multisig.start();
  chain.start();
  return {
    chain,
    multisig,
    async stop() {
      multisig.stop();
      await chain.stop();
    },
  };
}
