import { randomUUID } from 'node:crypto';
import {
  type CreateOrderResult,
  type CreateOrdersBody,
  ErrorCode,
  type OrderInput,
  oddsToTick,
} from '@oddsbook/protocol';
import type { CatalogService } from '../catalog/catalog-service.js';
import { isMarketActive, type MarketTradingState } from '../catalog/market-trading.js';
import { type EngineEvent, MAX_ORDER_SIZE, type TimeInForce } from '../engine/index.js';
import { AppError, badRequest, unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { OrderMeta, PlaceOrderInput } from '../sequencer/inputs.js';
import type { CancelIntent, IntentResult, OrderIntent } from '../sequencer/intents.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import type { VerifyResult } from '../signing/order-verifier.js';
import { VerifierBusy, type VerifierPool } from '../signing/verifier-pool.js';
import { outcomeOf } from './outcome.js';
import type { OutcomeWatch } from './outcome-watch.js';

/** What the order path needs of the wallets: the proxy must be deployed before any order is accepted. */
export interface ProxyWallets {
  /** May answer synchronously (a deployed proxy stays deployed). */
  isDeployed(account: `0x${string}`): boolean | Promise<boolean>;
}

export const WAIT_FOR_OUTCOME = { defaultMs: 10_000, maxMs: 15_000 } as const;
export const CANCEL_CONFIRMATION_TIMEOUT_MS = 5_000;
const EXPIRY_SLACK_MS = 2_000;
/** A quarter-line market whose legs no longer both trade: its orders fail MARKET_INACTIVE. */
const UNOPENABLE = 'unopenable' as const;
/** Ten years: an expiry beyond this is almost certainly milliseconds sent as seconds. */
const MAX_EXPIRY_HORIZON_S = 10 * 365 * 24 * 3600;

type Candidate = {
  index: number;
  input: OrderInput;
  /** The wire values parsed once: lower-cased hash, bigint odds and size. */
  marketHash: string;
  percentageOdds: bigint;
  totalBetSize: bigint;
  state: MarketTradingState | null;
  tick: number | null;
  orderId?: `0x${string}`;
};

export type OrderServiceOptions = {
  /** The owner of trading state: every decision that needs it is an intent (`sequencer/intents.ts`). */
  sequencer: Pick<Sequencer, 'decideAll'>;
  catalog: CatalogService;
  wallets: ProxyWallets;
  verifier: VerifierPool;
  clock: Clock;
  baseToken: `0x${string}`;
  ladderSize: number;
  /** The outcomes of admitted orders, decided in later batches (`waitForOutcome` during a betting delay). */
  outcomes: OutcomeWatch;
  /**
   * Orders between their signature check and their commit at most: the work admitted ahead of the
   * sequencer. A request that would go past it is refused whole with 503 at once. Default unbounded.
   */
  maxPendingOrders?: number;
};

/** The orders a request holds of the `maxPendingOrders` bound, given back once (after the commit). */
type Hold = { count: number };

/**
 * How an intake's orders are signed and identified: by default the v3 EIP-712 `Order` (the verifier pool);
 * the legacy v2 API (`legacy/`) brings its own (personal_sign order hashes, EIP-712 fills) and marks its
 * orders' meta. Everything after the signature is the same path, to the same sequencer and books.
 */
export type OrderSigning = {
  /** The order's id without checking its signature (an order refused before the check still has one). */
  orderId(input: OrderInput): `0x${string}` | null;
  verifyBatch(inputs: readonly OrderInput[]): Promise<VerifyResult[]>;
  /** What the orders' meta carries besides the common fields. */
  meta?(input: OrderInput): Pick<OrderMeta, 'api' | 'averageOddsLimit'>;
};

/**
 * Intake of the order path (issue 35): stateless. Request-level 400s, per-order FAILED reasons from the
 * catalog and the signatures, then one intent per order to the sequencer, which decides everything that needs
 * trading state (uniqueness, the market's first order, the betting delay, funds). Cancels likewise.
 */
export class OrderService {
  private readonly o: OrderServiceOptions;
  private closed = false;
  /** Orders held of `maxPendingOrders` now. */
  private pendingOrders = 0;
  private readonly stepSize: number;
  private readonly baseTokenLower: string;

  constructor(options: OrderServiceOptions) {
    this.o = options;
    this.stepSize = 100_000 / options.ladderSize;
    this.baseTokenLower = options.baseToken.toLowerCase();
  }

  /** Whether new orders are refused now (503): `maxPendingOrders` orders are between check and commit. */
  get saturated(): boolean {
    return this.pendingOrders >= (this.o.maxPendingOrders ?? Number.POSITIVE_INFINITY);
  }

  private release(hold: Hold): void {
    this.pendingOrders -= hold.count;
    hold.count = 0;
  }

  close(): void {
    this.closed = true;
  }

  // ------------------------------------------------------------------ create

  /** The v3 orders' signing: EIP-712 `Order`, checked on the verifier pool. */
  private readonly v3Signing: OrderSigning = {
    orderId: (input) => this.o.verifier.orderId(input),
    verifyBatch: (inputs) =>
      this.o.verifier.verifyBatch(inputs.map((order) => ({ order, signature: order.orderSignature }))),
  };

  /**
   * `POST /orders-v3`, and the legacy API's orders with their own `signing`: request-level 400s, per-order
   * FAILED reasons, then one intent per order to the sequencer.
   */
  async create(
    account: `0x${string}`,
    body: CreateOrdersBody,
    signing: OrderSigning = this.v3Signing,
  ): Promise<CreateOrderResult[]> {
    const hold: Hold = { count: 0 };
    try {
      return await this.admit(account, body, hold, signing);
    } finally {
      this.release(hold);
    }
  }

  private async admit(
    account: `0x${string}`,
    body: CreateOrdersBody,
    hold: Hold,
    signing: OrderSigning,
  ): Promise<CreateOrderResult[]> {
    const started = this.o.clock.now();
    const inputs = body.orders;
    const accountLower = account.toLowerCase();
    const maker = inputs[0]!.maker.toLowerCase();
    for (let i = 1; i < inputs.length; i++) {
      if (inputs[i]!.maker.toLowerCase() !== maker)
        throw badRequest('ORDERS_MUST_SHARE_ONE_MAKER', 'all orders of a request must have one maker');
    }
    if (maker !== accountLower) {
      throw badRequest('MAKER_NOT_AUTHENTICATED', 'maker must be the address of the API key’s account');
    }
    // Synchronous once the proxy is known to be deployed: no await on the common path.
    const deployed = this.o.wallets.isDeployed(account);
    if (!(typeof deployed === 'boolean' ? deployed : await deployed)) {
      throw badRequest(
        ErrorCode.PROXY_NOT_DEPLOYED,
        'deploy the proxy wallet (POST /user/deploy-proxy) before trading',
      );
    }

    const results: CreateOrderResult[] = new Array(inputs.length);
    for (let index = 0; index < inputs.length; index++) {
      const clientOrderId = inputs[index]!.clientOrderId;
      results[index] = clientOrderId
        ? { orderId: null, status: 'FAILED', clientOrderId }
        : { orderId: null, status: 'FAILED' };
    }
    const candidates: Candidate[] = new Array(inputs.length);
    for (let index = 0; index < inputs.length; index++) {
      const input = inputs[index]!;
      const marketHash = input.marketHash.toLowerCase();
      const percentageOdds = BigInt(input.percentageOdds);
      candidates[index] = {
        index,
        input,
        marketHash,
        percentageOdds,
        totalBetSize: BigInt(input.totalBetSize),
        state:
          this.o.catalog.cachedTradingState(marketHash) ?? (await this.o.catalog.tradingState(marketHash)),
        tick: oddsToTick(percentageOdds, this.stepSize),
      };
    }
    this.checkRequestLevel(candidates, started);

    const fail = (c: Candidate, reason: string) => {
      results[c.index] = { ...results[c.index]!, status: 'FAILED', reason };
    };
    const eligible = candidates.filter((c) => {
      const reason = this.perOrderFailure(c);
      if (!reason) return true;
      // Refused before verification, yet its id is known to the client: a hash, no signature recovery.
      results[c.index]!.orderId = signing.orderId(c.input);
      fail(c, reason);
      return false;
    });

    if (this.pendingOrders + eligible.length > (this.o.maxPendingOrders ?? Number.POSITIVE_INFINITY)) {
      throw unavailable(
        `${this.pendingOrders} orders already wait for their check and commit; retry shortly`,
      );
    }
    this.pendingOrders += eligible.length;
    hold.count = eligible.length;
    const verified = await signing.verifyBatch(eligible.map((c) => c.input)).catch((error: unknown) => {
      if (error instanceof VerifierBusy)
        throw unavailable('Too many orders wait for a signature check; retry shortly');
      throw error;
    });
    const signed = eligible.filter((c, i) => {
      const v = verified[i]!;
      if (v.orderId) results[c.index]!.orderId = v.orderId;
      if (!v.ok) fail(c, v.code);
      else if (v.signer.toLowerCase() !== accountLower) fail(c, 'SIGNATURE_MISMATCH');
      else c.orderId = v.orderId;
      return v.ok && c.orderId !== undefined;
    });
    // A quarter-line market opens with its legs: only while both still trade (a resolved leg never reopens).
    const legsOf = new Map<string, readonly [string, string] | null | typeof UNOPENABLE>();
    for (const c of signed) {
      const market = c.state!.market;
      if (legsOf.has(market.marketHash)) continue;
      const legs = market.quarterLineLegs;
      const active =
        legs !== null && (await this.o.catalog.findMarkets(legs)).filter(isMarketActive).length === 2;
      legsOf.set(market.marketHash, legs === null ? null : active ? legs : UNOPENABLE);
    }
    if (this.closed) throw unavailable('The exchange is shutting down; retry later');

    const accepted: { c: Candidate; intent: OrderIntent }[] = [];
    for (const c of signed) {
      const state = c.state!;
      const legs = legsOf.get(state.market.marketHash)!;
      if (legs === UNOPENABLE) {
        fail(c, 'MARKET_INACTIVE');
        continue;
      }
      const order: PlaceOrderInput = {
        type: 'place',
        orderId: c.orderId!,
        account,
        marketHash: c.marketHash,
        isBettingOutcomeOne: c.input.isMakerBettingOutcomeOne,
        percentageOdds: c.percentageOdds,
        totalBetSize: c.totalBetSize,
        expiry: c.input.expiry,
        timeInForce: c.input.timeInForce as TimeInForce,
      };
      const meta: OrderMeta = {
        commandId: randomUUID(),
        eventId: state.market.eventId,
        clientOrderId: c.input.clientOrderId ?? null,
        salt: c.input.salt,
        baseToken: this.o.baseToken,
        signature: c.input.orderSignature,
        ...signing.meta?.(c.input),
      };
      accepted.push({
        c,
        intent: {
          kind: 'order',
          order,
          meta,
          market: { eventId: state.market.eventId, legs },
          bettingDelayMs: state.live ? state.bettingDelayMs : 0,
        },
      });
    }
    if (accepted.length === 0) return results;

    const pending = this.o.sequencer.decideAll(accepted.map((a) => a.intent));
    let decided: IntentResult[];
    try {
      decided = await Promise.all(pending);
    } finally {
      this.release(hold);
    }
    const waitMs = Math.min(body.maxWaitTime ?? WAIT_FOR_OUTCOME.defaultMs, WAIT_FOR_OUTCOME.maxMs);
    const remaining = Math.max(0, started + waitMs - this.o.clock.now());
    await Promise.all(
      accepted.map(async ({ c, intent }, i) => {
        const { order, meta } = intent;
        const result = decided[i]!;
        const base = meta.clientOrderId ? { clientOrderId: meta.clientOrderId } : {};
        if (result.order?.status === 'refused') {
          results[c.index] = {
            orderId: order.orderId,
            status: 'FAILED',
            reason: result.order.reason,
            ...base,
          };
          return;
        }
        // Refused by the engine (INSUFFICIENT_BALANCE, a market closed meanwhile): FAILED with the commandId of
        // its journaled create (its INACTIVE row carries it too).
        const last = result.entries[result.entries.length - 1]!;
        const refused = result.order?.status === 'placed' ? rejectionOf(order.orderId, last.events) : null;
        const answer: CreateOrderResult = {
          orderId: order.orderId,
          status: refused ? 'FAILED' : 'SUBMITTED',
          commandId: meta.commandId,
          ...base,
        };
        if (refused) answer.reason = refused;
        else if (body.waitForOutcome) {
          const outcome =
            result.order?.status === 'admitted'
              ? await this.o.outcomes.wait(order.orderId, order.totalBetSize, remaining)
              : outcomeOf(order.orderId, order.totalBetSize, last.events);
          if (outcome) answer.outcome = outcome;
        }
        results[c.index] = answer;
      }),
    );
    return results;
  }

  /** The spec's 400s: expiry rules and the market minimum. One bad order refuses the whole request. */
  private checkRequestLevel(candidates: readonly Candidate[], now: number): void {
    for (const { input, state, totalBetSize } of candidates) {
      if (input.expiry === 0)
        throw badRequest('INVALID_EXPIRY', 'expiry 0 is rejected: send a future unix time in seconds');
      if (input.expiry > Math.floor(now / 1000) + MAX_EXPIRY_HORIZON_S) {
        throw badRequest('INVALID_EXPIRY', 'expiry must be unix seconds, not milliseconds');
      }
      if (input.expiry * 1000 <= now) throw badRequest('INVALID_EXPIRY', 'expiry must be in the future');
      if (!state) continue;
      if (input.expiry * 1000 <= now + state.bettingDelayMs + EXPIRY_SLACK_MS) {
        throw badRequest(
          'EXPIRY_INSIDE_BETTING_DELAY',
          `expiry must be later than now + the betting delay (${state.bettingDelayMs} ms) + 2 s`,
        );
      }
      if (totalBetSize < state.minBetSize) {
        throw new AppError({
          code: ErrorCode.TOTAL_BET_SIZE_TOO_LOW,
          statusCode: 400,
          body: {
            message: ErrorCode.TOTAL_BET_SIZE_TOO_LOW,
            marketHash: state.market.marketHash,
            minimum: state.minBetSize.toString(),
          },
        });
      }
    }
  }

  private perOrderFailure(c: Candidate): string | null {
    if (!c.state) return 'MARKET_NOT_FOUND';
    if (!c.state.open) return c.state.closedReason ?? 'MARKET_INACTIVE';
    if (c.input.baseToken.toLowerCase() !== this.baseTokenLower) return 'BAD_BASE_TOKEN';
    if (c.tick === null) return 'ODDS_NOT_ON_LADDER';
    if (c.totalBetSize > MAX_ORDER_SIZE) return 'TOTAL_BET_SIZE_TOO_HIGH';
    return null;
  }

  // ------------------------------------------------------------------ cancels

  /** `DELETE /orders-v3`: answered once committed, or after the 5 s confirmation timeout. */
  async cancelByIds(account: `0x${string}`, orderIds: readonly string[]) {
    const ids = [...new Set(orderIds.map((id) => id.toLowerCase()))];
    const commandId = randomUUID();
    const [pending] = this.o.sequencer.decideAll([
      { kind: 'cancel', account, target: { orderIds: ids }, reason: 'USER_REQUESTED' },
    ]);
    const result = await withTimeout(pending!, CANCEL_CONFIRMATION_TIMEOUT_MS);
    if (!result?.cancel) {
      return {
        cancelled: [],
        notCancelled: [],
        unconfirmed: ids.map((orderId) => ({ orderId, reason: 'CONFIRMATION_TIMEOUT' })),
      };
    }
    return {
      cancelled: result.cancel.cancelled.map((orderId) => ({ orderId, commandId })),
      notCancelled: result.cancel.notFound.map((orderId) => ({ orderId, reason: 'NOT_FOUND' })),
      unconfirmed: [],
    };
  }

  /**
   * `DELETE /orders-v3/market`: every open order of the account on one market. When the cancel cannot be
   * handed to the order book (the sequencer refuses or fails it), 500 CANCEL_NOT_PUBLISHED, as the spec's table says.
   */
  async cancelMarket(account: `0x${string}`, marketHash: string) {
    try {
      return await this.cancelTarget(account, { marketHash: marketHash.toLowerCase() });
    } catch (error) {
      throw new AppError({
        code: ErrorCode.CANCEL_NOT_PUBLISHED,
        statusCode: 500,
        message: 'the cancel commands could not be published to the order book; nothing was cancelled',
        cause: error,
      });
    }
  }

  /** `DELETE /orders-v3/event`: every open order of the account on the event's markets. */
  cancelEvent(account: `0x${string}`, eventId: string) {
    return this.cancelTarget(account, { eventId });
  }

  /** `DELETE /orders-v3/all`: every open order of the account. */
  cancelAll(account: `0x${string}`) {
    return this.cancelTarget(account, { all: true });
  }

  private async cancelTarget(account: `0x${string}`, target: CancelIntent['target']) {
    const commandId = randomUUID();
    const [pending] = this.o.sequencer.decideAll([
      { kind: 'cancel', account, target, reason: 'USER_REQUESTED' },
    ]);
    const result = await pending!;
    return {
      cancelledSubmitted: (result.cancel?.cancelled ?? []).map((orderId) => ({ orderId, commandId })),
      hasMore: false,
    };
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The code the engine refused an order's place with, or null when it took the order. */
function rejectionOf(orderId: string, events: readonly EngineEvent[]): string | null {
  for (const e of events) if (e.type === 'orderRejected' && e.orderId === orderId) return e.code;
  return null;
}
