import { type BestOdds, ladderSize, ladderStep, ODDS_SCALE } from '@oddsbook/protocol';
import { roundToLadder } from '../order-builder.js';

/** The outcome a bettor picked on one leg of a parlay. */
export type ParlayLegChoice = { marketHash: string; bettingOutcomeOne: boolean };

/**
 * The implied probability of the outcome a bettor picked on a leg, from the best resting order on each side
 * of the leg's book (`GET /orderbook-v3/best-odds`, maker frame): the best order betting that outcome bids
 * its odds, the best order betting the other asks one minus its odds; the fair price is half way between.
 * With one side only, that side's price; null when the leg's book is empty.
 */
export function legProbability(
  best: Pick<BestOdds, 'outcomeOne' | 'outcomeTwo'>,
  bettingOutcomeOne: boolean,
) {
  const same = bettingOutcomeOne ? best.outcomeOne : best.outcomeTwo;
  const other = bettingOutcomeOne ? best.outcomeTwo : best.outcomeOne;
  const bid = same ? BigInt(same.percentageOdds) : null;
  const ask = other ? ODDS_SCALE - BigInt(other.percentageOdds) : null;
  if (bid !== null && ask !== null) return (bid + ask) / 2n;
  return bid ?? ask;
}

/** The probability that every leg wins, legs taken as independent: their product (percentageOdds scale). */
export function parlayProbability(legs: readonly bigint[]): bigint {
  if (legs.length === 0) throw new RangeError('a parlay has legs');
  return legs.reduce((product, p) => (product * p) / ODDS_SCALE);
}

export type ParlayQuoteInput = {
  /** Each leg's best odds (maker frame) and the outcome the bettor picked on it, in the request's order. */
  legs: readonly {
    best: Pick<BestOdds, 'outcomeOne' | 'outcomeTwo'> | undefined;
    bettingOutcomeOne: boolean;
  }[];
  /** Added to the fair probability of the parlay (percentageOdds scale: 3 % is 3n * 10n ** 18n). */
  margin: bigint;
  /** The most the bettor may stake against this offer (base units). */
  bettorStake: bigint;
  ladderStepSize: number;
};

export type ParlayQuote =
  | {
      ok: true;
      /** Each leg's fair probability, and their product. */
      legProbabilities: bigint[];
      fair: bigint;
      /** What the bettor gets: the fair probability plus the margin, rounded up onto the ladder. */
      bettorOdds: bigint;
      /** The maker's order: outcome two (the parlay loses) at 1 - bettorOdds, this stake. */
      makerOdds: bigint;
      makerStake: bigint;
    }
  | { ok: false; reason: string };

/**
 * A maker's offer on a parlay request: the product of the legs' fair probabilities plus a margin is the
 * probability the bettor pays (rounded up onto the ladder: never a better price than asked), and the maker
 * lays it, betting outcome two at one minus that, with the stake that lets the bettor stake `bettorStake`
 * (a taker stake of s at probability q needs s (1 - q) / q of the maker, rounded up).
 */
export function quoteParlay(input: ParlayQuoteInput): ParlayQuote {
  const probabilities: bigint[] = [];
  for (const [i, leg] of input.legs.entries()) {
    const p = leg.best ? legProbability(leg.best, leg.bettingOutcomeOne) : null;
    if (p === null) return { ok: false, reason: `leg ${i + 1} has nothing on its book to price it from` };
    probabilities.push(p);
  }
  if (input.margin < 0n) return { ok: false, reason: 'the margin is negative' };
  if (input.bettorStake <= 0n) return { ok: false, reason: 'the stake is zero' };
  const fair = parlayProbability(probabilities);
  const bettorOdds = roundToLadder(fair + input.margin, input.ladderStepSize, 'up');
  if (bettorOdds === null) return { ok: false, reason: 'the price with the margin reaches 100 %' };
  const n = BigInt(ladderSize(input.ladderStepSize));
  const k = bettorOdds / ladderStep(input.ladderStepSize);
  const makerStake = (input.bettorStake * (n - k) + k - 1n) / k;
  return {
    ok: true,
    legProbabilities: probabilities,
    fair,
    bettorOdds,
    makerOdds: ODDS_SCALE - bettorOdds,
    makerStake,
  };
}
