import type { Market } from '@oddsbook/protocol';
import { useEffect, useState } from 'preact/hooks';
import { FillsTable, OpenOrders, type OutcomeNames, TradesTable } from '../components/account-tables.js';
import { CatalogNav, isOpenMarket } from '../components/catalog-nav.js';
import { Ladder, type TakeOffer } from '../components/ladder.js';
import { OrderForm } from '../components/order-form.js';
import { ParlayBets } from '../components/parlay-bets.js';
import { ParlaySlip } from '../components/parlay-slip.js';
import { ErrorLine } from '../components/section.js';
import { useAccountData } from '../lib/account-data.js';
import type { Frame } from '../lib/book.js';
import {
  formatOdds,
  marketTypeLabel,
  ODDS_FORMATS,
  type OddsFormat,
  shortHex,
  storedOddsFormat,
  storeOddsFormat,
  tokenAmount,
} from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import { useAuth, usePolled } from '../lib/hooks.js';
import { useLiveBook } from '../lib/live-book.js';
import { type TapeSummary, useMarketTape } from '../lib/market-tape.js';
import { addLeg, type SlipLeg, slipLeg, storedLegs, storeLegs } from '../lib/parlay.js';
import { useRealtime } from '../lib/realtime.js';
import { publicClient } from '../lib/session.js';

/** The shown market's record is read again this often: it may be resolved, closed or go in play. */
const MARKET_POLL_MS = 10_000;

