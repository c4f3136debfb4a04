import type { FillRow, OrderRow, TradeRow } from '@oddsbook/protocol';
import { useState } from 'preact/hooks';
import { decimalOdds, impliedProbability, shortHex, tokenAmount } from '../lib/display.js';
import { plainError, plainReason } from '../lib/errors.js';
import { tradingClient } from '../lib/session.js';
import { ErrorLine } from './section.js';

/** Outcome names of the markets the page knows (by market hash); others show as outcome 1 / outcome 2. */
export type OutcomeNames = Record<string, [string, string]>;

const outcomeName = (names: OutcomeNames, marketHash: string, isOne: boolean) =>
  names[marketHash]?.[isOne ? 0 : 1] ?? (isOne ? 'outcome 1' : 'outcome 2');
const odds = (o: string) => `${impliedProbability(BigInt(o))} (${decimalOdds(BigInt(o))})`;

/** Open orders with cancel and cancel-all. */
export function OpenOrders(props: { orders: OrderRow[]; names: OutcomeNames; onChange: () => void }) {
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState<string>();
  const act = async (action: () => Promise<string>) => {
    setError(undefined);
    try {
      setNote(await action());
      props.onChange();
    } catch (e) {
      setError(e);
    }
  };
  const cancel = (id: string) =>
    act(async () => {
      const r = await tradingClient().cancelOrders([id]);
      return r.cancelled.length ? 'Cancelled.' : `Not cancelled: ${plainReason(r.notCancelled[0]?.reason)}`;
    });
  const cancelAll = () =>
    act(async () => {
      await tradingClient().cancelAll();
      return 'All open orders are being cancelled.';
    });
  return (
    <div class="card" data-testid="open-orders">
      <h3>
        Open orders{' '}
        <button type="button" disabled={props.orders.length === 0} onClick={cancelAll}>
          Cancel all
        </button>
      </h3>
      <table>
        <thead>
          <tr>
            <th>Order</th>
            <th>Bet</th>
            <th>Odds</th>
            <th>Stake</th>
            <th>Left</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.orders.map((o) => (
            <tr key={o.id} data-testid="order-row">
              <td>
                <code>{shortHex(o.id)}</code>
              </td>
              <td>{outcomeName(props.names, o.marketHash, o.isBettingOutcomeOne)}</td>
              <td>{odds(o.percentageOdds)}</td>
              <td>{tokenAmount(o.totalBetSize)}</td>
              <td>{tokenAmount(o.remainingSize)}</td>
              <td>{o.status}</td>
              <td>
                <button type="button" onClick={() => cancel(o.id)}>
                  Cancel
                </button>
              </td>
            </tr>
          ))}
          {props.orders.length === 0 && (
            <tr>
              <td colSpan={7} class="muted">
                No open orders.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {note && <p class="muted">{note}</p>}
      <ErrorLine error={error} text={plainError} />
    </div>
  );
}

/** The account's bets: status MATCHED -> LOCKED (escrow landed) -> SETTLED, with payouts. */
export function TradesTable(props: { trades: TradeRow[]; names: OutcomeNames }) {
  return (
    <div class="card" data-testid="trades">
      <h3>Your bets</h3>
      <table>
        <thead>
          <tr>
            <th>Bet</th>
            <th>Side</th>
            <th>Odds</th>
            <th>Stake</th>
            <th>Status</th>
            <th>Payout</th>
          </tr>
        </thead>
        <tbody>
          {props.trades.map((t) => (
            <tr key={`${t.tradeId}-${t.isMaker}`} data-testid="trade-row">
              <td>
                {t.isParlay
                  ? t.isBettingOutcomeOne
                    ? 'Parlay'
                    : 'Against a parlay'
                  : outcomeName(props.names, t.marketHash, t.isBettingOutcomeOne)}
              </td>
              <td>{t.isMaker ? 'maker' : 'taker'}</td>
              <td>{odds(t.odds)}</td>
              <td>{tokenAmount(t.stake)}</td>
              <td>
                <span class={`status status-${t.status.toLowerCase()}`} data-testid="trade-status">
                  {t.status}
                </span>
              </td>
              <td data-testid="trade-payout">
                {t.settlement
                  ? `${tokenAmount(t.settlement.payout)} paid${BigInt(t.fee) > 0n ? ` (fee ${tokenAmount(t.fee)})` : ''}`
                  : `${tokenAmount(t.potentialPayout)} if it wins`}
              </td>
            </tr>
          ))}
          {props.trades.length === 0 && (
            <tr>
              <td colSpan={6} class="muted">
                No bets yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Each match of the account's orders. */
export function FillsTable(props: { fills: FillRow[]; names: OutcomeNames }) {
  return (
    <div class="card" data-testid="fills">
      <h3>Fills</h3>
      <table>
        <thead>
          <tr>
            <th>Match</th>
            <th>Bet</th>
            <th>Side</th>
            <th>Odds</th>
            <th>Stake</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {props.fills.map((f) => (
            <tr key={f.id} data-testid="fill-row">
              <td>{f.matchId}</td>
              <td>{outcomeName(props.names, f.marketHash, f.isBettingOutcomeOne)}</td>
              <td>{f.isMaker ? 'maker' : 'taker'}</td>
              <td>{odds(f.fillOdds)}</td>
              <td>{tokenAmount(f.fillAmount)}</td>
              <td>
                <span class={`status status-${f.status.toLowerCase()}`}>{f.status}</span>
              </td>
            </tr>
          ))}
          {props.fills.length === 0 && (
            <tr>
              <td colSpan={6} class="muted">
                No fills yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
