/**
 * A command's events: its own as they happen, then each changed level and balance once (`flush`), handed
 * out in an array of their exact size (`takeEvents`).
 */
import type { EngineCommand } from './commands.js';
import type { EngineState } from './engine-state.js';
import type { EngineEvent, LevelChangedEvent, RejectCode } from './events.js';
import type { MarketBook } from './market-book.js';

export function rejectCommand(s: EngineState, command: EngineCommand['type'], code: RejectCode): void {
  s.pending[s.eventCount++] = { type: 'commandRejected', command, code };
}

export function touchLevel(s: EngineState, market: MarketBook, level: number): void {
  if (market.touched[level] === 0) {
    market.touched[level] = 1;
    s.touchedMarkets[s.touchedLevelCount] = market;
    s.touchedLevels[s.touchedLevelCount++] = level;
  }
}

export function touchAccount(s: EngineState, a: number): void {
  if (s.accounts.touched[a] === 0) {
    s.accounts.touched[a] = 1;
    s.touchedAccounts[s.touchedAccountCount++] = a;
  }
}

/** The `levelChanged` event of a level (`side * N + tick`) as it is now. */
export function levelChanged(s: EngineState, market: MarketBook, level: number): LevelChangedEvent {
  const n = s.ladder.size;
  const side = level >= n ? 1 : 0;
  const tick = level - side * n;
  return {
    type: 'levelChanged',
    marketHash: market.marketHash,
    isBettingOutcomeOne: side === 0,
    tick,
    percentageOdds: s.ladder.odds[tick]!,
    size: market.total[level]!,
    orders: market.count[level]!,
    version: market.version,
  };
}

/** Reports every changed level (absolute) and balance once, in the order they first changed. */
export function flush(s: EngineState): void {
  const touchedMarkets = s.touchedMarkets;
  const touchedLevels = s.touchedLevels;
  for (let i = 0; i < s.touchedLevelCount; i++) {
    const market = touchedMarkets[i]!;
    const level = touchedLevels[i]!;
    market.touched[level] = 0;
    if (market.stamp === 0) {
      market.stamp = 1;
      market.version++;
      s.bumped[s.bumpedCount++] = market;
    }
    s.pending[s.eventCount++] = levelChanged(s, market, level);
  }
  s.touchedLevelCount = 0;
  for (let i = 0; i < s.bumpedCount; i++) s.bumped[i]!.stamp = 0;
  s.bumpedCount = 0;
  const accounts = s.accounts;
  for (let i = 0; i < s.touchedAccountCount; i++) {
    const a = s.touchedAccounts[i]!;
    accounts.touched[a] = 0;
    s.pending[s.eventCount++] = {
      type: 'balanceChanged',
      account: accounts.names[a]!,
      available: accounts.available.get(a),
      escrowed: accounts.escrowed.get(a),
    };
  }
  s.touchedAccountCount = 0;
}

/** The command's events in an array of their exact size; the scratch slots are cleared for the GC. */
export function takeEvents(s: EngineState): EngineEvent[] {
  const p = s.pending;
  const n = s.eventCount;
  let events: EngineEvent[];
  // Array literals of the exact size (no builtin call) for the common counts.
  switch (n) {
    case 0:
      events = [];
      break;
    case 1:
      events = [p[0]!];
      break;
    case 2:
      events = [p[0]!, p[1]!];
      break;
    case 3:
      events = [p[0]!, p[1]!, p[2]!];
      break;
    case 4:
      events = [p[0]!, p[1]!, p[2]!, p[3]!];
      break;
    case 5:
      events = [p[0]!, p[1]!, p[2]!, p[3]!, p[4]!];
      break;
    case 6:
      events = [p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, p[5]!];
      break;
    case 7:
      events = [p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, p[5]!, p[6]!];
      break;
    case 8:
      events = [p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, p[5]!, p[6]!, p[7]!];
      break;
    default:
      events = p.slice(0, n) as EngineEvent[];
  }
  for (let i = 0; i < n; i++) p[i] = undefined;
  s.eventCount = 0;
  return events;
}
