/** How long a stop may take after SIGTERM or SIGINT before the process exits anyway (1). */
export const STOP_CAP_MS = 10_000;

/**
 * A cluster node's signals: SIGTERM or SIGINT stops it (`stop`), then it exits 0, logging "stopped
 * cleanly"; a stop that takes over STOP_CAP_MS exits 1.
 */
export function exitOnSignals(stop: () => Promise<void>, log: { info(o: object, msg: string): void }): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      const force = setTimeout(() => process.exit(1), STOP_CAP_MS);
      force.unref();
      void stop().then(() => {
        log.info({ signal }, 'stopped cleanly');
        process.exit(0);
      });
    });
}
