import { type BookSnapshot, invertOdds, ladderSize, ladderStep } from '@oddsbook/protocol';

export type Level = { percentageOdds: bigint; size: bigint };
/** One column of the ladder: what can be bet on one outcome, best first. */
export type BookSide = Level[];
export type Frame = 'taker' | 'maker';

const levels = (wire: BookSnapshot['outcomeOne']): Level[] =>
  wire.map((l) => ({ percentageOdds: BigInt(l.percentageOdds), size: BigInt(l.size) }));

/**
 * The maker-frame book (what the snapshot and the channel publish) in the frame the page shows.
 * Maker frame: each outcome lists the resting orders betting it, sizes in maker stake. Taker frame
 * (the default): each outcome lists what a taker betting it can take, the other side's levels at
 * 1 - the maker's probability, sizes in taker stake (maker size x (1 - p) / p, rounded down), as the
 * exchange's own `showTakerPerspective` computes it.
 */
export function bookInFrame(
  book: Pick<BookSnapshot, 'outcomeOne' | 'outcomeTwo'>,
  frame: Frame,
  ladderStepSize: number,
): { outcomeOne: BookSide; outcomeTwo: BookSide } {
  const one = levels(book.outcomeOne);
  const two = levels(book.outcomeTwo);
  if (frame === 'maker') return { outcomeOne: one, outcomeTwo: two };
  const step = ladderStep(ladderStepSize);
  const n = BigInt(ladderSize(ladderStepSize));
  const asTaker = (l: Level): Level => {
    const k = l.percentageOdds / step;
    return { percentageOdds: invertOdds(l.percentageOdds), size: (l.size * (n - k)) / k };
  };
  return { outcomeOne: two.map(asTaker), outcomeTwo: one.map(asTaker) };
}

/** Whether `next` replaces `current`: versions are zero-padded strings, newer compares greater. */
export function isNewerBook(current: { version: string } | null, next: { version: string }): boolean {
  return current === null || next.version > current.version;
}
