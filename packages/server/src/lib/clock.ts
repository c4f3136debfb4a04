/** Wall-clock time in milliseconds; injected so tests can control it. */
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };
