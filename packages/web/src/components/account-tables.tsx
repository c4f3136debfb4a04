import type { FillRow, OrderRow, PortfolioRefund, TradeRow } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import {
  type Bet,
  groupBets,
  refundedByMarket,
  refundedByTrade,
  type SettledAmounts,
  settledAmounts,
  settledResult,
  tradeKey,
} from '../lib/bets.js';
import { decimalOdds, impliedProbability, shortHex, tokenAmount } from '../lib/display.js';
import { plainError, plainReason } from '../lib/errors.js';
import { useAuth } from '../lib/hooks.js';
import { useMarketRecords } from '../lib/market-records.js';
import { endedOrders, orderEnding } from '../lib/order-history.js';
import { useEndedOrdersRead, useOrderHistory, useOrderHistoryFeed } from '../lib/order-history-store.js';
import { tradingClient } from '../lib/session.js';
import { RowName } from './row-name.js';
import { ErrorLine } from './section.js';
import { StackTable, TableCard } from './table-card.js';

/**
 * Outcome names the page already knows, by market hash. Kept for callers; rows are named from the market
 * records themselves (read by hash when not known), whatever the page has selected.
 */
export type OutcomeNames = Record<string, [string, string]>;

const odds = (o: string) => `${impliedProbability(BigInt(o))} (${decimalOdds(BigInt(o))})`;
const time = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });

/** Open orders with cancel and cancel-all; each names its market and shows when it expires. */
export function OpenOrders(props: {
  orders: OrderRow[];
  names?: OutcomeNames;
  trades?: TradeRow[];
  onChange: () => void;
}) {
  const auth = useAuth();
  useOrderHistoryFeed(auth.address, props.orders, props.trades);
  const market = useMarketRecords(props.orders.map((o) => o.marketHash));
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
      <StackTable
        columns={['Bet', 'Odds', 'Stake', 'Left', 'Expires', 'State', '']}
        rows={props.orders.length}
        empty="No open orders."
      >
        {props.orders.map((o) => (
          <tr key={o.id} data-testid="order-row" data-order-id={o.id}>
            <td data-label="Bet">
              <RowName
                market={market(o.marketHash)}
                marketHash={o.marketHash}
                isBettingOutcomeOne={o.isBettingOutcomeOne}
              />{' '}
              <code class="muted">{shortHex(o.id)}</code>
            </td>
            <td data-label="Odds">{odds(o.percentageOdds)}</td>
            <td data-label="Stake">{tokenAmount(o.totalBetSize)}</td>
            <td data-label="Left">{tokenAmount(o.remainingSize)}</td>
            <td data-label="Expires" data-testid="order-expiry">
              {time(o.expiry)}
            </td>
            <td data-label="State">{o.status === 'PENDING' ? 'PENDING (betting delay)' : o.status}</td>
            <td>
              <button type="button" onClick={() => cancel(o.id)}>
                Cancel
              </button>
            </td>
          </tr>
        ))}
      </StackTable>
      {note && <p class="muted">{note}</p>}
      <ErrorLine error={error} text={plainError} />
    </div>
  );
}

/**
 * The orders that ended (filled, cancelled, expired, pulled, heartbeat), newest first, with why: those this
 * browser saw end and the newest the exchange lists, read when the table opens.
 */
export function OrderHistoryTable() {
  const auth = useAuth();
  useEndedOrdersRead(auth.address, auth.apiKey);
  const ended = endedOrders(useOrderHistory(auth.address));
  const market = useMarketRecords(ended.map((o) => o.marketHash));
  return (
    <TableCard title={<>Order history ({ended.length})</>} testId="order-history">
      <StackTable
        columns={['Bet', 'Odds', 'Stake', 'Matched', 'Ended', 'How']}
        rows={ended.length}
        empty="No ended orders yet."
      >
        {ended.map((o) => (
          <tr key={o.id} data-testid="history-row" data-order-id={o.id} data-reason={o.inactiveReason ?? ''}>
            <td data-label="Bet">
              <RowName
                market={market(o.marketHash)}
                marketHash={o.marketHash}
                isBettingOutcomeOne={o.isBettingOutcomeOne}
              />
            </td>
            <td data-label="Odds">{odds(o.percentageOdds)}</td>
            <td data-label="Stake">{tokenAmount(o.totalBetSize)}</td>
            <td data-label="Matched">{tokenAmount(o.fillAmount)}</td>
            <td data-label="Ended">{time(o.updatedAt)}</td>
            <td data-label="How" data-testid="history-reason">
              {orderEnding(o, tokenAmount)}
            </td>
          </tr>
        ))}
      </StackTable>
    </TableCard>
  );
}

