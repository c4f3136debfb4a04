import type { TimeInForce } from '@oddsbook/client';
import type { Market } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { allOddsFormats, ODDS_FORMATS, type OddsFormat, tokenAmount } from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import {
  EXPIRY_LABELS,
  type ExpiryChoice,
  expiryChoices,
  expiryOf,
  immediateExpiry,
  oddsText,
  parseOdds,
  parseStake,
  potentialReturn,
  stakeProblem,
} from '../lib/order-input.js';
import { describeResult, type PlacedResult } from '../lib/order-result.js';
import { tradingClient } from '../lib/session.js';
import { type Eip1193Provider, injectedProvider } from '../lib/wallet.js';
import type { TakeOffer } from './ladder.js';
import { ErrorLine } from './section.js';

type Phase = 'idle' | 'signing' | 'waiting';

/** The wallet, told to call `onSigned` once it has signed the order (the post follows). */
function watchingSignature(provider: Eip1193Provider, onSigned: () => void): Eip1193Provider {
  return {
    request: async (args) => {
      const answer = await provider.request(args);
      if (args.method === 'eth_signTypedData_v4') onSigned();
      return answer;
    },
  };
}

/**
 * A bet: outcome, odds (in the bettor's format, on the ladder), stake, time in force and, for a resting
 * order, its expiry; signed with EIP-712 in the wallet. The stake is checked against the market's minimum
 * and the free balance before the wallet is asked.
 */
