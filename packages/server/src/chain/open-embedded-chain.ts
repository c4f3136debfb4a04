import type { BlockTimer } from './block-timer.js';
import type { ChainStore } from './chain-store.js';
import type { Address } from './chain-types.js';
import { EmbeddedChain } from './embedded-chain.js';
import { MultisigCoordinator } from './multisig.js';
import type { MultisigStore } from './multisig-store.js';

export type OpenEmbeddedChainOptions = {
  /** The chain's store (the exchange's SQLite database or PostgreSQL); closed by `stop()`. */
  store: ChainStore;
  /** The multisig bookkeeping, in the same database. */
  multisigStore: MultisigStore;
  chainId: number;
  baseToken: Address;
  escrowAddress: Address;
  blockTimeMs?: number;
  timer?: BlockTimer;
  clock?: { now(): number };
  onListenerError?: (error: unknown) => void;
};

/**
 * Wires the embedded chain and the multisig coordinator on their stores and starts both: the coordinator
 * subscribes first, then blocks begin (pending transactions from before a restart land in the first block).
 * Stop with `stop()`; closing the database stays with its owner.
 */
export async function openEmbeddedChain(options: OpenEmbeddedChainOptions) {
  const { multisigStore, ...chainOptions } = options;
  const chain = await EmbeddedChain.open(chainOptions);
  const multisig = new MultisigCoordinator({
    chain,
    store: multisigStore,
    clock: options.clock,
    ...(options.onListenerError ? { onError: options.onListenerError } : {}),
  });
  await multisig.start();
  chain.start();
  return {
    chain,
    multisig,
    async stop() {
      multisig.stop();
      await multisig.idle();
      await chain.stop();
    },
  };
}
