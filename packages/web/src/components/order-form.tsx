import type { TimeInForce } from '@oddsbook/client';
import type { CreateOrderResult } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { decimalOdds, tokenAmount } from '../lib/display.js';
import { plainError, plainReason } from '../lib/errors.js';
import { parsePercentOdds, parseStake, percentText, potentialReturn } from '../lib/order-input.js';
import { tradingClient } from '../lib/session.js';
import { injectedProvider } from '../lib/wallet.js';
import type { TakeOffer } from './ladder.js';
import { ErrorLine } from './section.js';

/** Orders live an hour unless filled or cancelled. */
const EXPIRY_SECONDS = 3600;

/** A bet: outcome, odds (your probability), stake, time in force; signed with EIP-712 in the wallet. */
export function OrderForm(props: {
  marketHash: string;
  outcomeNames: [string, string];
  ladderStepSize: number;
  offer: TakeOffer | null;
  onPlaced: () => void;
}) {
  const [outcome, setOutcome] = useState<1 | 2>(1);
  const [percent, setPercent] = useState('50');
  const [stake, setStake] = useState('10');
  const [tif, setTif] = useState<TimeInForce>('GTC');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    if (!props.offer) return;
    setOutcome(props.offer.outcome);
    setPercent(percentText(props.offer.odds));
    setStake(tokenAmount(props.offer.size));
    setTif('IOC');
    setResult(undefined);
  }, [props.offer]);

  let preview = '';
  try {
    const odds = parsePercentOdds(percent, props.ladderStepSize);
    const amount = parseStake(stake);
    preview = `Decimal odds ${decimalOdds(odds)}; returns ${tokenAmount(potentialReturn(amount, odds))} USDC if ${props.outcomeNames[outcome - 1]} wins.`;
  } catch {
    preview = '';
  }

  const place = async () => {
    setError(undefined);
    setResult(undefined);
    setBusy(true);
    try {
      const odds = parsePercentOdds(percent, props.ladderStepSize);
      const totalBetSize = parseStake(stake);
      const provider = injectedProvider();
      if (!provider) throw new Error('No wallet found to sign the order.');
      const [placed] = await tradingClient(provider).placeOrders(
        [
          {
            marketHash: props.marketHash,
            percentageOdds: odds,
            totalBetSize,
            isMakerBettingOutcomeOne: outcome === 1,
            timeInForce: tif,
            expiry: Math.floor(Date.now() / 1000) + EXPIRY_SECONDS,
          },
        ],
        { waitForOutcome: true },
      );
      setResult(describeResult(placed!));
      props.onPlaced();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="order-form"
      data-testid="order-form"
      onSubmit={(e) => {
        e.preventDefault();
        void place();
      }}
    >
      <h3>Place a bet</h3>
      <div class="row">
        {([1, 2] as const).map((o) => (
          <label key={o} class="radio">
            <input type="radio" name="outcome" checked={outcome === o} onChange={() => setOutcome(o)} />
            {props.outcomeNames[o - 1]}
          </label>
        ))}
      </div>
      <label>
        Probability (%)
        <input
          aria-label="Probability"
          value={percent}
          onInput={(e) => setPercent((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Stake (USDC)
        <input
          aria-label="Stake"
          value={stake}
          onInput={(e) => setStake((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Time in force
        <select
          aria-label="Time in force"
          value={tif}
          onChange={(e) => setTif((e.target as HTMLSelectElement).value as TimeInForce)}
        >
          <option value="GTC">GTC: rest on the book until filled or cancelled</option>
          <option value="IOC">IOC: take what matches now, cancel the rest</option>
          <option value="FOK">FOK: fill all now or nothing</option>
        </select>
      </label>
      {preview && <p class="muted">{preview}</p>}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Sign in your wallet…' : 'Place bet'}
      </button>
      {result && (
        <p class="result" data-testid="order-result">
          {result}
        </p>
      )}
      <ErrorLine error={error} text={plainError} />
    </form>
  );
}

/** What became of a posted order, in plain words. */
export function describeResult(r: CreateOrderResult): string {
  if (r.status === 'FAILED') return `Refused: ${plainReason(r.reason)}`;
  const outcome = r.outcome;
  if (!outcome) return 'Submitted: waiting for the in-play betting delay.';
  const filled = tokenAmount(outcome.fillAmount);
  switch (outcome.state) {
    case 'RESTED':
      return 'Your order is on the book.';
    case 'PARTIAL_FILL_RESTED':
      return `Matched ${filled} USDC; the rest is on the book.`;
    case 'FULLY_FILLED':
      return `Matched ${filled} USDC.`;
    case 'PARTIAL_FILL_DONE':
      return `Matched ${filled} USDC; the rest was cancelled.`;
    case 'TIMEOUT':
      return 'Submitted; the outcome follows in your orders below.';
    default:
      return `${outcome.state === 'EXPIRED' ? 'Expired' : 'Cancelled'}${outcome.cancelReason ? `: ${plainReason(outcome.cancelReason)}` : ''}`;
  }
}
