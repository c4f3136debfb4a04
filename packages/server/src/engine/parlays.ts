/**
 * Parlay markets in the engine (issue 39): made for one request with its legs linked, their orders checked
 * against the request's windows, closed at `takeUntil` or when a leg closes, and settled by the legs'
 * results in the command that decides them.
 */
import { cancelInMarket } from './cancels.js';
import type { MarketOutcome, ParlaySpec, PlaceOrderCommand } from './commands.js';
import type { EngineState } from './engine-state.js';
import { RejectCode } from './events.js';
import { type MarketBook, MarketStatus } from './market-book.js';
import { type LegResult, legResult, parlayOutcome, quarterLineResult } from './parlay-rule.js';

export const MIN_PARLAY_LEGS = 2;
export const MAX_PARLAY_LEGS = 10;

/** One leg: its market, the outcome the bettor needs, its results (one; two halves for a quarter-line leg). */
export type ParlayLegState = {
  readonly market: MarketBook;
  readonly pickOne: boolean;
  readonly results: (LegResult | null)[];
};

export type ParlayState = Omit<ParlaySpec, 'legs'> & { readonly legs: readonly ParlayLegState[] };

/** The legs of a spec, or undefined when they are not 2 to 10 open ordinary markets of different events. */
export function parlayLegs(s: EngineState, spec: ParlaySpec): MarketBook[] | undefined {
  const { legs } = spec;
  if (legs.length < MIN_PARLAY_LEGS || legs.length > MAX_PARLAY_LEGS) return undefined;
  const markets = legs.map((leg) => s.marketByHash.get(leg.marketHash));
  const events = new Set<string>();
  for (const m of markets) {
    if (m === undefined || m.status !== MarketStatus.OPEN || m.parlay !== null || events.has(m.eventId))
      return undefined;
    events.add(m.eventId);
  }
  return markets as MarketBook[];
}

/** Links a parlay market to its legs (and a quarter-line leg's halves, whose results settle it). */
export function linkParlay(
  s: EngineState,
  market: MarketBook,
  spec: ParlaySpec,
  legs: readonly MarketBook[],
  results?: readonly (readonly (LegResult | null)[])[],
): void {
  const { legs: _legs, ...rules } = spec;
  market.parlay = {
    ...rules,
    legs: legs.map((leg, i) => ({
      market: leg,
      pickOne: spec.legs[i]!.bettingOutcomeOne,
      results: results?.[i] ? [...results[i]!] : leg.legs === null ? [null] : [null, null],
    })),
  };
  for (const leg of legs) {
    leg.parlays.push(market);
    for (const half of leg.legs ?? []) half.parlays.push(market);
  }
  if (market.status === MarketStatus.OPEN) s.parlayMarkets.push(market);
}

/**
 * Why an order may not go on a parlay market now, or undefined. The quote window is sealed both ways: makers
 * offer only within it, the requester orders only after it (it sees every offer at once when it closes).
 */
export function parlayRefusal(
  parlay: ParlayState,
  c: Pick<PlaceOrderCommand, 'account' | 'isBettingOutcomeOne'>,
  ts: number,
): RejectCode | undefined {
  if (ts >= parlay.takeUntil) return RejectCode.MARKET_CLOSED;
  if (c.account === parlay.requester)
    return quoteWindowOpen(parlay, ts) ? RejectCode.PARLAY_QUOTE_WINDOW_OPEN : undefined;
  if (c.isBettingOutcomeOne) return RejectCode.PARLAY_REQUESTER_ONLY;
  if (ts >= parlay.quoteWindowEndsAt) return RejectCode.PARLAY_QUOTE_WINDOW_CLOSED;
  return undefined;
}

/**
 * Whether a parlay's quote window is still open at `nowMs`: its offers are sealed (no public book shows them,
 * the requester may not order yet).
 */
export function quoteWindowOpen(parlay: { readonly quoteWindowEndsAt: number }, nowMs: number): boolean {
  return nowMs < parlay.quoteWindowEndsAt;
}

/** Closes an open parlay market: its resting offers are cancelled (EVENT_LIFECYCLE). */
export function closeParlay(s: EngineState, market: MarketBook): void {
  if (market.status !== MarketStatus.OPEN) return;
  market.status = MarketStatus.CLOSED;
  const open = s.parlayMarkets.indexOf(market);
  if (open >= 0) s.parlayMarkets.splice(open, 1);
  s.pending[s.eventCount++] = {
    type: 'marketClosed',
    marketHash: market.marketHash,
    eventId: market.eventId,
  };
  cancelInMarket(s, market, undefined, 'EVENT_LIFECYCLE');
}

/** A leg (or a half of one) closing: the parlays on it stop trading. */
export function closeParlaysOf(s: EngineState, leg: MarketBook): void {
  for (const parlay of leg.parlays) closeParlay(s, parlay);
}

/**
 * A leg (or a half of a quarter-line leg) resolved: its result is recorded on every parlay on it, and each
 * parlay this decides is closed and settled (`settle`), in this same command; the others stop trading.
 */
export function followLeg(
  s: EngineState,
  resolved: MarketBook,
  outcome: MarketOutcome,
  settle: (market: MarketBook, outcome: MarketOutcome) => void,
): void {
  for (const market of resolved.parlays) {
    const parlay = market.parlay!;
    if (market.status === MarketStatus.RESOLVED) continue;
    for (const leg of parlay.legs) {
      if (leg.market === resolved) leg.results[0] = legResult(outcome, leg.pickOne);
      else if (leg.market.legs !== null) {
        const half = leg.market.legs.indexOf(resolved);
        if (half >= 0) leg.results[half] = legResult(outcome, leg.pickOne);
      }
    }
    closeParlay(s, market);
    const decided = parlayOutcome(parlay.legs.map(legState));
    if (decided !== null) settle(market, decided);
  }
}

/** A leg's result so far: a quarter-line leg's from its halves. */
export function legState(leg: ParlayLegState): LegResult | null {
  return leg.market.legs === null ? leg.results[0]! : quarterLineResult(leg.results);
}

/** The hashes of open parlay markets whose take window is over at `nowMs`, in the order they were made. */
export function dueParlayCloses(s: EngineState, nowMs: number): string[] {
  const due: string[] = [];
  for (const market of s.parlayMarkets) if (market.parlay!.takeUntil <= nowMs) due.push(market.marketHash);
  return due;
}

/** A parlay market's state as snapshots hold it: its spec and its legs' results so far. */
export type ParlaySnapshot = ParlaySpec & { readonly results: readonly (readonly (LegResult | null)[])[] };

export function parlaySnapshot(parlay: ParlayState): ParlaySnapshot {
  const { legs, ...rules } = parlay;
  return {
    ...rules,
    legs: legs.map((leg) => ({ marketHash: leg.market.marketHash, bettingOutcomeOne: leg.pickOne })),
    results: legs.map((leg) => [...leg.results]),
  };
}

/** Links a restored market to its legs (every market of the snapshot is added first). */
export function restoreParlay(s: EngineState, market: MarketBook, snapshot: ParlaySnapshot): void {
  const { results, ...spec } = snapshot;
  const legs = spec.legs.map((leg) => {
    const m = s.marketByHash.get(leg.marketHash);
    if (m === undefined) throw new TypeError(`parlay ${market.marketHash} names a leg not in the snapshot`);
    return m;
  });
  linkParlay(s, market, spec, legs, results);
}
