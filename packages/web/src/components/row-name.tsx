import type { Market } from '@oddsbook/protocol';
import type { ComponentChildren } from 'preact';
import { nameRow } from '../lib/row-names.js';

const when = (seconds: number) =>
  new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A row's name: the outcome bet on, then its market, game and start time from the market record. */
export function RowName(props: {
  market: Market | undefined;
  marketHash: string;
  isBettingOutcomeOne: boolean;
  isParlay?: boolean;
}) {
  const name = nameRow(props.market, props.isBettingOutcomeOne, {
    isParlay: props.isParlay,
    marketHash: props.marketHash,
  });
  return (
    <span class="row-name" data-testid="row-name">
      <strong class="row-pick">{name.pick}</strong>
      {name.market && (
        <span class="muted row-market">
          {' '}
          {name.market} · {name.game}
          {name.gameTime !== null && ` · ${when(name.gameTime)}`}
        </span>
      )}
    </span>
  );
}

/** A wide table's box: it scrolls sideways inside its card; a `stack` table turns into stacked rows on a phone. */
export function TableBox(props: { children: ComponentChildren }) {
  return <div class="table-box">{props.children}</div>;
}
