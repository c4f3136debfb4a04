/**
 * What a parlay market is outside the engine (docs/parlays.md): its hash (from its legs and a request id),
 * its event id (which carries its fee rate, so that a trade row shows its fee from the row alone), and the
 * market record it shows as (a market of no fixture: a synthetic one made from its legs').
 */
import { encodeAbiParameters, keccak256 } from 'viem';
import type { MarketView as EngineMarketView, MarketOutcome, ParlaySnapshot } from '../engine/index.js';
import type { MarketView } from '../store/repositories.js';

export type ParlayView = ParlaySnapshot & { readonly outcome: MarketOutcome | null };

/** The market type id a parlay market shows with: no catalog market type has it. */
export const PARLAY_MARKET_TYPE = 0;

/** A request's market hash: keccak-256 of the request id and its legs (hash and pick, in order). */
export function parlayMarketHash(
  requestId: string,
  legs: readonly { marketHash: string; bettingOutcomeOne: boolean }[],
): `0x${string}` {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'string' }, { type: 'bytes32[]' }, { type: 'bool[]' }],
      [
        'oddsbook parlay',
        requestId,
        legs.map((l) => l.marketHash as `0x${string}`),
        legs.map((l) => l.bettingOutcomeOne),
      ],
    ),
  );
}

/** QUOTING, TAKING, CLOSED or SETTLED at `now` (ms). */
export function parlayState(market: EngineMarketView, now: number) {
  const parlay = market.parlay!;
  if (market.status === 'resolved') return 'SETTLED' as const;
  if (market.status === 'closed' || now >= parlay.takeUntil) return 'CLOSED' as const;
  return now < parlay.quoteWindowEndsAt ? ('QUOTING' as const) : ('TAKING' as const);
}

/**
 * The market record of a parlay market: ACTIVE until its take window ends (the engine refuses orders after
 * it whatever this says), its minimum stake the largest of its legs', its fixture made up from its legs'
 * (the latest game time; sport and league of the first leg).
 */
export function parlayMarketView(
  market: EngineMarketView,
  legs: readonly MarketView[],
  now: number,
): MarketView {
  const parlay = market.parlay!;
  const first = legs[0]!.fixture;
  const state = parlayState(market, now);
  const requestedAt = Math.floor(parlay.requestedAt / 1000) * 1000;
  const gameTime = Math.max(...legs.map((l) => l.fixture.gameTime));
  return {
    marketHash: market.marketHash as `0x${string}`,
    eventId: market.eventId,
    type: PARLAY_MARKET_TYPE,
    line: null,
    outcomeOneName: `All ${legs.length} legs win`,
    outcomeTwoName: 'Not all legs win',
    outcomeVoidName: 'A leg void or pushed and none lost',
    mainLine: false,
    liveEnabled: true,
    bettingDelayMs: null,
    minBetSize: legs.reduce((most, l) => (l.minBetSize > most ? l.minBetSize : most), 0n),
    status: state === 'QUOTING' || state === 'TAKING' ? 'ACTIVE' : 'INACTIVE',
    outcome: parlay.outcome,
    reportedDate: null,
    quarterLineLegs: null,
    createdAt: requestedAt,
    updatedAt: requestedAt,
    fixture: {
      eventId: market.eventId,
      leagueId: first.leagueId,
      teamOneId: 0,
      teamTwoId: 0,
      gameTime,
      // Not started: a parlay market is betted before its legs' games, with no betting delay.
      status: 1,
      createdAt: requestedAt,
      updatedAt: requestedAt,
      teamOneName: 'Parlay',
      teamTwoName: `${legs.length} legs`,
      leagueLabel: first.leagueLabel,
      leagueLiveDelayMs: null,
      sportId: first.sportId,
      sportLabel: first.sportLabel,
    },
    parlayLegs: legs,
  };
}
