import type { ChainReceipt, Hash } from './chain-types.js';

/** Who waits for which transaction's receipt: told once a block carrying it is durable. */
export class ReceiptWaiters {
  private readonly waiters = new Map<Hash, Set<(receipt: ChainReceipt) => void>>();

  /** A waiter for the receipt of `hash`, told by `settle` (or failed after `timeoutMs`). */
  wait(hash: Hash, options: { timeoutMs?: number }) {
    const set = this.waiters.get(hash) ?? new Set<(receipt: ChainReceipt) => void>();
    this.waiters.set(hash, set);
    let timeout: NodeJS.Timeout | undefined;
    let settle!: (receipt: ChainReceipt) => void;
    let fail!: (error: unknown) => void;
    const promise = new Promise<ChainReceipt>((resolve, reject) => {
      const leave = () => {
        if (timeout) clearTimeout(timeout);
        set.delete(settle);
        if (set.size === 0 && this.waiters.get(hash) === set) this.waiters.delete(hash);
      };
      settle = (receipt) => {
        leave();
        resolve(receipt);
      };
      fail = (error) => {
        leave();
        reject(error);
      };
    });
    set.add(settle);
    if (options.timeoutMs !== undefined) {
      timeout = setTimeout(
        () => fail(new Error(`no receipt for ${hash} within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    }
    return { promise, settle, fail };
  }

  /** Tells the waiters of this receipt's transaction. */
  settle(receipt: ChainReceipt): void {
    const waiting = this.waiters.get(receipt.transactionHash);
    if (!waiting) return;
    this.waiters.delete(receipt.transactionHash);
    for (const w of waiting) w(receipt);
  }
}
