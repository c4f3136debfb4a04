import type { OrderOutcome } from '@oddsbook/protocol';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import { outcomeOf, timeoutOutcome, withdrawnOutcome } from './outcome.js';

type Watcher = { totalBetSize: bigint; resolve: (outcome: OrderOutcome) => void; timer: NodeJS.Timeout };

/**
 * The outcomes of admitted orders, for a `waitForOutcome` that outlives their admission: each is decided
 * later, when the order enters the engine after its betting delay or is withdrawn before. Fed with the
 * committed batches (in a cluster: the committed stream), in order.
 */
export class OutcomeWatch {
  readonly #watchers = new Map<string, Watcher[]>();

  /** Resolves with the order's outcome once decided, or TIMEOUT at `deadline` (ms, the clock's). */
  wait(orderId: string, totalBetSize: bigint, waitMs: number): Promise<OrderOutcome> {
    return new Promise((resolve) => {
      const watcher: Watcher = {
        totalBetSize,
        resolve,
        timer: setTimeout(
          () => {
            this.#drop(orderId, watcher);
            resolve(timeoutOutcome(totalBetSize));
          },
          Math.max(0, waitMs),
        ),
      };
      const list = this.#watchers.get(orderId) ?? [];
      list.push(watcher);
      this.#watchers.set(orderId, list);
    });
  }

  /** A committed batch: the watched orders it decided. */
  follow(batch: CommittedBatch): void {
    if (this.#watchers.size === 0) return;
    for (const entry of batch.entries) {
      const { input } = entry;
      if (input.kind === 'engine' && input.command.type === 'place') {
        const watchers = this.#take(input.command.orderId);
        if (!watchers) continue;
        const outcome = outcomeOf(input.command.orderId, input.command.totalBetSize, entry.events);
        if (outcome) for (const w of watchers) w.resolve(outcome);
      } else if (input.kind === 'withdraw') {
        for (const orderId of input.orderIds) {
          for (const w of this.#take(orderId) ?? [])
            w.resolve(withdrawnOutcome(w.totalBetSize, input.reason));
        }
      }
    }
  }

  #take(orderId: string): Watcher[] | undefined {
    const list = this.#watchers.get(orderId);
    if (!list) return undefined;
    this.#watchers.delete(orderId);
    for (const w of list) clearTimeout(w.timer);
    return list;
  }

  #drop(orderId: string, watcher: Watcher): void {
    const list = this.#watchers.get(orderId)?.filter((w) => w !== watcher);
    if (list && list.length > 0) this.#watchers.set(orderId, list);
    else this.#watchers.delete(orderId);
  }
}