/** A settled bet or leg's result as it touched the balance. */
function settledText(trade: TradeRow, amounts: SettledAmounts | undefined): string {
  const result = settledResult(trade);
  if (!amounts) return '';
  const fee = BigInt(trade.fee) > 0n ? ` (fee ${tokenAmount(trade.fee)})` : '';
  if (result === 'void') {
    const back =
      amounts.refundedEarlier > 0n ? `, ${tokenAmount(amounts.refundedEarlier)} of it refunded earlier` : '';
    return `Void (push): stake ${tokenAmount(amounts.payout)} back${back}, ${tokenAmount(amounts.credited)} at settlement`;
  }
  if (amounts.refundedEarlier > 0n)
    return `${tokenAmount(amounts.credited)} paid at settlement (${result === 'won' ? 'won' : 'returned'} ${tokenAmount(amounts.payout)}, ${tokenAmount(amounts.refundedEarlier)} of it refunded earlier)${fee}`;
  return `${tokenAmount(amounts.credited)} paid${fee}`;
}

function betCredited(bet: Bet, amounts: Map<string, SettledAmounts>): bigint | null {
  if (bet.status !== 'SETTLED') return null;
  return bet.legs.reduce((s, l) => s + (amounts.get(tradeKey(l))?.credited ?? 0n), 0n);
}

/**
 * The account's bets, one row each (a quarter-line bet with its two legs): status MATCHED -> LOCKED (escrow
 * landed) -> SETTLED. A hedge's refund shows on the bet that made it; a settled bet shows what the
 * resolution credited, apart from what capital efficiency refunded before.
 */
export function TradesTable(props: {
  trades: TradeRow[];
  names?: OutcomeNames;
  fills?: FillRow[];
  refunds?: PortfolioRefund[];
}) {
  const bets = groupBets(props.trades);
  const market = useMarketRecords(bets.flatMap((b) => [b.marketHash, ...b.legs.map((l) => l.marketHash)]));
  const refundsOwn = useRefundsOf(props.refunds === undefined ? props.trades : null);
  const refunded = refundedByMarket(props.refunds ?? refundsOwn);
  const amounts = settledAmounts(props.trades, refunded);
  const byTrade = refundedByTrade(props.fills ?? []);
  return (
    <div class="card" data-testid="trades">
      <h3>Your bets</h3>
      <StackTable
        columns={['Bet', 'Side', 'Odds', 'Stake', 'Status', 'Payout']}
        rows={bets.length}
        empty="No bets yet."
      >
        {bets.map((b) => {
          const refund = b.legs.reduce((s, l) => s + (byTrade.get(tradeKey(l)) ?? 0n), 0n);
          const credited = betCredited(b, amounts);
          return (
            <tr
              key={b.key}
              data-testid="trade-row"
              data-market-hash={b.marketHash}
              data-stake={b.stake.toString()}
              data-credited={credited?.toString() ?? ''}
            >
              <td data-label="Bet">
                <RowName
                  market={market(b.marketHash)}
                  marketHash={b.marketHash}
                  isBettingOutcomeOne={b.isBettingOutcomeOne}
                  isParlay={b.isParlay}
                />
                <span class="muted row-time"> · bet {time(b.createdAt)}</span>
                {b.isQuarterLine && (
                  <ul class="ql-legs" data-testid="ql-legs">
                    {b.legs.map((l) => {
                      const leg = market(l.marketHash);
                      return (
                        <li key={tradeKey(l)} data-testid="ql-leg">
                          {leg
                            ? l.isBettingOutcomeOne
                              ? leg.outcomeOneName
                              : leg.outcomeTwoName
                            : shortHex(l.marketHash)}{' '}
                          <span class="muted">
                            {tokenAmount(l.stake)} ·{' '}
                            {l.settlement
                              ? settledText(l, amounts.get(tradeKey(l)))
                              : `${tokenAmount(l.potentialPayout)} if it wins`}
                          </span>
                        </li>
                      );
                    })}
                  </ul>
                )}
              </td>
              <td data-label="Side">{b.isMaker ? 'maker' : 'taker'}</td>
              <td data-label="Odds">{odds(b.legs[0]!.odds)}</td>
              <td data-label="Stake">{tokenAmount(b.stake)}</td>
              <td data-label="Status">
                <span class={`status status-${b.status.toLowerCase()}`} data-testid="trade-status">
                  {b.status}
                </span>
              </td>
              <td data-label="Payout" data-testid="trade-payout">
                {b.status === 'SETTLED'
                  ? b.isQuarterLine
                    ? `${tokenAmount(credited ?? 0n)} at settlement (both legs)`
                    : settledText(b.legs[0]!, amounts.get(tradeKey(b.legs[0]!)))
                  : `${tokenAmount(b.potentialPayout)} if it wins`}
                {refund > 0n && (
                  <span class="refund-note" data-testid="trade-refund" data-refund={refund.toString()}>
                    {' '}
                    · hedge refunded {tokenAmount(refund)} at once
                  </span>
                )}
              </td>
            </tr>
          );
        })}
      </StackTable>
    </div>
  );
}

