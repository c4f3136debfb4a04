import type { Clock } from '../lib/clock.js';
import type { Intent } from './intents.js';
import type { Sequencer } from './sequencer.js';

/** How often the sequencer looks for what time has made due. */
export const DUE_WORK_INTERVAL_MS = 50;

/**
 * What time makes due, as intents to the sequencer (issue 35): admitted orders whose betting delay ran out,
 * heartbeat deadlines passed, resting orders expired, parlay markets past their take window, v2 orders open at the v3 cut-over. Found from the sequencer's own state (restored from its
 * checkpoint and the journal, never from the projections); each intent is checked again when the sequencer
 * takes it, so one found twice, or overtaken by a cancel or a re-armed heartbeat, does nothing.
 */
export class DueWork {
  #timer: NodeJS.Timeout | null = null;
  /** Keys of intents submitted and not answered yet: not submitted again meanwhile. */
  readonly #submitted = new Set<string>();

  constructor(
    private readonly sequencer: Sequencer,
    private readonly clock: Clock,
    private readonly intervalMs = DUE_WORK_INTERVAL_MS,
    /** V2_CUTOVER_AT (unix ms): from then, v2 orders still open are cancelled (also those found at a start). */
    private readonly v2CutoverAt = Number.POSITIVE_INFINITY,
  ) {}

  start(): () => void {
    this.#timer ??= setInterval(() => this.check(), this.intervalMs);
    this.#timer.unref();
    this.check();
    return () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
    };
  }

  /** Submits everything due now. */
  check(): void {
    const now = this.clock.now();
    const { admission, engine } = this.sequencer;
    const due: [string, Intent][] = [];
    for (const d of admission.delayed.values()) {
      if (d.activateAt <= now)
        due.push([`a:${d.order.orderId}`, { kind: 'activate', orderId: d.order.orderId }]);
    }
    for (const [account, h] of admission.heartbeats) {
      if (h.expiresAt <= now)
        due.push([
          `h:${account}:${h.expiresAt}`,
          { kind: 'heartbeatExpired', account, expiresAt: h.expiresAt },
        ]);
    }
    if (now >= this.v2CutoverAt) {
      const open = admission.openV2Orders((orderId) => engine.order(orderId) !== undefined);
      if (open.resting.length + open.delayed.length > 0)
        due.push(['v2Cutover', { kind: 'v2Cutover', at: this.v2CutoverAt }]);
    }
    for (const marketHash of engine.dueParlayCloses(now))
      due.push([
        `p:${marketHash}`,
        { kind: 'input', input: { kind: 'engine', command: { type: 'closeMarket', marketHash } } },
      ]);
    if (engine.hasDueExpiries(now))
      due.push(['expire', { kind: 'input', input: { kind: 'engine', command: { type: 'expire' } } }]);
    const fresh = due.filter(([key]) => !this.#submitted.has(key));
    if (fresh.length === 0) return;
    let results: Promise<unknown>[];
    try {
      results = this.sequencer.decideAll(fresh.map(([, intent]) => intent));
    } catch {
      return; // full or stopped: the next check tries again
    }
    fresh.forEach(([key], i) => {
      this.#submitted.add(key);
      const done = () => this.#submitted.delete(key);
      results[i]!.then(done, done);
    });
  }
}
