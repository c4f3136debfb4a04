import type { ParlayDetail, TradeRow } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { decimalOdds, impliedProbability, tokenAmount } from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import { legStatus } from '../lib/parlay.js';
import { tradingClient } from '../lib/session.js';
import { ErrorLine } from './section.js';

/** While a parlay is not settled, its legs are read again this often. */
const LEGS_POLL_MS = 3000;

const LEG_STATUS_TEXT = { open: 'open', won: 'won', lost: 'lost', void: 'void' } as const;

/** The parlay requests of the account's parlay bets, read again while any is unsettled. */
function useParlayDetails(trades: TradeRow[]): { details: Record<string, ParlayDetail>; error: unknown } {
  const [details, setDetails] = useState<Record<string, ParlayDetail>>({});
  const [error, setError] = useState<unknown>();
  const unsettled = [...new Set(trades.filter((t) => t.status !== 'SETTLED').map((t) => t.marketHash))];
  const all = [...new Set(trades.map((t) => t.marketHash))];
  // Read every parlay once, and the unsettled ones on a timer (their legs move as games are graded).
  const key = `${all.join(',')}|${unsettled.join(',')}`;
  useEffect(() => {
    if (all.length === 0) return;
    let stopped = false;
    const load = async (hashes: string[]) => {
      try {
        const read = await Promise.all(hashes.map((h) => tradingClient().getParlay(h)));
        if (!stopped) {
          setDetails((old) => ({ ...old, ...Object.fromEntries(read.map((d) => [d.marketHash, d])) }));
          setError(undefined);
        }
      } catch (e) {
        if (!stopped) setError(e);
      }
    };
    void load(all);
    const timer = unsettled.length > 0 ? setInterval(() => void load(unsettled), LEGS_POLL_MS) : undefined;
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
  return { details, error };
}

function resultText(trade: TradeRow): string {
  if (!trade.settlement) return `${tokenAmount(trade.potentialPayout)} if it wins`;
  const { outcome, payout } = trade.settlement;
  const fee = BigInt(trade.fee) > 0n ? ` (fee ${tokenAmount(trade.fee)})` : '';
  if (outcome === 0) return `Void: ${tokenAmount(payout)} back`;
  const won = (outcome === 1) === trade.isBettingOutcomeOne;
  return won ? `Won: ${tokenAmount(payout)} paid${fee}` : 'Lost';
}

/**
 * The account's parlay bets, each with its legs and how each stands (open, won, lost, void), then the
 * parlay's result: paid net of the parlay fee, lost, or void (every stake back).
 */
export function ParlayBets(props: { trades: TradeRow[] }) {
  const trades = props.trades.filter((t) => t.isParlay);
  const { details, error } = useParlayDetails(trades);
  if (trades.length === 0) return null;
  return (
    <div class="card" data-testid="parlay-bets">
      <h3>Your parlays</h3>
      {trades.map((t) => {
        const detail = details[t.marketHash];
        return (
          <div class="parlay-bet" key={`${t.tradeId}-${t.isMaker}`} data-testid="parlay-bet">
            <p class="parlay-bet-head">
              <strong>{t.isBettingOutcomeOne ? 'Parlay' : 'Against a parlay'}</strong>{' '}
              <span class="muted">
                {tokenAmount(t.stake)} USDC at {impliedProbability(BigInt(t.odds))} (
                {decimalOdds(BigInt(t.odds))})
              </span>{' '}
              <span class={`status status-${t.status.toLowerCase()}`} data-testid="parlay-bet-status">
                {t.status}
              </span>
            </p>
            <ol class="slip-legs">
              {(detail?.legs ?? []).map((leg) => {
                const status = legStatus(leg.market, leg.bettingOutcomeOne);
                return (
                  <li key={leg.marketHash} data-testid="parlay-leg">
                    <span class="slip-pick">
                      {leg.bettingOutcomeOne ? leg.market.outcomeOneName : leg.market.outcomeTwoName}
                    </span>
                    <span class="muted slip-game">
                      {leg.market.teamOneName} – {leg.market.teamTwoName}
                    </span>
                    <span class={`leg-status leg-${status}`} data-testid="parlay-leg-status">
                      {LEG_STATUS_TEXT[status]}
                    </span>
                  </li>
                );
              })}
            </ol>
            <p data-testid="parlay-bet-result">{resultText(t)}</p>
            {BigInt(t.fee) > 0n && (
              <p class="muted" data-testid="parlay-fee">
                Parlay fee {tokenAmount(t.fee)} USDC
              </p>
            )}
          </div>
        );
      })}
      <ErrorLine error={error} text={plainError} />
    </div>
  );
}
