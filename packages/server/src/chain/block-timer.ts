/** Drives block production. Injected so tests step blocks themselves. */
export interface BlockTimer {
  /** `onTick` may return a promise of the tick's work (a block announced once it is durable). */
  start(intervalMs: number, onTick: () => unknown): void;
  stop(): void;
}

/** Real time: a tick every `intervalMs`; does not keep the process alive on its own. */
export function intervalBlockTimer(): BlockTimer {
  let handle: NodeJS.Timeout | null = null;
  return {
    start(intervalMs, onTick) {
      if (handle) clearInterval(handle);
      handle = setInterval(onTick, intervalMs);
      handle.unref();
    },
    stop() {
      if (handle) clearInterval(handle);
      handle = null;
    },
  };
}

/** Test timer: nothing happens until `tick()`. */
export class ManualBlockTimer implements BlockTimer {
  private onTick: (() => unknown) | null = null;

  get running(): boolean {
    return this.onTick !== null;
  }

  start(_intervalMs: number, onTick: () => unknown): void {
    this.onTick = onTick;
  }

  stop(): void {
    this.onTick = null;
  }

  /**
   * Fires `times` ticks (one block each if anything is pending); a stopped timer ignores them. Synchronous
   * while each tick's work is; else a promise of the remaining ticks, each after the one before is done.
   */
  tick(times = 1): Promise<void> | undefined {
    for (let i = 0; i < times; i++) {
      const pending = this.onTick?.();
      if (pending instanceof Promise) return pending.then(() => this.tick(times - i - 1));
    }
    return undefined;
  }
}