/** The account's refunds when the caller has none to give: read again whenever the bets change. */
function useRefundsOf(trades: TradeRow[] | null): PortfolioRefund[] {
  const auth = useAuth();
  const [refunds, setRefunds] = useState<PortfolioRefund[]>([]);
  const key = trades?.map((t) => `${tradeKey(t)}:${t.status}`).join(',') ?? '';
  useEffect(() => {
    if (!trades || !auth.address || !trades.some((t) => t.marketHasRefunds)) return;
    let stopped = false;
    tradingClient()
      .listRefunds({ bettor: auth.address, perPage: 100 })
      .then((r) => !stopped && setRefunds(r.results))
      .catch(() => undefined);
    return () => {
      stopped = true;
    };
  }, [key]);
  return refunds;
}

/** Each match of the account's orders, with what it refunded at once. */
export function FillsTable(props: { fills: FillRow[]; names?: OutcomeNames }) {
  const market = useMarketRecords(
    props.fills.flatMap((f) => [
      f.marketHash,
      ...(f.quarterLineParentMarketHash ? [f.quarterLineParentMarketHash] : []),
    ]),
  );
  return (
    <TableCard title={<>Fills ({props.fills.length})</>} testId="fills">
      <StackTable
        columns={['Bet', 'Side', 'Odds', 'Stake', 'Refunded', 'Status', 'Time']}
        rows={props.fills.length}
        empty="No fills yet."
      >
        {props.fills.map((f) => (
          <tr key={f.id} data-testid="fill-row">
            <td data-label="Bet">
              <RowName
                market={market(f.marketHash)}
                marketHash={f.marketHash}
                isBettingOutcomeOne={f.isBettingOutcomeOne}
              />
              {f.quarterLineParentMarketHash && <span class="muted"> (a leg of a quarter-line bet)</span>}
            </td>
            <td data-label="Side">{f.isMaker ? 'maker' : 'taker'}</td>
            <td data-label="Odds">{odds(f.fillOdds)}</td>
            <td data-label="Stake">{tokenAmount(f.fillAmount)}</td>
            <td data-label="Refunded">{f.ceRefundAmount === '0' ? '-' : tokenAmount(f.ceRefundAmount)}</td>
            <td data-label="Status">
              <span class={`status status-${f.status.toLowerCase()}`}>{f.status}</span>
            </td>
            <td data-label="Time">{time(f.createdAt)}</td>
          </tr>
        ))}
      </StackTable>
    </TableCard>
  );
}
