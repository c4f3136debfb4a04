/**
 * In-play betting delays: a taker order on a live market waits this long before it matches.
 * Precedence: the market's own delay, then its league's, then its sport's, then the live default.
 * Figures follow the production counterpart of this API (research anchors §1.9).
 */
export const PREGAME_DELAY_MS_DEFAULT = 0;
export const LIVE_DELAY_MS_DEFAULT = 8_000;

/** Live delay per standard sport id (see sports.ts). */
export const SPORT_LIVE_DELAY_MS: Readonly<Record<number, number>> = {
  1: 8_000, // Basketball
  2: 8_000, // Hockey
  3: 8_000, // Baseball
  5: 10_000, // Soccer
  6: 5_000, // Tennis
  7: 6_000, // MMA
  8: 8_000, // Football
  15: 8_000, // Cricket
};

export function liveDelayMs(options: {
  marketDelayMs: number | null;
  leagueDelayMs: number | null;
  sportId: number;
}): number {
  return (
    options.marketDelayMs ??
    options.leagueDelayMs ??
    SPORT_LIVE_DELAY_MS[options.sportId] ??
    LIVE_DELAY_MS_DEFAULT
  );
}
