import type { ParlayDetail, ParlayRequestResult } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { allOddsFormats, formatOdds, type OddsFormat, tokenAmount } from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import { parseStake } from '../lib/order-input.js';
import { describeResult, type PlacedResult } from '../lib/order-result.js';
import {
  type BettorOffer,
  bettorOffers,
  canRequest,
  type SlipLeg,
  secondsLeft,
  storedRequest,
  storeRequest,
} from '../lib/parlay.js';
import { tradingClient } from '../lib/session.js';
import { injectedProvider } from '../lib/wallet.js';
import { ErrorLine } from './section.js';

/** While the offers can be taken, the page reads them again this often (a maker may cancel one). */
const OFFERS_POLL_MS = 2000;
/** A taking order lives a minute at most (it is immediate-or-cancel anyway). */
const TAKE_EXPIRY_SECONDS = 60;

type Phase = 'quoting' | 'taking' | 'closed';

/** The clock, ticking every `ms` while `on`. */
function useNow(on: boolean, ms = 250): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [on, ms]);
  return now;
}

/**
 * The parlay slip: the legs picked (one per game), a stake, and the request for quotes. Makers quote during
 * the quote window (a countdown); then their offers show, and one can be taken until `takeUntil` (signed in
 * the wallet like any bet: an immediate-or-cancel order betting the parlay, outcome one, at the offer's odds).
 */
