/**
 * Parlay requests (issue 39, docs/parlays.md): `POST /parlays-v3` checks the legs against the catalog, makes
 * the market (one sequencer intent: its legs opened where needed, then the parlay market with its rules), and
 * answers once the projections have it (its broadcast on `parlay_markets:global` comes from the committed
 * batch). `GET /parlays-v3/{marketHash}` shows the request and the offers the caller may see. The engine holds
 * every parlay's rules, so any node with the journal's state answers.
 */
import { randomUUID } from 'node:crypto';
import type {
  ErrorCode,
  ParlayDetail,
  ParlayOffer,
  ParlayRequestBody,
  ParlayRequestResult,
} from '@oddsbook/protocol';
import { getAddress } from 'viem';
import type { CatalogService } from '../catalog/catalog-service.js';
import { parlayMarketHash, parlayMarketView, parlayState } from '../catalog/parlay-markets.js';
import { marketToWire } from '../catalog/wire.js';
import type { OrderView, ParlaySpec } from '../engine/index.js';
import { AppError, badRequest, notFound } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import { parlayEventId } from '../records/parlay-event-id.js';
import type { MarketView } from '../store/repositories.js';
import type { Trading } from './trading.js';

export type ParlaySettings = {
  baseToken: `0x${string}`;
  quoteWindowMs: number;
  takeWindowMs: number;
  feeBps: number;
  feeAccount: `0x${string}`;
};

const iso = (ms: number) => new Date(ms).toISOString();

/** A refused leg: the common error shape naming it (`marketHash`, `legIndex`). */
function legRefused(code: ErrorCode, legIndex: number, marketHash: string, message: string): AppError {
  return new AppError({
    code,
    statusCode: 400,
    message,
    body: { message, error: 'Bad Request', statusCode: 400, code, marketHash, legIndex },
  });
}

export class ParlayService {
  constructor(
    private readonly o: {
      catalog: CatalogService;
      trading: Pick<Trading, 'sequencer' | 'queries' | 'pipeline' | 'catchUp'>;
      clock: Clock;
      settings: ParlaySettings;
    },
  ) {}

