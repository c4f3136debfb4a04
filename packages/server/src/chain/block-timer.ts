/** Drives block production. Injected so tests step blocks themselves. */
export interface BlockTimer {
  start(intervalMs: number, onTick: () => void): void;
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
  private onTick: (() => void) | null = null;

  get running(): boolean {
    return this.onTick !== null;
  }

  start(_intervalMs: number, onTick: () => void): void {
    this.onTick = onTick;
  }

  stop(): void {
    this.onTick = null;
  }

  /** Fires one tick (one block if anything is pending). A stopped timer ignores it. */
  tick(times = 1): void {
    for (let i = 0; i < times; i++) this.onTick?.();
  }
}
