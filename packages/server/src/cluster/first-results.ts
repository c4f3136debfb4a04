import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { IntentResult, OrderIntent } from '../sequencer/intents.js';

type FirstResult = { commandId: string; ts: number; result: IntentResult };

/**
 * What each recent order's first submission was answered with, rebuilt from the committed batches: the entry
 * that placed or admitted it. An API node retries a submission whose answer it lost (a dropped reply, a
 * failover); the sequencer then refuses the order as ORDER_ALREADY_EXISTS, and the intake answers the retry
 * with this first result instead. It follows committed batches, not answers, so a standby fed with the
 * committed stream (or the journal) knows the orders its former leader answered. The result holds the entry
 * that placed or admitted the order (what intake answers from: the last entry), not the market's opening
 * that may have come before it in the same reply.
 */
export class FirstResults {
  readonly #orders = new Map<string, FirstResult>();

  /**
   * @param retentionMs how long an order's first result is kept (by batch time): longer than any client's
   *   retry deadline.
   * @param maxOrders at most this many kept (the oldest go first).
   */
  constructor(
    private readonly retentionMs = 120_000,
    private readonly maxOrders = 50_000,
  ) {}

  get size(): number {
    return this.#orders.size;
  }

  follow(batch: CommittedBatch): void {
    for (const entry of batch.entries) {
      const { input } = entry;
      if (input.kind === 'admit') {
        this.#remember(input.order.orderId, input.meta.commandId, entry.ts, {
          entries: [entry],
          order: { status: 'admitted', activateAt: input.activateAt },
        });
      } else if (input.kind === 'engine' && input.command.type === 'place' && input.meta) {
        this.#remember(input.command.orderId, input.meta.commandId, entry.ts, {
          entries: [entry],
          order: { status: 'placed' },
        });
      }
    }
    this.#forget(batch.ts - this.retentionMs);
  }

  /**
   * The first result of the same submission (same order id and command id) when the sequencer refused
   * `intent` as already existing; else the sequencer's own answer.
   */
  answer(intent: OrderIntent, result: IntentResult): IntentResult {
    if (result.order?.status !== 'refused' || result.order.reason !== 'ORDER_ALREADY_EXISTS') return result;
    const first = this.#orders.get(intent.order.orderId);
    return first && first.commandId === intent.meta.commandId ? first.result : result;
  }

  #remember(orderId: string, commandId: string, ts: number, result: IntentResult): void {
    // An admitted order's later place (its delay over) is not what its submitter was answered.
    if (this.#orders.has(orderId)) return;
    this.#orders.set(orderId, { commandId, ts, result });
    if (this.#orders.size > this.maxOrders) this.#orders.delete(this.#orders.keys().next().value!);
  }

  #forget(before: number): void {
    for (const [orderId, first] of this.#orders) {
      if (first.ts >= before) break;
      this.#orders.delete(orderId);
    }
  }
}