export function OrderForm(props: {
  market: Market;
  ladderStepSize: number;
  format: OddsFormat;
  /** The exchange's own minimum stake (metadata), base units; the market's may be higher. */
  exchangeMinimum: bigint;
  /** What the balance leaves free for a new order (available less open orders), when known. */
  free: bigint | undefined;
  offer: TakeOffer | null;
  onPlaced: () => void;
}) {
  const { market, format } = props;
  const names: [string, string] = [market.outcomeOneName, market.outcomeTwoName];
  const [outcome, setOutcome] = useState<1 | 2>(1);
  const [odds, setOdds] = useState(() => oddsText(50n * 10n ** 18n, format));
  const [stake, setStake] = useState('10');
  const [tif, setTif] = useState<TimeInForce>('GTC');
  const nowSeconds = Math.floor(Date.now() / 1000);
  const choices = expiryChoices(market.gameTime, nowSeconds);
  const [expiry, setExpiry] = useState<ExpiryChoice>(choices[0]!);
  const [phase, setPhase] = useState<Phase>('idle');
  const [result, setResult] = useState<PlacedResult>();
  const [error, setError] = useState<unknown>();
  const minimum = maxOf(BigInt(market.minBetSize), props.exchangeMinimum);

  // The odds field follows the format: what was typed is rewritten in the new one when it reads.
  const [shownFormat, setShownFormat] = useState(format);
  useEffect(() => {
    if (format === shownFormat) return;
    try {
      setOdds(oddsText(parseOdds(odds, shownFormat, props.ladderStepSize), format));
    } catch {
      // left as typed: the preview says what is wrong with it
    }
    setShownFormat(format);
  }, [format]);

  useEffect(() => {
    if (!props.offer) return;
    setOutcome(props.offer.outcome);
    setOdds(oddsText(props.offer.odds, format));
    setStake(tokenAmount(props.offer.size));
    setTif('IOC');
    setResult(undefined);
    setError(undefined);
  }, [props.offer]);

  let preview = '';
  let problem: string | null = null;
  try {
    const parsed = parseOdds(odds, format, props.ladderStepSize);
    const amount = parseStake(stake);
    problem = stakeProblem(amount, { minimum, free: props.free });
    preview = `At ${allOddsFormats(parsed)}: returns ${tokenAmount(potentialReturn(amount, parsed))} USDC if ${names[outcome - 1]} wins.`;
  } catch (e) {
    problem = plainError(e);
  }

  const place = async () => {
    setError(undefined);
    setResult(undefined);
    try {
      const percentageOdds = parseOdds(odds, format, props.ladderStepSize);
      const totalBetSize = parseStake(stake);
      const refused = stakeProblem(totalBetSize, { minimum, free: props.free });
      if (refused) throw new Error(refused);
      const provider = injectedProvider();
      if (!provider) throw new Error('No wallet found to sign the order.');
      setPhase('signing');
      const now = Math.floor(Date.now() / 1000);
      const [placed] = await tradingClient(
        watchingSignature(provider, () => setPhase('waiting')),
      ).placeOrders(
        [
          {
            marketHash: market.marketHash,
            percentageOdds,
            totalBetSize,
            isMakerBettingOutcomeOne: outcome === 1,
            timeInForce: tif,
            expiry:
              tif === 'GTC'
                ? expiryOf(expiry, market.gameTime, now)
                : immediateExpiry(market.bettingDelay, now),
          },
        ],
        { waitForOutcome: true },
      );
      setResult(describeResult(placed!));
      props.onPlaced();
    } catch (e) {
      setError(e);
    } finally {
      setPhase('idle');
    }
  };

  const delay = market.bettingDelay;
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
            {names[o - 1]}
          </label>
        ))}
      </div>
      <div class="form-grid">
        <label>
          {ODDS_FORMATS.find((f) => f.format === format)!.label}
          <input
            aria-label={`Odds: ${format}`}
            inputMode="decimal"
            value={odds}
            onInput={(e) => setOdds((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Stake (USDC)
          <input
            aria-label="Stake"
            inputMode="decimal"
            value={stake}
            onInput={(e) => setStake((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <p class="muted" data-testid="stake-limits">
        Minimum stake {tokenAmount(minimum)} USDC
        {props.free !== undefined ? ` · ${tokenAmount(props.free)} USDC free to bet` : ''}
      </p>
      <label>
        Time in force
        <select
          aria-label="Time in force"
          value={tif}
          onChange={(e) => setTif((e.target as HTMLSelectElement).value as TimeInForce)}
        >
          <option value="GTC">GTC: rest on the book until filled, cancelled or expired</option>
          <option value="IOC">IOC: take what matches now, cancel the rest</option>
          <option value="FOK">FOK: fill all now or nothing</option>
        </select>
      </label>
      {tif === 'GTC' && (
        <label>
          Expires
          <select
            aria-label="Expires"
            value={expiry}
            onChange={(e) => setExpiry((e.target as HTMLSelectElement).value as ExpiryChoice)}
          >
            {choices.map((c) => (
              <option key={c} value={c}>
                {EXPIRY_LABELS[c]} (
                {new Date(expiryOf(c, market.gameTime, nowSeconds) * 1000).toLocaleString()})
              </option>
            ))}
          </select>
        </label>
      )}
      {preview && !problem && (
        <p class="muted" data-testid="order-preview">
          {preview}
        </p>
      )}
      {problem && (
        <p class="warning" data-testid="order-problem">
          {problem}
        </p>
      )}
      {delay > 0 && (
        <p class="muted">
          Bets on this market wait {delay} s (the{' '}
          {market.gameTime * 1000 <= Date.now() ? 'in-play' : 'pre-game'} betting delay) before they match.
        </p>
      )}
      <button type="submit" class="primary" disabled={phase !== 'idle' || problem !== null}>
        {phase === 'signing'
          ? 'Sign in your wallet…'
          : phase === 'waiting'
            ? delay > 0
              ? `Waiting out the ${delay} s betting delay…`
              : 'Placing…'
            : 'Place bet'}
      </button>
      {result && (
        <p class={`result result-${result.tone}`} data-testid="order-result" data-tone={result.tone}>
          {result.text}
        </p>
      )}
      {result?.dust !== undefined && (
        <p class="muted" data-testid="order-dust">
          {tokenAmount(result.dust)} USDC of the stake was too small to match at these odds and stays in your
          balance.
        </p>
      )}
      <ErrorLine error={error} text={plainError} />
    </form>
  );
}

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
