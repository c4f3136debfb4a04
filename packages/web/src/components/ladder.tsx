import type { BookSnapshot } from '@oddsbook/protocol';
import { invertOdds } from '@oddsbook/protocol';
import { type BookSide, bookInFrame, type Frame } from '../lib/book.js';
import { allOddsFormats, formatOdds, ODDS_FORMATS, type OddsFormat, tokenAmount } from '../lib/display.js';

/** What clicking a level offers: bet `outcome` at `odds` (own frame) for up to `size` (own stake). */
export type TakeOffer = { outcome: 1 | 2; odds: bigint; size: bigint };

const LEVELS_SHOWN = 8;

/**
 * The two-sided ladder. Taker frame (default): each column is what you can bet on that outcome now,
 * at your odds and your stake. Maker frame: the resting orders betting each outcome, as placed.
 */
export function Ladder(props: {
  book: BookSnapshot;
  outcomeNames: [string, string];
  frame: Frame;
  ladderStepSize: number;
  format: OddsFormat;
  /** A resolved or closed market: levels are shown, not offered. */
  closed?: boolean;
  onTake: (offer: TakeOffer) => void;
}) {
  const view = bookInFrame(props.book, props.frame, props.ladderStepSize);
  const take = (column: 1 | 2, level: BookSide[number]) => {
    if (props.closed) return;
    if (props.frame === 'taker')
      props.onTake({ outcome: column, odds: level.percentageOdds, size: level.size });
    // A maker-frame level is taken by betting the other outcome at the complementary odds.
    else
      props.onTake({
        outcome: column === 1 ? 2 : 1,
        odds: invertOdds(level.percentageOdds),
        size: (level.size * invertOdds(level.percentageOdds)) / level.percentageOdds,
      });
  };
  return (
    <div class={`ladder ${props.closed ? 'closed' : ''}`} data-testid="ladder">
      {([1, 2] as const).map((column) => {
        const side = column === 1 ? view.outcomeOne : view.outcomeTwo;
        return (
          <div class="ladder-side" key={column}>
            <h3>
              {props.frame === 'taker' ? 'Bet ' : 'Orders on '}
              {props.outcomeNames[column - 1]}
            </h3>
            <table>
              <thead>
                <tr>
                  <th>{ODDS_FORMATS.find((f) => f.format === props.format)!.label}</th>
                  <th>{props.frame === 'taker' ? 'Up to (your stake)' : 'Size (maker stake)'}</th>
                </tr>
              </thead>
              <tbody>
                {side.slice(0, LEVELS_SHOWN).map((level) => (
                  <tr
                    key={level.percentageOdds.toString()}
                    class="level"
                    data-testid={`level-${column}`}
                    title={`${props.closed ? '' : 'Take: '}${allOddsFormats(level.percentageOdds)}`}
                    onClick={() => take(column, level)}
                  >
                    <td>{formatOdds(level.percentageOdds, props.format)}</td>
                    <td>{tokenAmount(level.size)}</td>
                  </tr>
                ))}
                {side.length === 0 && (
                  <tr>
                    <td colSpan={2} class="muted">
                      Nothing offered
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        );
      })}
    </div>
  );
}
