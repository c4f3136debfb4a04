import type { StateChanges } from './chain-store.js';
import type { Address, ChainBlock, ChainReceipt, ProxyDeployment, SafeState } from './chain-types.js';

export type CommittedState = {
  balances: Map<Address, bigint>;
  safes: Map<Address, SafeState>;
  deployments: Map<Address, ProxyDeployment>;
};

/** Reads through to the committed state; collects a block's writes until the store has them. */
export class Overlay {
  readonly balances = new Map<Address, bigint>();
  readonly safes = new Map<Address, SafeState>();
  readonly deployments = new Map<Address, ProxyDeployment>();

  constructor(private readonly base: CommittedState) {}

  balance(a: Address): bigint {
    return this.balances.get(a) ?? this.base.balances.get(a) ?? 0n;
  }

  safe(a: Address): SafeState | undefined {
    return this.safes.get(a) ?? this.base.safes.get(a);
  }

  setBalance(a: Address, amount: bigint): void {
    this.balances.set(a, amount);
  }

  move(from: Address, to: Address, amount: bigint): boolean {
    const available = this.balance(from);
    if (available < amount) return false;
    this.balances.set(from, available - amount);
    this.balances.set(to, this.balance(to) + amount);
    return true;
  }

  changes(): StateChanges {
    return {
      balances: this.balances,
      safes: [...this.safes.values()],
      deployments: [...this.deployments.values()],
    };
  }
}

/** A block written to the store, to be applied and announced once durable. */
export type MinedBlock = {
  block: ChainBlock;
  receipts: ChainReceipt[];
  /** Resolves once the block is durable; none when it is already. */
  durable: Promise<void> | undefined;
  /** False when an injected fault drops the block's announcement to listeners. */
  announce: boolean;
};