export function ParlaySlip(props: {
  /** The signed-in account: a request it made is kept across a reload while it can be taken. */
  address: string | undefined;
  legs: SlipLeg[];
  note: string | undefined;
  ladderStepSize: number;
  format: OddsFormat;
  onRemove: (marketHash: string) => void;
  onClear: () => void;
  onPlaced: () => void;
}) {
  const [saved] = useState(() => storedRequest(props.address, Date.now()));
  const [stake, setStake] = useState(saved?.stake ?? '10');
  const [request, setShownRequest] = useState<ParlayRequestResult | null>(saved?.request ?? null);
  const setRequest = (next: ParlayRequestResult | null) => {
    setShownRequest(next);
    storeRequest(props.address, next && { request: next, stake });
  };
  const [detail, setDetail] = useState<ParlayDetail | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<PlacedResult>();
  const [error, setError] = useState<unknown>();
  const now = useNow(request !== null);
  const phase: Phase | null = !request
    ? null
    : now < Date.parse(request.quoteWindowEndsAt)
      ? 'quoting'
      : now < Date.parse(request.takeUntil)
        ? 'taking'
        : 'closed';

  // Once the window closes, the offers: read at once, then again while they can be taken.
  useEffect(() => {
    if (!request || phase !== 'taking') return;
    let stopped = false;
    const load = () =>
      tradingClient()
        .getParlay(request.marketHash)
        .then((d) => {
          if (!stopped) setDetail(d);
        })
        .catch((e: unknown) => {
          if (!stopped) setError(e);
        });
    void load();
    const timer = setInterval(load, OFFERS_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [request?.marketHash, phase]);

  const ask = async () => {
    setError(undefined);
    setResult(undefined);
    setDetail(null);
    setBusy(true);
    try {
      const requestSize = parseStake(stake);
      setRequest(
        await tradingClient().requestParlay({
          legs: props.legs.map((l) => ({ marketHash: l.marketHash, bettingOutcomeOne: l.bettingOutcomeOne })),
          requestSize,
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const take = async (offer: BettorOffer) => {
    if (!request) return;
    setError(undefined);
    setResult(undefined);
    setBusy(true);
    try {
      const totalBetSize = parseStake(stake);
      const provider = injectedProvider();
      if (!provider) throw new Error('No wallet found to sign the order.');
      const [placed] = await tradingClient(provider).placeOrders(
        [
          {
            marketHash: request.marketHash,
            percentageOdds: offer.odds,
            totalBetSize,
            isMakerBettingOutcomeOne: true,
            timeInForce: 'IOC',
            expiry: Math.floor(Date.now() / 1000) + TAKE_EXPIRY_SECONDS,
          },
        ],
        { waitForOutcome: true },
      );
      const taken = placed!.status === 'SUBMITTED' && BigInt(placed!.outcome?.fillAmount ?? '0') > 0n;
      const described = describeResult(placed!);
      setResult({
        ...described,
        text: `${described.text}${taken ? ' Follow its legs in Your parlays.' : ''}`,
      });
      if (taken) {
        // Taken: the bet follows in "Your parlays"; the slip is free for the next one.
        setRequest(null);
        setDetail(null);
        props.onClear();
      }
      props.onPlaced();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const startOver = () => {
    setRequest(null);
    setDetail(null);
    setResult(undefined);
    setError(undefined);
  };

  if (props.legs.length === 0 && !request)
    return result ? (
      <div class="card parlay-slip" data-testid="parlay-slip">
        <h3>Parlay slip</h3>
        <p class={`result result-${result.tone}`} data-testid="parlay-result" data-tone={result.tone}>
          {result.text}
        </p>
      </div>
    ) : null;

  const offers = detail ? bettorOffers(detail.offers, props.ladderStepSize) : [];
  return (
    <div class="card parlay-slip" data-testid="parlay-slip">
      <h3>
        Parlay slip <span class="tag">{props.legs.length} legs</span>
      </h3>
      <ol class="slip-legs">
        {props.legs.map((leg) => (
          <li key={leg.marketHash} data-testid="slip-leg">
            <span class="slip-pick">{leg.pick}</span>
            <span class="muted slip-game">{leg.game}</span>
            {!request && (
              <button
                type="button"
                class="link"
                aria-label={`Remove ${leg.pick}`}
                onClick={() => props.onRemove(leg.marketHash)}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      {props.note && <p class="muted">{props.note}</p>}
      <label class="slip-stake">
        Stake (USDC)
        <input
          aria-label="Parlay stake"
          value={stake}
          onInput={(e) => setStake((e.target as HTMLInputElement).value)}
        />
      </label>
      {!request && (
        <div class="row">
          <button
            type="button"
            class="primary"
            disabled={busy || !canRequest(props.legs)}
            onClick={() => void ask()}
          >
            Request offers
          </button>
          <button type="button" onClick={props.onClear}>
            Clear
          </button>
          {props.legs.length < 2 && <span class="muted">Add at least two legs from different games.</span>}
        </div>
      )}
      {request && phase === 'quoting' && (
        <p class="hint" data-testid="parlay-countdown">
          Makers are quoting: offers in {secondsLeft(request.quoteWindowEndsAt, now)} s
        </p>
      )}
      {request && phase === 'taking' && (
        <>
          <p class="muted" data-testid="parlay-take-countdown">
            Take an offer within {secondsLeft(request.takeUntil, now)} s
          </p>
          <table class="offers">
            <thead>
              <tr>
                <th>Odds</th>
                <th>Up to</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {offers.map((offer) => (
                <tr key={offer.orderId} data-testid="parlay-offer" title={allOddsFormats(offer.odds)}>
                  <td>{formatOdds(offer.odds, props.format)}</td>
                  <td>{tokenAmount(offer.size)}</td>
                  <td>
                    <button type="button" class="primary" disabled={busy} onClick={() => void take(offer)}>
                      {busy ? 'Sign…' : 'Take'}
                    </button>
                  </td>
                </tr>
              ))}
              {offers.length === 0 && (
                <tr>
                  <td colSpan={3} class="muted" data-testid="parlay-no-offers">
                    {detail ? 'No maker offered on this parlay.' : 'Loading the offers…'}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </>
      )}
      {request && phase === 'closed' && (
        <div class="row">
          <span class="muted" data-testid="parlay-closed">
            The offers have closed.
          </span>
          <button type="button" onClick={startOver}>
            New request
          </button>
        </div>
      )}
      {result && (
        <p class={`result result-${result.tone}`} data-testid="parlay-result" data-tone={result.tone}>
          {result.text}
        </p>
      )}
      <ErrorLine error={error} text={plainError} />
    </div>
  );
}
