import type { Market } from '@oddsbook/protocol';
import { shortHex } from './display.js';

/** What a bet, fill or order row says about its market, read from the market record. */
export type RowName = {
  /** The outcome bet on: "Over 2.5", "Lakers -0.75", "Parlay". */
  pick: string;
  /** The market's kind and line: "Moneyline", "Total 2.5", "Handicap -0.75 (quarter line)". */
  market: string;
  /** The game: "Lakers – Celtics" (empty while the record is not known). */
  game: string;
  /** The game's start, unix seconds; null while the record is not known. */
  gameTime: number | null;
};

const KIND_BY_TYPE: Record<number, string> = {
  1: 'Moneyline (1X2)',
  52: 'Moneyline',
  88: 'To qualify',
  226: 'Moneyline',
  3: 'Handicap',
  201: 'Handicap (games)',
  342: 'Handicap',
  2: 'Total',
  835: 'Total',
  28: 'Total',
};

/** The market's kind and line in words: "Total 2.5", "Handicap -0.75 (quarter line)". */
export function marketKind(market: Pick<Market, 'type' | 'line' | 'isQuarterLineMarket'>): string {
  const kind = KIND_BY_TYPE[market.type] ?? `Market type ${market.type}`;
  const line =
    market.line === null ? '' : ` ${market.line > 0 && kind.startsWith('Handicap') ? '+' : ''}${market.line}`;
  return `${kind}${line}${market.isQuarterLineMarket ? ' (quarter line)' : ''}`;
}

/**
 * Names a row by its market record: the outcome, the market, the game and its time. A parlay row names its
 * side; a market whose record is not (yet) known keeps its hash, never a bare "outcome 1".
 */
export function nameRow(
  market: Market | undefined,
  isBettingOutcomeOne: boolean,
  options: { isParlay?: boolean; marketHash?: string } = {},
): RowName {
  if (options.isParlay || market?.legs) {
    const legs = market?.legs;
    return {
      pick: isBettingOutcomeOne ? 'Parlay' : 'Against a parlay',
      market: legs ? `Parlay of ${legs.length} legs` : 'Parlay',
      game: legs ? legs.map((l) => `${l.teamOneName} – ${l.teamTwoName}`).join(', ') : '',
      gameTime: legs && legs.length > 0 ? Math.min(...legs.map((l) => l.gameTime)) : null,
    };
  }
  if (!market) {
    const hash = options.marketHash ? ` of market ${shortHex(options.marketHash)}` : '';
    return {
      pick: `${isBettingOutcomeOne ? 'Outcome one' : 'Outcome two'}${hash}`,
      market: '',
      game: '',
      gameTime: null,
    };
  }
  return {
    pick: isBettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName,
    market: marketKind(market),
    game: `${market.teamOneName} – ${market.teamTwoName}`,
    gameTime: market.gameTime,
  };
}
