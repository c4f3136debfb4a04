import {
  type CreateOrderResult,
  DEFAULT_ODDS_LADDER_STEP,
  type ErrorCode,
  ODDS_SCALE,
  type OrderInput,
  oddsToTick,
  tickToOdds,
  type V2CancelAllBody,
  type V2CancelEventBody,
  type V2CancelOrdersBody,
  type V2FillBody,
  type V2SignedOrder,
} from '@oddsbook/protocol';
import { getAddress } from 'viem';
import type { CatalogService } from '../catalog/catalog-service.js';
import { AppError, LegacyError, unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { OrderSigning } from '../orders/order-service.js';
import type { SignedOrderRecord } from '../store/trading-reads.js';
import type { Trading } from '../trading/trading.js';
import { CancelSalts } from './cancel-salts.js';
import {
  legacyAddresses,
  recoverV2CancelSigner,
  recoverV2FillSigner,
  recoverV2OrderSigner,
  V2_FILL_DOMAIN_VERSION,
  V2_SIGNED_EXPIRY,
  type V2CancelMessage,
  v2OrderHash,
} from './v2-signing.js';
import { type V2OrderRow, v2OrderRow } from './v2-wire.js';

/** The message of every v2 order route from V2_CUTOVER_AT on (the production counterpart's text). */
export const V2_UNSUPPORTED_MESSAGE = 'OrderBook V2 is no longer supported';
/** At most this many markets in one `POST /orders/new`. */
export const V2_MAX_MARKETS_PER_POST = 3;
/** A taker's fills in flight at once (`META_TX_RATE_LIMIT_REACHED` past it). */
export const V2_MAX_FILLS_IN_FLIGHT = 10;
/** A cancel's signed timestamp may be this far from the exchange's clock. */
export const V2_CANCEL_TIMESTAMP_WINDOW_S = 600;
/** At most this many marketHashes in `GET /orders`. */
export const V2_MAX_ORDER_MARKETS = 1_000;
/** How long a fill waits for its outcome (its betting delay included) before it is answered 503. */
const V2_FILL_WAIT_MS = 15_000;
/** A fill becomes an IOC order that expires this long after its betting delay (it never rests). */
const V2_FILL_EXPIRY_SLACK_S = 60;
const UINT256_LIMIT = 2n ** 256n;

export type LegacyDates = { v2CutoverAt: number; v2HistoryRemovedAt: number; legacyWsShutdownAt: number };

export type LegacyApiOptions = {
  trading: Pick<Trading, 'orders' | 'sequencer' | 'queries' | 'caughtUpFor'>;
  catalog: Pick<CatalogService, 'tradingState' | 'activeMarkets'>;
  clock: Clock;
  chainId: number;
  verifyingContract: `0x${string}`;
  baseToken: `0x${string}`;
  minimumOrder: bigint;
  dates: LegacyDates;
};

/** The v3 per-order reasons a v2 client reads as one of its four statuses. */
const V2_STATUS_OF: Readonly<Record<string, string>> = {
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  ORDER_ALREADY_EXISTS: 'ORDERS_ALREADY_EXIST',
  DUPLICATE_ORDER_ID: 'ORDERS_ALREADY_EXIST',
  MARKET_NOT_FOUND: 'INVALID_MARKET',
  MARKET_INACTIVE: 'INVALID_MARKET',
  MARKET_CLOSED: 'INVALID_MARKET',
  MARKET_RESOLVED: 'INVALID_MARKET',
  FIXTURE_SUSPENDED: 'INVALID_MARKET',
  LIVE_DISABLED: 'INVALID_MARKET',
};

/**
 * The legacy v2 API (issue 38, docs/legacy.md) on the v3 exchange: v2 signatures are checked here, then the
 * orders go through the same intake (`OrderService`) and sequencer as v3 orders, to the same books. Which
 * side of the cut-over dates the exchange is on is its clock's decision, at every request.
 */
export class LegacyApi {
  readonly executorAddress: `0x${string}`;
  readonly fillHasher: `0x${string}`;
  private readonly salts = new CancelSalts(V2_CANCEL_TIMESTAMP_WINDOW_S * 2_000);
  private readonly fillsInFlight = new Map<string, number>();
  private readonly ladderSize: number;

  constructor(private readonly o: LegacyApiOptions) {
    ({ executorAddress: this.executorAddress, fillHasher: this.fillHasher } = legacyAddresses(
      o.verifyingContract,
    ));
    this.ladderSize = o.trading.sequencer.ladderSize;
  }

  /** Whether v2 order routes still work (before V2_CUTOVER_AT). */
  get ordersOpen(): boolean {
    return this.o.clock.now() < this.o.dates.v2CutoverAt;
  }

  /** Whether the v2 trade-history routes still answer (before V2_HISTORY_REMOVED_AT). */
  get historyOpen(): boolean {
    return this.o.clock.now() < this.o.dates.v2HistoryRemovedAt;
  }

  /** Whether the legacy realtime channel names are still served (before LEGACY_WS_SHUTDOWN_AT). */
  get channelsOpen(): boolean {
    return this.o.clock.now() < this.o.dates.legacyWsShutdownAt;
  }

  /** 400 "OrderBook V2 is no longer supported" once the cut-over has come. */
  assertOrdersOpen(): void {
    if (!this.ordersOpen) throw new LegacyError('V2_NO_LONGER_SUPPORTED', 400, V2_UNSUPPORTED_MESSAGE);
  }

  metadata() {
    this.assertOrdersOpen();
    const { baseToken, chainId, verifyingContract, minimumOrder } = this.o;
    return {
      executorAddress: this.executorAddress,
      EIP712FillHasher: this.fillHasher,
      TokenTransferProxy: verifyingContract,
      domainVersion: V2_FILL_DOMAIN_VERSION,
      chainId,
      oddsLadderStepSize: DEFAULT_ODDS_LADDER_STEP,
      makerOrderMinimums: { [baseToken]: minimumOrder.toString() },
      takerMinimums: { [baseToken]: minimumOrder.toString() },
      addresses: { [String(chainId)]: { USDC: baseToken } },
    };
  }

  // ------------------------------------------------------------------ POST /orders/new

  async postOrders(orders: readonly V2SignedOrder[]) {
    this.assertOrdersOpen();
    if (new Set(orders.map((o) => o.marketHash.toLowerCase())).size > V2_MAX_MARKETS_PER_POST)
      throw new LegacyError('TOO_MANY_DIFFERENT_MARKETS');
    const maker = getAddress(orders[0]!.maker);
    const ids = new Map<OrderInput, `0x${string}`>();
    const inputs: OrderInput[] = [];
    for (const order of orders) {
      if (getAddress(order.maker) !== maker) throw new LegacyError('ORDERS_MUST_SHARE_ONE_MAKER');
      if (!this.isBaseToken(order.baseToken)) throw new LegacyError('BAD_BASE_TOKEN');
      if (getAddress(order.executor) !== this.executorAddress) throw new LegacyError('INVALID_EXECUTOR');
      if (order.expiry !== V2_SIGNED_EXPIRY) throw new LegacyError('INVALID_EXPIRY');
      if (![order.totalBetSize, order.percentageOdds, order.salt].every(isUint256))
        throw new LegacyError('BAD_BODY');
      if (oddsToTick(BigInt(order.percentageOdds)) === null) throw new LegacyError('ODDS_NOT_ON_LADDER');
      const orderHash = v2OrderHash({
        ...order,
        marketHash: order.marketHash as `0x${string}`,
        baseToken: order.baseToken as `0x${string}`,
        maker: order.maker as `0x${string}`,
        executor: order.executor as `0x${string}`,
      });
      const signer = recoverV2OrderSigner(orderHash, order.signature);
      if (!signer.ok || signer.signer !== maker) throw new LegacyError('MAKER_SIGNATURE_MISMATCH');
      const input: OrderInput = {
        marketHash: order.marketHash,
        maker,
        totalBetSize: order.totalBetSize,
        percentageOdds: order.percentageOdds,
        salt: order.salt,
        expiry: order.apiExpiry,
        baseToken: order.baseToken,
        isMakerBettingOutcomeOne: order.isMakerBettingOutcomeOne,
        timeInForce: 'GTC',
        orderSignature: order.signature,
      };
      ids.set(input, orderHash);
      inputs.push(input);
    }
    const results = await legacyFailures(() =>
      this.o.trading.orders.create(maker, { orders: inputs }, this.signing(ids, maker)),
    );
    const statuses: Record<string, string> = {};
    let inserted = 0;
    results.forEach((result, i) => {
      const status = v2Status(result);
      if (status === 'OK') inserted += 1;
      // The same order twice in a request: its status is the first copy's (the second is refused as a repeat).
      statuses[ids.get(inputs[i]!)!] ??= status;
    });
    return { orders: inputs.map((input) => ids.get(input)!), statuses, inserted };
  }

  /** The v2 path's signing for the shared intake: signatures checked already, ids are the v2 hashes. */
  private signing(ids: Map<OrderInput, `0x${string}`>, signer: `0x${string}`, extra = {}): OrderSigning {
    return {
      orderId: (input) => ids.get(input) ?? null,
      verifyBatch: async (inputs) => inputs.map((input) => ({ ok: true, orderId: ids.get(input)!, signer })),
      meta: () => ({ api: 'v2', ...extra }),
    };
  }

  private isBaseToken(address: string): boolean {
    return address.toLowerCase() === this.o.baseToken.toLowerCase();
  }

  // ------------------------------------------------------------------ POST /orders/fill/v2

  async fill(body: V2FillBody) {
    this.assertOrdersOpen();
    if (!this.isBaseToken(body.baseToken)) throw new LegacyError('BAD_BASE_TOKEN');
    if (body.oddsSlippage < 0 || body.oddsSlippage > 100) throw new LegacyError('INVALID_ODDS_SLIPPAGE');
    if (![body.stakeWei, body.desiredOdds, body.fillSalt].every(isUint256)) throw new LegacyError('BAD_BODY');
    const desired = BigInt(body.desiredOdds);
    // The bound desired x 100 / (100 - slippage) must reach the ladder's first tick (else nothing could match).
    const firstTick = tickToOdds(1);
    if (
      desired === 0n ||
      desired >= ODDS_SCALE ||
      desired * 100n < firstTick * BigInt(100 - body.oddsSlippage)
    )
      throw new LegacyError('INVALID_ODDS');
    const taker = getAddress(body.taker);
    const marketHash = body.market.toLowerCase() as `0x${string}`;
    const signed = recoverV2FillSigner(
      {
        marketHash,
        baseToken: body.baseToken as `0x${string}`,
        stakeWei: body.stakeWei,
        desiredOdds: body.desiredOdds,
        oddsSlippage: body.oddsSlippage,
        isTakerBettingOutcomeOne: body.isTakerBettingOutcomeOne,
        fillSalt: body.fillSalt,
      },
      { chainId: this.o.chainId, fillHasher: this.fillHasher },
      taker,
      body.takerSig,
    );
    if (!signed.ok) throw new LegacyError('TAKER_SIGNATURE_MISMATCH');
    const state = await this.o.catalog.tradingState(marketHash);
    if (!state?.open) throw new LegacyError('MATCH_STATE_INVALID');
    const stake = BigInt(body.stakeWei);
    if (stake < state.minBetSize) throw new LegacyError('TAKER_AMOUNT_TOO_LOW');
    const inFlight = this.fillsInFlight.get(taker) ?? 0;
    if (inFlight >= V2_MAX_FILLS_IN_FLIGHT) throw new LegacyError('META_TX_RATE_LIMIT_REACHED');
    const now = this.o.clock.now();
    // The worst price of the ladder: the slippage rule (applied by the sequencer) decides the real limit.
    const input: OrderInput = {
      marketHash,
      maker: taker,
      totalBetSize: body.stakeWei,
      percentageOdds: tickToOdds(this.ladderSize - 1).toString(),
      salt: body.fillSalt,
      expiry: Math.ceil((now + state.bettingDelayMs) / 1000) + V2_FILL_EXPIRY_SLACK_S,
      baseToken: body.baseToken,
      isMakerBettingOutcomeOne: body.isTakerBettingOutcomeOne,
      timeInForce: 'IOC',
      orderSignature: body.takerSig,
    };
    const ids = new Map([[input, signed.fillHash]]);
    const averageOddsLimit = { desiredOdds: body.desiredOdds, oddsSlippage: body.oddsSlippage };
    this.fillsInFlight.set(taker, inFlight + 1);
    let result: CreateOrderResult;
    try {
      [result] = (await legacyFailures(
        () =>
          this.o.trading.orders.create(
            taker,
            { orders: [input], waitForOutcome: true, maxWaitTime: V2_FILL_WAIT_MS },
            this.signing(ids, taker, { averageOddsLimit }),
          ),
        'TAKER_AMOUNT_TOO_LOW',
      )) as [CreateOrderResult];
    } finally {
      const left = (this.fillsInFlight.get(taker) ?? 1) - 1;
      if (left > 0) this.fillsInFlight.set(taker, left);
      else this.fillsInFlight.delete(taker);
    }
    if (result.status === 'FAILED') {
      if (result.reason === 'ORDER_ALREADY_EXISTS') throw new LegacyError('FILL_ALREADY_SUBMITTED');
      if (result.reason === 'INSUFFICIENT_BALANCE') throw new LegacyError('INSUFFICIENT_SPACE');
      throw new LegacyError('MATCH_STATE_INVALID');
    }
    const outcome = result.outcome;
    if (!outcome || outcome.state === 'TIMEOUT')
      throw unavailable('the fill is still waiting for its match; read it back with GET /trades?bettor=');
    if (outcome.fillAmount === '0') throw new LegacyError('INSUFFICIENT_SPACE');
    return {
      fillHash: signed.fillHash,
      isPartialFill: BigInt(outcome.fillAmount) < stake,
      totalFilled: outcome.fillAmount,
      averageOdds: outcome.blendedOdds,
    };
  }

  // ------------------------------------------------------------------ cancels

  cancelOrders(body: V2CancelOrdersBody) {
    const orderHashes = body.orderHashes.map((h) => h.toLowerCase());
    return this.cancel(
      body,
      { kind: 'orders', orderHashes: body.orderHashes, timestamp: body.timestamp },
      {
        orderIds: [...new Set(orderHashes)],
      },
    );
  }

  cancelEvent(body: V2CancelEventBody) {
    const message = { kind: 'event', sportXeventId: body.sportXeventId, timestamp: body.timestamp } as const;
    return this.cancel(body, message, { eventId: body.sportXeventId });
  }

  cancelAll(body: V2CancelAllBody) {
    return this.cancel(body, { kind: 'all', timestamp: body.timestamp }, { all: true });
  }

  private async cancel(
    body: { signature: string; salt: string; maker: string; timestamp: number },
    message: V2CancelMessage,
    target: { orderIds: readonly string[] } | { eventId: string } | { all: true },
  ) {
    this.assertOrdersOpen();
    const now = this.o.clock.now();
    if (Math.abs(body.timestamp * 1000 - now) > V2_CANCEL_TIMESTAMP_WINDOW_S * 1000)
      throw new LegacyError('STALE_CANCEL_TIMESTAMP');
    const maker = getAddress(body.maker);
    const salt = body.salt.toLowerCase() as `0x${string}`;
    const signer = recoverV2CancelSigner(message, { chainId: this.o.chainId, salt }, body.signature);
    if (!signer.ok || signer.signer !== maker) throw new LegacyError('MAKER_SIGNATURE_MISMATCH');
    if (!this.salts.claim(`${maker}|${salt}`, now)) throw new LegacyError('CANCEL_REQUEST_ALREADY_PROCESSED');
    const [pending] = legacyFailuresSync(() =>
      this.o.trading.sequencer.decideAll([
        { kind: 'cancel', account: maker, target, reason: 'USER_REQUESTED' },
      ]),
    );
    const result = await pending!;
    const cancelled = result.cancel?.cancelled ?? [];
    return {
      cancelledCount: cancelled.length,
      orders: await Promise.all(
        cancelled.map(async (orderHash) => ({
          orderHash,
          pendingFills: await this.pendingFills(maker, orderHash),
        })),
      ),
      notCancelled: (result.cancel?.notFound ?? []).map((orderHash) => ({
        orderHash,
        reason: 'not_found_or_inactive',
      })),
    };
  }

  /** An order's fills not yet carried to the chain (MATCHED): v2's pending fills. */
  private async pendingFills(account: `0x${string}`, orderId: string) {
    await this.o.trading.caughtUpFor(account);
    const fills = await this.o.trading.queries.fills(
      account,
      { orderId },
      { name: 'fills:asc', shape: 'nns', asc: true, keyOf: (f) => [f.createdAt, f.seq, f.id] },
      { limit: 1_000, after: null },
    );
    return fills
      .filter((f) => f.status === 'MATCHED')
      .map((f) => ({ fillHash: f.id, pendingFillAmount: f.fillAmount }));
  }

  // ------------------------------------------------------------------ reads

  /** `GET /orders`: resting orders of the markets, the maker or the ids asked for (v2 and v3 alike: one book). */
  async openOrders(query: {
    marketHashes?: string;
    baseToken?: string;
    maker?: string;
    sportXeventId?: string;
    orderHashes?: string;
  }): Promise<V2OrderRow[]> {
    this.assertOrdersOpen();
    const markets = splitList(query.marketHashes);
    if (markets && query.sportXeventId !== undefined)
      throw new LegacyError('BOTH_SPORTXEVENTID_MARKETHASHES_PRESENT');
    if (markets && markets.length > V2_MAX_ORDER_MARKETS)
      throw new LegacyError('RATE_LIMIT_ORDER_REQUEST_MARKET_COUNT');
    const ids = splitList(query.orderHashes);
    if (!markets && query.maker === undefined && !ids)
      throw new LegacyError('MARKET_HASHES_OR_MAKER_REQUIRED');
    if ([...(markets ?? []), ...(ids ?? [])].some((h) => !HASH.test(h))) throw new LegacyError('BAD_BODY');
    if (query.baseToken !== undefined && !this.isBaseToken(query.baseToken)) return [];
    const { sequencer } = this.o.trading;
    const resting = query.maker
      ? sequencer.accountOrders(getAddress(query.maker))
      : markets
        ? markets.flatMap((m) => sequencer.restingOrders(m))
        : ids!.flatMap((id) => {
            const view = sequencer.restingOrder(id);
            return view ? [view] : [];
          });
    const now = this.o.clock.now();
    const wanted = resting.filter(
      (o) =>
        // A parlay's offers are sealed until its quote window closes (docs/parlays.md).
        !sequencer.offersSealed(o.marketHash, now) &&
        (!markets || markets.includes(o.marketHash)) &&
        (!ids || ids.includes(o.orderId)) &&
        (query.sportXeventId === undefined || o.eventId === query.sportXeventId),
    );
    // Read-your-writes for each maker listed: an order just posted is listed with its signed fields.
    await Promise.all([...new Set(wanted.map((o) => o.account))].map((a) => this.o.trading.caughtUpFor(a)));
    const rows = new Map<string, SignedOrderRecord>();
    for (const r of await this.o.trading.queries.signedOrders(wanted.map((o) => o.orderId)))
      rows.set(r.id, r);
    const out: V2OrderRow[] = [];
    for (const view of wanted) {
      const row = rows.get(view.orderId);
      if (!row) continue; // placed after the projections caught up: listed on the next read
      const pending =
        view.filledSize > 0n
          ? (await this.pendingFills(view.account as `0x${string}`, view.orderId)).reduce(
              (sum, f) => sum + BigInt(f.pendingFillAmount),
              0n,
            )
          : 0n;
      out.push(v2OrderRow(view, row, { executor: this.executorAddress, pendingFillAmount: pending }));
    }
    return out;
  }

  /** `GET /orders/odds/best`: each market's best maker price per outcome. */
  async bestOdds(query: { marketHashes?: string; leagueIds?: string; baseToken: string }) {
    this.assertOrdersOpen();
    const markets = splitList(query.marketHashes);
    const leagues = splitList(query.leagueIds);
    if ((markets === null) === (leagues === null)) throw new LegacyError('BAD_BODY');
    if (markets && (markets.length > V2_MAX_ORDER_MARKETS || !markets.every((h) => HASH.test(h))))
      throw new LegacyError('BAD_BODY');
    if (leagues && (leagues.length > 100 || !leagues.every((id) => /^[1-9][0-9]{0,9}$/.test(id))))
      throw new LegacyError('BAD_BODY');
    if (!this.isBaseToken(query.baseToken)) return { bestOdds: [] };
    let hashes: string[];
    if (markets) hashes = markets;
    else {
      hashes = [];
      for (const leagueId of leagues!) {
        let paginationKey: string | undefined;
        do {
          const page = await this.o.catalog.activeMarkets({
            leagueId: Number(leagueId),
            pageSize: 500,
            ...(paginationKey ? { paginationKey } : {}),
          });
          hashes.push(...page.markets.map((m) => m.marketHash));
          paginationKey = page.nextKey ?? undefined;
        } while (paginationKey);
      }
    }
    const updatedAt = this.o.clock.now();
    const best = (level: { percentageOdds: bigint } | undefined) =>
      level ? { percentageOdds: level.percentageOdds.toString(), updatedAt } : null;
    return {
      bestOdds: hashes.map((marketHash) => {
        const book = this.o.trading.sequencer.publicBook(marketHash, updatedAt, 1);
        return {
          marketHash,
          baseToken: this.o.baseToken,
          outcomeOne: best(book?.outcomeOne[0]),
          outcomeTwo: best(book?.outcomeTwo[0]),
        };
      }),
    };
  }
}

const HASH = /^0x[0-9a-f]{64}$/;

/** A comma-separated list, lower-cased, without repeats; null when absent or empty. */
function splitList(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return null;
  return [...new Set(value.split(',').map((v) => v.trim().toLowerCase()))];
}

function isUint256(value: string): boolean {
  try {
    return BigInt(value) < UINT256_LIMIT;
  } catch {
    return false;
  }
}

function v2Status(result: CreateOrderResult): string {
  if (result.status === 'SUBMITTED') return 'OK';
  return V2_STATUS_OF[result.reason ?? ''] ?? result.reason ?? 'INVALID_MARKET';
}

/** The v3 intake's request-level codes as the v2 API names them. */
const V2_CODE_OF: Partial<Record<ErrorCode, string>> = {
  PROXY_NOT_DEPLOYED: 'PROXY_ACCOUNT_INVALID',
  EXPIRY_INSIDE_BETTING_DELAY: 'INVALID_EXPIRY',
};

/**
 * Runs the shared intake with its request-level 400s answered in the legacy shape (`{status: "failure",
 * errorCode}`); 503 stays 503. `tooLow` names TOTAL_BET_SIZE_TOO_LOW for the route (a taker's is TAKER_AMOUNT_TOO_LOW).
 */
async function legacyFailures<T>(run: () => Promise<T>, tooLow = 'TOTAL_BET_SIZE_TOO_LOW'): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asLegacy(error, tooLow);
  }
}

function legacyFailuresSync<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw asLegacy(error, 'TOTAL_BET_SIZE_TOO_LOW');
  }
}

function asLegacy(error: unknown, tooLow: string): unknown {
  if (!(error instanceof AppError) || error instanceof LegacyError || error.statusCode >= 500) return error;
  const code = error.code === 'TOTAL_BET_SIZE_TOO_LOW' ? tooLow : (V2_CODE_OF[error.code] ?? error.code);
  return new LegacyError(code, error.statusCode);
}
