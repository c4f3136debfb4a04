import type { Intent, IntentResult } from '../sequencer/intents.js';

/** Accounts whose last answered seq is kept: past it the least recently answered are forgotten. */
export const ACCOUNT_SEQS_MAX = 100_000;

/**
 * Read-your-writes without a global fence (issue 35): the last seq that each account asked for or was touched by
 * (a fill of its order, a pull), so that a read by that account waits until the projections have it, and nothing
 * else waits. An account forgotten past the bound
 * was answered long enough ago that the projections have it.
 */
export class AccountSeqs {
  readonly #seqs = new Map<string, number>();

  /**
   * Records what an answered intent did: for the account that asked, and for every account its entries touched
   * (a maker whose order a taker filled reads the fill next).
   */
  answered(intent: Intent, result: IntentResult): void {
    const last = result.entries[result.entries.length - 1];
    if (!last) return;
    const asker = accountOf(intent);
    if (asker !== undefined) this.#record(asker, last.seq);
    for (const entry of result.entries) {
      for (const e of entry.events) {
        if (e.type === 'orderMatched') {
          this.#record(e.makerAccount, entry.seq);
          this.#record(e.takerAccount, entry.seq);
        } else if (e.type === 'orderDone' || e.type === 'balanceChanged') this.#record(e.account, entry.seq);
      }
    }
  }

  #record(account: string, seq: number): void {
    if ((this.#seqs.get(account) ?? 0) >= seq) return;
    this.#seqs.delete(account);
    this.#seqs.set(account, seq);
    if (this.#seqs.size > ACCOUNT_SEQS_MAX) this.#seqs.delete(this.#seqs.keys().next().value!);
  }

  /** The last seq answered to the account (0: none remembered). */
  of(account: string): number {
    return this.#seqs.get(account) ?? 0;
  }
}

function accountOf(intent: Intent): string | undefined {
  switch (intent.kind) {
    case 'order':
      return intent.order.account;
    case 'cancel':
      return intent.account;
    case 'input': {
      const input = intent.input;
      if (input.kind === 'heartbeat') return input.account;
      if (input.kind === 'engine' && 'account' in input.command) return input.command.account;
      return undefined;
    }
    default:
      return undefined;
  }
}