  /**
   * A market as this node's engine holds it. A replica (an API node) that does not know it yet may be behind
   * the node that made it: a maker quoting right after the broadcast reaches this node before the request's
   * entry does. It catches up with the journal first, as read-your-writes waits for an account's own entries;
   * a failed catch-up answers from the state as it is.
   */
  async #engineMarket(marketHash: string) {
    const { sequencer, catchUp } = this.o.trading;
    const market = sequencer.market(marketHash);
    if (market || !catchUp) return market;
    await catchUp().catch(() => {});
    return sequencer.market(marketHash);
  }

  /** A parlay market as the catalog shows it (legs as their records), or null for any other hash. */
  async market(marketHash: string): Promise<MarketView | null> {
    const market = await this.#engineMarket(marketHash);
    if (!market?.parlay) return null;
    const hashes = market.parlay.legs.map((l) => l.marketHash);
    const found = new Map((await this.o.catalog.findMarkets(hashes)).map((m) => [m.marketHash, m]));
    const legs = hashes.map((h) => found.get(h as `0x${string}`));
    if (legs.some((l) => l === undefined)) return null;
    return parlayMarketView(market, legs as MarketView[], this.o.clock.now());
  }

  async request(account: `0x${string}`, body: ParlayRequestBody): Promise<ParlayRequestResult> {
    const { settings } = this.o;
    if (body.baseToken.toLowerCase() !== settings.baseToken.toLowerCase())
      throw badRequest('PARLAY_BAD_BASE_TOKEN', `baseToken must be ${settings.baseToken}`);
    const legs = body.legs.map((l) => ({
      marketHash: l.marketHash.toLowerCase(),
      bettingOutcomeOne: l.bettingOutcomeOne,
    }));
    const events = new Map<string, number>();
    const intentLegs: {
      marketHash: string;
      eventId: string;
      quarterLineLegs: readonly [string, string] | null;
    }[] = [];
    for (const [i, leg] of legs.entries()) {
      const state = await this.o.catalog.tradingState(leg.marketHash);
      if (!state)
        throw legRefused('PARLAY_LEG_NOT_FOUND', i, leg.marketHash, `leg ${i}: no market ${leg.marketHash}`);
      if (state.market.parlayLegs)
        throw legRefused(
          'PARLAY_LEG_INACTIVE',
          i,
          leg.marketHash,
          `leg ${i}: a parlay market cannot be a leg`,
        );
      if (!state.open)
        throw legRefused(
          'PARLAY_LEG_INACTIVE',
          i,
          leg.marketHash,
          `leg ${i}: market ${leg.marketHash} does not take bets now (${state.closedReason})`,
        );
      const eventId = state.market.eventId;
      const other = events.get(eventId);
      if (other !== undefined)
        throw legRefused(
          'PARLAY_LEGS_SAME_EVENT',
          i,
          leg.marketHash,
          `legs ${other} and ${i} are markets of one event (${eventId}): take at most one leg per event`,
        );
      events.set(eventId, i);
      intentLegs.push({ marketHash: leg.marketHash, eventId, quarterLineLegs: state.market.quarterLineLegs });
    }
    const now = this.o.clock.now();
    const marketHash = parlayMarketHash(randomUUID(), legs);
    const quoteWindowEndsAt = now + settings.quoteWindowMs;
    const spec: ParlaySpec = {
      requester: getAddress(account),
      requestedAt: now,
      baseToken: getAddress(settings.baseToken),
      requestSize: body.requestSize ?? null,
      quoteWindowEndsAt,
      takeUntil: quoteWindowEndsAt + settings.takeWindowMs,
      feeBps: settings.feeBps,
      feeAccount: getAddress(settings.feeAccount),
      legs,
    };
    const { sequencer, pipeline } = this.o.trading;
    const [decided] = sequencer.decideAll([
      {
        kind: 'parlay',
        marketHash,
        eventId: parlayEventId(marketHash, settings.feeBps),
        spec,
        legs: intentLegs,
      },
    ]);
    const result = await decided!;
    if (!result.parlay?.opened) {
      // A leg stopped trading between the check and the sequencer: name the first one that did.
      const i = legs.findIndex((l) => sequencer.marketStatus(l.marketHash) !== 'open');
      const leg = legs[Math.max(i, 0)]!;
      throw legRefused(
        'PARLAY_LEG_INACTIVE',
        Math.max(i, 0),
        leg.marketHash,
        `leg ${i} no longer takes bets`,
      );
    }
    // Answered once projected: the maker quoting right after the broadcast finds the market.
    const seq = result.entries[result.entries.length - 1]!.seq;
    await (pipeline.caughtUpTo(seq) ?? Promise.resolve());
    return {
      marketHash,
      legs,
      quoteWindowEndsAt: iso(spec.quoteWindowEndsAt),
      takeUntil: iso(spec.takeUntil),
    };
  }

  /**
   * The request and the offers the caller may see: the requester, once the quote window has closed, every
   * open offer (they were all posted within it: later ones are refused); anyone else, its own open offers.
   */
  async detail(account: `0x${string}`, marketHashParam: string): Promise<ParlayDetail> {
    const marketHash = marketHashParam.toLowerCase();
    const market = await this.#engineMarket(marketHash);
    const view = market?.parlay ? await this.market(marketHash) : null;
    if (!market?.parlay || !view) throw notFound('PARLAY_NOT_FOUND', `no parlay market ${marketHash}`);
    const parlay = market.parlay;
    const now = this.o.clock.now();
    const state = parlayState(market, now);
    const isRequester = getAddress(account) === parlay.requester;
    const visible = (o: OrderView) =>
      isRequester ? state !== 'QUOTING' && o.account !== parlay.requester : o.account === getAddress(account);
    const resting = this.o.trading.sequencer.restingOrders(marketHash).filter(visible);
    const rows = new Map(
      (await this.o.trading.queries.signedOrders(resting.map((o) => o.orderId))).map((r) => [r.id, r]),
    );
    const offers: ParlayOffer[] = resting.map((o) => ({
      orderId: o.orderId,
      isMakerBettingOutcomeOne: o.isBettingOutcomeOne,
      percentageOdds: o.percentageOdds.toString(),
      totalBetSize: o.totalBetSize.toString(),
      remainingSize: o.remainingSize.toString(),
      expiry: iso(o.expiry * 1000),
      createdAt: iso(rows.get(o.orderId)?.createdAt ?? parlay.requestedAt),
    }));
    return {
      marketHash,
      requester: parlay.requester,
      baseToken: parlay.baseToken,
      ...(parlay.requestSize === null ? {} : { requestSize: parlay.requestSize }),
      legs: (view.parlayLegs ?? []).map((leg, i) => ({
        marketHash: leg.marketHash,
        bettingOutcomeOne: parlay.legs[i]!.bettingOutcomeOne,
        market: marketToWire(leg),
      })),
      createdAt: iso(parlay.requestedAt),
      quoteWindowEndsAt: iso(parlay.quoteWindowEndsAt),
      takeUntil: iso(parlay.takeUntil),
      state,
      ...(parlay.outcome === null ? {} : { outcome: parlay.outcome }),
      offers,
    };
  }
}
