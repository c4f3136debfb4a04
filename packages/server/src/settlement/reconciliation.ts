import { differenceUnits, type ReconcileReport, reconcileReportToWire } from './reconcile.js';

/** A reconciliation's report and when it ran. */
export type ReconciliationRun = { at: number; report: ReconcileReport };

/** What the routes and metrics use: the leader's `Reconciliation`, or its remote client on an API node. */
export type Reconciler = Pick<Reconciliation, 'run' | 'last'>;

type Log = { info(o: object, msg: string): void; error(o: object, msg: string): void };

/**
 * Reconciliation of the engine with the chain, run at a start, on a timer and on demand (issue 33): its last
 * report is what `/metrics` and `GET /admin/reconcile` show. A difference is logged as an error.
 */
export class Reconciliation {
  #last: ReconciliationRun | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly o: {
      /** The next exact comparison (the settlement driver's). */
      reconcile(): Promise<ReconcileReport>;
      intervalMs: number;
      /** How long a run waits for a moment the two can be compared exactly. */
      waitMs: number;
      now(): number;
      log: Log;
    },
  ) {}

  get last(): ReconciliationRun | null {
    return this.#last;
  }

  /** Runs now: null when no exact comparison came within `waitMs` (the chain stalled mid-transaction). */
  async run(): Promise<ReconcileReport | null> {
    let timer: NodeJS.Timeout | undefined;
    const report = await Promise.race([
      this.o.reconcile(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), this.o.waitMs);
      }),
    ]);
    clearTimeout(timer);
    if (report === null) return null;
    this.#last = { at: this.o.now(), report };
    const units = differenceUnits(report);
    if (units === 0n)
      this.o.log.info({ accounts: report.accounts }, 'reconciliation: the chain holds what the engine says');
    else
      this.o.log.error(
        { differences: reconcileReportToWire(report).differences.slice(0, 20), units: units.toString() },
        'reconciliation: the chain does not hold what the engine says',
      );
    return report;
  }

  /** Runs every `intervalMs` (the first run is the caller's, at the start). */
  start(): () => void {
    this.#timer = setInterval(() => {
      this.run().catch((error: unknown) => this.o.log.error({ err: error }, 'reconciliation failed'));
    }, this.o.intervalMs);
    this.#timer.unref();
    return () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
    };
  }
}
