import type { BalanceRow, PortfolioRefund, PositionRow, TradeRow } from '@oddsbook/protocol';
import { refundedByMarket } from '../lib/bets.js';
import { tokenAmount } from '../lib/display.js';
import { useMarketRecords } from '../lib/market-records.js';
import { positionOutlook, settledPositions, signedAmount } from '../lib/positions.js';
import { refundEvents, totalRefunded } from '../lib/refunds.js';
import { RowName } from './row-name.js';
import { StackTable, TableCard } from './table-card.js';

const time = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });

/** A market's name in a position row: its game and market kind, not a side. */
function MarketName(props: { hash: string; market: ReturnType<ReturnType<typeof useMarketRecords>> }) {
  const m = props.market;
  return m ? (
    <span class="row-name">
      <strong>
        {m.teamOneName} – {m.teamTwoName}
      </strong>{' '}
      <span class="muted">
        {m.outcomeOneName} / {m.outcomeTwoName}
      </span>
    </span>
  ) : (
    <RowName market={undefined} marketHash={props.hash} isBettingOutcomeOne />
  );
}

/**
 * Positions per market: open ones from `/positions-v3` (stake per outcome, guaranteed receipt, refunded,
 * max loss, what each result pays) and settled ones from the bets (staked, refunded before, paid at
 * settlement, profit or loss).
 */
export function PositionsCard(props: {
  positions: PositionRow[];
  trades: TradeRow[];
  refunds: PortfolioRefund[];
}) {
  const settled = settledPositions(props.trades, refundedByMarket(props.refunds));
  const market = useMarketRecords([
    ...props.positions.map((p) => p.marketHash),
    ...settled.map((s) => s.marketHash),
  ]);
  return (
    <TableCard title="Positions" testId="positions" heading="h2">
      <h3>Open</h3>
      <StackTable
        columns={['Market', 'Stake on each', 'Pays if each wins', 'Guaranteed', 'Refunded', 'Max loss']}
        rows={props.positions.length}
        empty="No open positions."
      >
        {props.positions.map((p) => {
          const m = market(p.marketHash);
          const out = positionOutlook(p);
          const [one, two] = m ? [m.outcomeOneName, m.outcomeTwoName] : ['outcome one', 'outcome two'];
          return (
            <tr key={p.marketHash} data-testid="position-row" data-market-hash={p.marketHash}>
              <td data-label="Market">
                <MarketName hash={p.marketHash} market={m} />
              </td>
              <td data-label="Stake on each">
                {one} {tokenAmount(p.outcomeOne.stake)} · {two} {tokenAmount(p.outcomeTwo.stake)}
              </td>
              <td data-label="Pays if each wins">
                {one} {tokenAmount(p.outcomeOne.potentialPayout)} ({signedAmount(out.ifOne)}) · {two}{' '}
                {tokenAmount(p.outcomeTwo.potentialPayout)} ({signedAmount(out.ifTwo)})
              </td>
              <td data-label="Guaranteed" data-testid="position-guaranteed">
                {tokenAmount(p.guaranteedReceipt)}
              </td>
              <td data-label="Refunded" data-testid="position-refunded">
                {tokenAmount(p.refunded)}
              </td>
              <td data-label="Max loss" data-testid="position-max-loss">
                {tokenAmount(p.maxLoss)}
              </td>
            </tr>
          );
        })}
      </StackTable>
      {settled.length > 0 && (
        <>
          <h3>Settled</h3>
          <StackTable
            columns={['Market', 'Result', 'Staked', 'Refunded before', 'Paid at settlement', 'Profit / loss']}
            rows={settled.length}
          >
            {settled.map((s) => {
              const m = market(s.marketHash);
              const result =
                s.outcome === 0
                  ? 'void'
                  : m
                    ? s.outcome === 1
                      ? m.outcomeOneName
                      : m.outcomeTwoName
                    : `outcome ${s.outcome}`;
              return (
                <tr
                  key={s.marketHash}
                  data-testid="settled-row"
                  data-market-hash={s.marketHash}
                  data-profit={s.profit.toString()}
                >
                  <td data-label="Market">
                    <MarketName hash={s.marketHash} market={m} />
                  </td>
                  <td data-label="Result">{result}</td>
                  <td data-label="Staked">{tokenAmount(s.staked)}</td>
                  <td data-label="Refunded before">{tokenAmount(s.refunded)}</td>
                  <td data-label="Paid at settlement" data-testid="settled-paid">
                    {tokenAmount(s.paidAtSettlement)}
                  </td>
                  <td data-label="Profit / loss" data-testid="settled-profit">
                    {signedAmount(s.profit)}
                  </td>
                </tr>
              );
            })}
          </StackTable>
        </>
      )}
    </TableCard>
  );
}

/** Capital-efficiency refunds: what came back at once when a bet hedged another, newest first. */
export function RefundsCard(props: { refunds: PortfolioRefund[] }) {
  const events = refundEvents(props.refunds);
  const market = useMarketRecords(props.refunds.map((r) => r.marketHash));
  return (
    <TableCard
      title={<>Refunds ({tokenAmount(totalRefunded(props.refunds))} USDC)</>}
      testId="refunds"
      heading="h2"
    >
      <p class="muted">
        When a bet hedges what you already hold in a market, the part you are sure to collect comes back to
        your available balance at once, not at settlement; settlement then pays only the rest.
      </p>
      <StackTable columns={['Market', 'Refunded', 'As', 'Time']} rows={events.length} empty="No refunds yet.">
        {events.map((e) => (
          <tr key={`${e.fillOrderHash}-${e.createdAt}`} data-testid="refund-row" data-amount={e.amount}>
            <td data-label="Market">
              <MarketName hash={e.marketHash} market={market(e.marketHash)} />
            </td>
            <td data-label="Refunded">{tokenAmount(e.amount)} USDC</td>
            <td data-label="As">{e.maker ? 'maker' : 'taker'}</td>
            <td data-label="Time">{time(e.createdAt)}</td>
          </tr>
        ))}
      </StackTable>
    </TableCard>
  );
}

/** Available, escrowed and exposure side by side, with the refunds and what open positions can still lose. */
export function MoneyFigures(props: {
  balance: BalanceRow;
  positions: PositionRow[];
  refunds: PortfolioRefund[];
}) {
  const b = props.balance;
  const maxLoss = props.positions.reduce((s, p) => s + BigInt(p.maxLoss), 0n);
  return (
    <dl class="figures money">
      <dt>Available</dt>
      <dd data-testid="available" data-units={b.availableAmount}>
        {tokenAmount(b.availableAmount)} USDC
      </dd>
      <dt>In escrow (matched bets)</dt>
      <dd data-testid="escrowed" data-units={b.escrowedAmount}>
        {tokenAmount(b.escrowedAmount)} USDC
      </dd>
      <dt>Promised by open orders (part of available)</dt>
      <dd data-testid="exposure">{tokenAmount(b.exposureAmount)} USDC</dd>
      <dt>Open positions can still lose</dt>
      <dd data-testid="max-loss">{tokenAmount(maxLoss)} USDC</dd>
      <dt>Refunded by hedges so far (in available)</dt>
      <dd data-testid="refunded-total">{tokenAmount(totalRefunded(props.refunds))} USDC</dd>
      {b.owedAmount !== '0' && (
        <>
          <dt>Owed (a bet whose settlement failed; paid back from what comes in next)</dt>
          <dd data-testid="owed">{tokenAmount(b.owedAmount)} USDC</dd>
        </>
      )}
    </dl>
  );
}
