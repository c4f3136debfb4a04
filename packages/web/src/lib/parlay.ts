import {
  ladderSize,
  ladderStep,
  type Market,
  type MarketLeg,
  ODDS_SCALE,
  PARLAY_MAX_LEGS,
  PARLAY_MIN_LEGS,
  type ParlayOffer,
  type ParlayRequestResult,
} from '@oddsbook/protocol';
import { readStored, writeStored } from './stored.js';

/** A leg on the slip: a market, the outcome picked, and what the page shows of it. */
export type SlipLeg = {
  marketHash: string;
  eventId: string;
  bettingOutcomeOne: boolean;
  /** "Lakers – Celtics" */
  game: string;
  /** The outcome's name, e.g. "Lakers" or "Over 224.5". */
  pick: string;
};

export function slipLeg(market: Market, outcome: 1 | 2): SlipLeg {
  return {
    marketHash: market.marketHash,
    eventId: market.sportXeventId,
    bettingOutcomeOne: outcome === 1,
    game: `${market.teamOneName} – ${market.teamTwoName}`,
    pick: outcome === 1 ? market.outcomeOneName : market.outcomeTwoName,
  };
}

/**
 * Adds a leg: one leg per game (a second pick of the same game replaces the first), at most 10 legs.
 * Answers the new legs and, when the slip did something else than add, a note saying what.
 */
export function addLeg(legs: readonly SlipLeg[], leg: SlipLeg): { legs: SlipLeg[]; note?: string } {
  const same = legs.findIndex((l) => l.eventId === leg.eventId);
  if (same >= 0) {
    const next = [...legs];
    next[same] = leg;
    return legs[same]!.marketHash === leg.marketHash &&
      legs[same]!.bettingOutcomeOne === leg.bettingOutcomeOne
      ? { legs: next }
      : { legs: next, note: `One leg per game: ${leg.game} is now ${leg.pick}.` };
  }
  if (legs.length >= PARLAY_MAX_LEGS)
    return { legs: [...legs], note: `A parlay has at most ${PARLAY_MAX_LEGS} legs.` };
  return { legs: [...legs, leg] };
}

export function canRequest(legs: readonly SlipLeg[]): boolean {
  return legs.length >= PARLAY_MIN_LEGS && legs.length <= PARLAY_MAX_LEGS;
}

/** An offer as the bettor takes it: the bettor's probability and the most the bettor can stake on it. */
export type BettorOffer = { orderId: string; odds: bigint; size: bigint };

/**
 * The offers a bettor can take (makers betting outcome two: the parlay loses), in the bettor's frame: at
 * 1 - the maker's probability, sizes in bettor stake (maker stake x (1 - p) / p, rounded down, as the
 * exchange's taker book), best price (lowest probability: highest payout) first.
 */
export function bettorOffers(offers: readonly ParlayOffer[], ladderStepSize: number): BettorOffer[] {
  const step = ladderStep(ladderStepSize);
  const n = BigInt(ladderSize(ladderStepSize));
  return offers
    .filter((o) => !o.isMakerBettingOutcomeOne)
    .map((o) => {
      const k = BigInt(o.percentageOdds) / step;
      return {
        orderId: o.orderId,
        odds: ODDS_SCALE - BigInt(o.percentageOdds),
        size: (BigInt(o.remainingSize) * (n - k)) / k,
      };
    })
    .filter((o) => o.size > 0n)
    .sort((a, b) => (a.odds < b.odds ? -1 : a.odds > b.odds ? 1 : 0));
}

export type LegStatus = 'open' | 'won' | 'lost' | 'void';

/** A leg's state for the bettor: open until its market is resolved, then won, lost or void (a push too). */
export function legStatus(market: Pick<MarketLeg, 'outcome'>, bettingOutcomeOne: boolean): LegStatus {
  if (market.outcome === undefined) return 'open';
  if (market.outcome === 0) return 'void';
  return (market.outcome === 1) === bettingOutcomeOne ? 'won' : 'lost';
}

/** Whole seconds from `now` until `until` (ISO), never below 0; rounded up so 0 means it has passed. */
export function secondsLeft(until: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(until) - now) / 1000));
}

/** What a reload keeps of the slip, per account: its legs, and a request whose offers can still be taken. */
export type StoredParlayRequest = { request: ParlayRequestResult; stake: string };

const legsKey = (address: string) => `oddsbook.parlay-legs.${address.toLowerCase()}`;
const requestKey = (address: string) => `oddsbook.parlay-request.${address.toLowerCase()}`;

export function storedLegs(address: string | undefined): SlipLeg[] {
  if (!address) return [];
  const legs = readStored<unknown>(legsKey(address), []);
  return Array.isArray(legs)
    ? legs.filter(
        (l): l is SlipLeg =>
          typeof l?.marketHash === 'string' &&
          typeof l.eventId === 'string' &&
          typeof l.bettingOutcomeOne === 'boolean' &&
          typeof l.game === 'string' &&
          typeof l.pick === 'string',
      )
    : [];
}

export function storeLegs(address: string | undefined, legs: readonly SlipLeg[]): void {
  if (address) writeStored(legsKey(address), legs.length > 0 ? legs : null);
}

/** The account's last request, while its take window is open (`nowMs` before `takeUntil`). */
export function storedRequest(address: string | undefined, nowMs: number): StoredParlayRequest | null {
  if (!address) return null;
  const stored = readStored<StoredParlayRequest | null>(requestKey(address), null);
  const until = Date.parse(stored?.request?.takeUntil ?? '');
  return stored && typeof stored.stake === 'string' && until > nowMs ? stored : null;
}

export function storeRequest(address: string | undefined, stored: StoredParlayRequest | null): void {
  if (address) writeStored(requestKey(address), stored);
}
