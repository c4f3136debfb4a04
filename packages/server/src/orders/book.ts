import type { BookSnapshot } from '@oddsbook/protocol';
import { invertOdds } from '@oddsbook/protocol';
import type { BookLevels, LevelView } from '../engine/index.js';

export const levelToWire = (level: { percentageOdds: bigint; size: bigint }) => ({
  percentageOdds: level.percentageOdds.toString(),
  size: level.size.toString(),
});

/** Book versions are zero-padded so they compare as strings too. */
export const versionToWire = (version: number) => version.toString().padStart(20, '0');

/**
 * A level as a taker sees it: a taker on the other outcome gets 1 - the maker's probability, and can
 * stake up to the maker size x (1 - p) / p (rounded down, never more than the book holds).
 */
function takerLevel(level: LevelView, ladderSize: number) {
  const k = BigInt(level.tick);
  return {
    percentageOdds: invertOdds(level.percentageOdds).toString(),
    size: ((level.size * (BigInt(ladderSize) - k)) / k).toString(),
  };
}

/**
 * `GET /orderbook-v3/snapshot`. In the maker frame each side lists the resting orders betting that
 * outcome, best (highest probability) first, sizes in maker stake. With `showTakerPerspective`, each side
 * lists what a taker betting that outcome can take: the other side's levels with inverted odds and
 * taker-stake sizes, best (lowest probability, highest payout) first.
 */
export function bookToWire(
  levels: BookLevels,
  options: { takerPerspective: boolean; ladderSize: number },
): BookSnapshot {
  const base = {
    marketHash: levels.marketHash,
    eventId: levels.eventId,
    version: versionToWire(levels.version),
  };
  if (!options.takerPerspective) {
    return {
      ...base,
      outcomeOne: levels.outcomeOne.map(levelToWire),
      outcomeTwo: levels.outcomeTwo.map(levelToWire),
    };
  }
  return {
    ...base,
    outcomeOne: levels.outcomeTwo.map((l) => takerLevel(l, options.ladderSize)),
    outcomeTwo: levels.outcomeOne.map((l) => takerLevel(l, options.ladderSize)),
  };
}
