import type { MarketView } from '../store/repositories.js';
import { liveDelayMs, PREGAME_DELAY_MS_DEFAULT } from './betting-delay.js';
import { isActiveFixtureStatus, isLiveFixtureStatus, TRADING_FIXTURE_STATUSES } from './fixture-status.js';

export type MarketClosedReason =
  /** Resolved or deactivated, or its fixture finished, cancelled or postponed. */
  | 'MARKET_INACTIVE'
  /** The fixture is interrupted, abandoned or lost coverage: listed, but not trading. */
  | 'FIXTURE_SUSPENDED'
  /** The fixture is in play and the market is not live-enabled. */
  | 'LIVE_DISABLED';

/** What the order path needs to admit an order on a market. */
export type MarketTradingState = {
  market: MarketView;
  open: boolean;
  closedReason: MarketClosedReason | null;
  /** The fixture is in play (status 2). */
  live: boolean;
  /** The delay a taker order waits before matching, for the current phase. */
  bettingDelayMs: number;
  /** The delay that applies once the fixture is in play (equal to `bettingDelayMs` when live). */
  liveDelayMs: number;
  minBetSize: bigint;
};

/** Listed as ACTIVE: the market itself is active and its fixture is in one of the active statuses. */
export const isMarketActive = (market: MarketView): boolean =>
  market.status === 'ACTIVE' && isActiveFixtureStatus(market.fixture.status);

/**
 * Pregame markets use the pregame default. In play, the precedence of betting-delay.ts applies: the
 * market's own delay, then its league's, then its sport's, then the live default.
 */
export function effectiveBettingDelayMs(market: MarketView): number {
  return isLiveFixtureStatus(market.fixture.status) ? marketLiveDelayMs(market) : PREGAME_DELAY_MS_DEFAULT;
}

export function marketLiveDelayMs(market: MarketView): number {
  return liveDelayMs({
    marketDelayMs: market.bettingDelayMs,
    leagueDelayMs: market.fixture.leagueLiveDelayMs,
    sportId: market.fixture.sportId,
  });
}

export function marketTradingState(market: MarketView): MarketTradingState {
  const live = isLiveFixtureStatus(market.fixture.status);
  let closedReason: MarketClosedReason | null = null;
  if (!isMarketActive(market)) closedReason = 'MARKET_INACTIVE';
  else if (!(TRADING_FIXTURE_STATUSES as readonly number[]).includes(market.fixture.status))
    closedReason = 'FIXTURE_SUSPENDED';
  else if (live && !market.liveEnabled) closedReason = 'LIVE_DISABLED';
  return {
    market,
    open: closedReason === null,
    closedReason,
    live,
    bettingDelayMs: effectiveBettingDelayMs(market),
    liveDelayMs: marketLiveDelayMs(market),
    minBetSize: market.minBetSize,
  };
}