/** The trading page: catalog, a market's live ladder, the order form, open orders, bets and fills. */
export function TradingPage() {
  const auth = useAuth();
  const [picked, setPicked] = useState<Market | null>(null);
  const [format, setFormat] = useState<OddsFormat>(storedOddsFormat);
  // The picked market's record as it is now (resolved, closed, in play), read again while shown.
  const current = usePolled(
    picked ? async () => (await publicClient().findMarkets([picked.marketHash]))[0] ?? null : null,
    MARKET_POLL_MS,
    [picked?.marketHash],
  );
  const market = picked && current.value?.marketHash === picked.marketHash ? current.value : picked;
  const open = market ? isOpenMarket(market) : false;
  const [frame, setFrame] = useState<Frame>('taker');
  const [offer, setOffer] = useState<TakeOffer | null>(null);
  const centrifuge = useRealtime(auth.apiKey);
  const tape = useMarketTape(market?.marketHash, centrifuge);
  const metadata = usePolled(() => publicClient().getMetadata(), 0, []);
  const live = useLiveBook(market?.marketHash, centrifuge);
  const account = useAccountData(auth.apiKey, auth.address, centrifuge);
  const stepSize = metadata.value?.oddsLadderStepSize ?? 125;
  const exchangeMinimum = BigInt(metadata.value?.limits.orderSizeMinimumBaseUnits ?? 0);
  const free = account.balance
    ? BigInt(account.balance.availableAmount) - BigInt(account.balance.exposureAmount)
    : undefined;
  const names: [string, string] = market ? [market.outcomeOneName, market.outcomeTwoName] : ['', ''];
  const [known, setKnown] = useState<OutcomeNames>({});
  // A parlay market's rows (bets, fills) name its two sides as the bettor and the makers take them.
  const named: OutcomeNames = { ...known };
  for (const t of account.trades) if (t.isParlay) named[t.marketHash] = ['Parlay', 'Against a parlay'];
  // The slip's legs, kept across a reload (the page is mounted again after sign-in, with the address).
  const [legs, setShownLegs] = useState<SlipLeg[]>(() => storedLegs(auth.address));
  const setLegs = (update: (old: SlipLeg[]) => SlipLeg[]) =>
    setShownLegs((old) => {
      const next = update(old);
      storeLegs(auth.address, next);
      return next;
    });
  const [slipNote, setSlipNote] = useState<string>();
  const addToSlip = (m: Market, outcome: 1 | 2) => {
    const added = addLeg(legs, slipLeg(m, outcome));
    setLegs(() => added.legs);
    setSlipNote(added.note);
  };
  useEffect(() => {
    if (market)
      setKnown((old) => ({ ...old, [market.marketHash]: [market.outcomeOneName, market.outcomeTwoName] }));
  }, [market]);

  return (
    <div class={`page trading ${market ? 'has-market' : ''}`}>
      <CatalogNav
        centrifuge={centrifuge}
        selected={market}
        onSelect={(m) => {
          setPicked(m);
          setOffer(null);
        }}
      />
      <div class="market-pane">
        <label class="odds-format">
          Odds
          <select
            aria-label="Odds format"
            value={format}
            onChange={(e) => {
              const next = (e.target as HTMLSelectElement).value as OddsFormat;
              setFormat(next);
              storeOddsFormat(next);
            }}
          >
            {ODDS_FORMATS.map((f) => (
              <option key={f.format} value={f.format}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        {!market && <p class="hint">Pick a league, a game and a market.</p>}
        {market && (
          <>
            <div class="market-head" data-testid="market-head" data-market-hash={market.marketHash}>
              <h2>
                {market.teamOneName} – {market.teamTwoName}
              </h2>
              <p class="muted">
                <span class="tag" data-testid="market-type">
                  {marketTypeLabel(market)}
                </span>{' '}
                {market.outcomeOneName} / {market.outcomeTwoName} · {market.leagueLabel} ·{' '}
                {new Date(market.gameTime * 1000).toLocaleString()} <MarketPhase market={market} /> · book{' '}
                <span data-testid="book-feed" title="How this page follows the book">
                  {live.live ? 'streaming' : centrifuge ? 'connecting…' : 'polling every 2 s'}
                </span>
              </p>
              <TapeLine tape={tape.tape} names={names} format={format} />
              <div class="row">
                <label class="radio">
                  <input type="radio" checked={frame === 'taker'} onChange={() => setFrame('taker')} />
                  Your odds (taker)
                </label>
                <label class="radio">
                  <input type="radio" checked={frame === 'maker'} onChange={() => setFrame('maker')} />
                  Resting orders (maker)
                </label>
              </div>
            </div>
            {live.book && (
              <Ladder
                book={live.book}
                outcomeNames={names}
                frame={frame}
                ladderStepSize={stepSize}
                format={format}
                closed={!open}
                onTake={setOffer}
              />
            )}
            <ErrorLine error={live.error} text={plainError} />
            <DemoMakerNote address={metadata.value?.demoMarketMaker} />
            {auth.apiKey && open && (
              <div class="row parlay-add" data-testid="parlay-add">
                <span class="muted">
                  Add to a parlay{legs.length > 0 ? ` (${legs.length} on the slip below)` : ''}:
                </span>
                {([1, 2] as const).map((o) => (
                  <button
                    key={o}
                    type="button"
                    data-testid={`add-leg-${o}`}
                    onClick={() => addToSlip(market, o)}
                  >
                    + {names[o - 1]}
                  </button>
                ))}
              </div>
            )}
            {!open ? (
              <p class="hint" data-testid="market-closed">
                {market.outcome !== undefined
                  ? `This market is resolved: ${resolvedText(market)}. It takes no more bets.`
                  : 'This market is closed: it takes no more bets.'}
              </p>
            ) : auth.apiKey ? (
              // Keyed by market: a message or a half-typed bet never shows under another market.
              <OrderForm
                key={market.marketHash}
                market={market}
                ladderStepSize={stepSize}
                format={format}
                exchangeMinimum={exchangeMinimum}
                free={free}
                offer={offer}
                onPlaced={() => {
                  live.refresh();
                  tape.refresh();
                  account.reload();
                }}
              />
            ) : (
              <p class="hint" data-testid="trade-needs-key">
                To bet, sign in and create an API key on the <a href="#/account">account page</a>.
              </p>
            )}
          </>
        )}
        {auth.apiKey && (
          <>
            <ParlaySlip
              address={auth.address}
              legs={legs}
              note={slipNote}
              ladderStepSize={stepSize}
              format={format}
              onRemove={(hash) => {
                setLegs((old) => old.filter((l) => l.marketHash !== hash));
                setSlipNote(undefined);
              }}
              onClear={() => {
                setLegs(() => []);
                setSlipNote(undefined);
              }}
              onPlaced={account.reload}
            />
            {account.balance && (
              <p class="balance-line" data-testid="balance-line">
                Available {tokenAmount(account.balance.availableAmount)} USDC (open orders{' '}
                {tokenAmount(account.balance.exposureAmount)}) · in escrow{' '}
                {tokenAmount(account.balance.escrowedAmount)} USDC
              </p>
            )}
            <details class="rows-section" open>
              <summary>Your open orders, bets and fills</summary>
              <OpenOrders
                orders={account.orders}
                trades={account.trades}
                names={named}
                onChange={account.reload}
              />
              <ParlayBets trades={account.trades} />
              <TradesTable
                trades={account.trades}
                fills={account.fills}
                refunds={account.refunds}
                names={named}
              />
              <FillsTable fills={account.fills} names={named} />
            </details>
            <ErrorLine error={account.error} text={plainError} />
          </>
        )}
      </div>
    </div>
  );
}

/** Whose quotes a newcomer meets on the demo data: a bot of this server's, not other bettors. */
function DemoMakerNote(props: { address: string | null | undefined }) {
  if (!props.address) return null;
  return (
    <p class="muted demo-maker" data-testid="demo-maker-note">
      Demo data: most quotes here come from the <strong>demo market maker</strong> (
      <code title={props.address}>{shortHex(props.address)}</code>), a bot this server runs with faucet money.
      It quotes both sides 2 % apart and quotes again after you trade with it.
    </p>
  );
}

/** Whether the game is in play (its start has passed) or still to come. */
function MarketPhase(props: { market: Market }) {
  const inPlay = props.market.gameTime * 1000 <= Date.now();
  return (
    <span class={`tag ${inPlay ? 'in-play' : ''}`} data-testid="market-phase">
      {inPlay ? 'in play' : 'pre-game'}
    </span>
  );
}

function resolvedText(market: Market): string {
  if (market.outcome === 1) return `${market.outcomeOneName} won`;
  if (market.outcome === 2) return `${market.outcomeTwoName} won`;
  return 'void, every stake refunded';
}

/** Last traded price and matched volume, from the public tape. */
function TapeLine(props: { tape: TapeSummary | null; names: [string, string]; format: OddsFormat }) {
  const { tape } = props;
  if (!tape) return null;
  return (
    <p class="muted tape" data-testid="market-tape">
      {tape.last
        ? `Last traded ${formatOdds(tape.last.odds, props.format)} on ${props.names[tape.last.outcome - 1]}`
        : 'Nothing traded yet'}
      {' · '}matched {tape.partial ? 'at least ' : ''}
      {tokenAmount(tape.matched)} USDC in {tape.bets} {tape.bets === 1 ? 'bet' : 'bets'}
    </p>
  );
}
