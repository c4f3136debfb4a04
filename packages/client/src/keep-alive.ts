import type { HeartbeatResult } from '@oddsbook/protocol';

export type KeepAliveOptions = {
  /**
   * The dead-man switch's timeout (1..3600 s): if no refresh reaches the exchange for this long (the bot
   * died, hung, or lost the network), it cancels every open order of the account. Default 10 s.
   */
  timeoutSeconds?: number;
  /** How often it is refreshed; default a third of the timeout, so that two refreshes may fail. */
  intervalMs?: number;
  /** A refresh failed (it is tried again at half the interval); the switch still fires on time. */
  onError?: (error: unknown) => void;
};

export type KeepAlive = {
  /** Resolves once the switch is armed the first time (rejects if that fails). */
  readonly armed: Promise<HeartbeatResult>;
  /** When the exchange will cancel everything unless refreshed (ms since the epoch), as last confirmed. */
  readonly expiresAt: number | null;
  /**
   * Stops refreshing. `disarm` (default true) turns the switch off, for a clean shutdown; `false` leaves it
   * armed, so the exchange cancels the orders when it lapses.
   */
  stop(options?: { disarm?: boolean }): Promise<void>;
};

/**
 * Keeps the account's heartbeat armed: refreshes `POST /heartbeat/v3` every `intervalMs` while the process
 * runs, so that if it stops refreshing for `timeoutSeconds` the exchange cancels all its open orders
 * (HEARTBEAT_TIMEOUT).
 */
export function keepAlive(
  heartbeat: (timeoutSeconds: number) => Promise<HeartbeatResult>,
  options: KeepAliveOptions = {},
): KeepAlive {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 3600)
    throw new RangeError('timeoutSeconds is a whole number from 1 to 3600');
  const intervalMs = options.intervalMs ?? Math.floor((timeoutSeconds * 1000) / 3);
  if (intervalMs <= 0 || intervalMs >= timeoutSeconds * 1000)
    throw new RangeError('intervalMs must be shorter than the timeout');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let expiresAt: number | null = null;
  let inFlight: Promise<unknown> = Promise.resolve();

  const refresh = async (): Promise<HeartbeatResult> => {
    const result = await heartbeat(timeoutSeconds);
    expiresAt = result.expiresAt === null ? null : Date.parse(result.expiresAt);
    return result;
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      const run = refresh().then(
        () => schedule(intervalMs),
        (error: unknown) => {
          options.onError?.(error);
          schedule(Math.floor(intervalMs / 2));
        },
      );
      inFlight = run;
    }, ms);
  };
  const armed = refresh();
  inFlight = armed.then(
    () => schedule(intervalMs),
    () => undefined,
  );
  armed.catch(() => undefined);

  const stop = async ({ disarm = true }: { disarm?: boolean } = {}) => {
    if (stopped) return;
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight.catch(() => undefined);
    if (disarm) {
      await heartbeat(0);
      expiresAt = null;
    }
  };
  return {
    armed,
    get expiresAt() {
      return expiresAt;
    },
    stop,
  };
}
