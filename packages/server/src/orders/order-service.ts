import { randomUUID } from 'node:crypto';
import {
  type CreateOrderResult,
  type CreateOrdersBody,
  ErrorCode,
  type OrderInput,
  type OrderOutcome,
  oddsToTick,
} from '@oddsbook/protocol';
import type { CatalogService } from '../catalog/catalog-service.js';
import type { MarketTradingState } from '../catalog/market-trading.js';
import { type EngineEvent, MAX_ORDER_SIZE, type TimeInForce } from '../engine/index.js';
import { AppError, badRequest, unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput, SequencerInput } from '../sequencer/inputs.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { VerifierBusy, type VerifierPool } from '../signing/verifier-pool.js';
import type { MarketView } from '../store/repositories.js';
import { outcomeOf, timeoutOutcome, withdrawnOutcome } from './outcome.js';

/** What the order path needs of the wallets: the proxy must be deployed before any order is accepted. */
export interface ProxyWallets {
  /** May answer synchronously (a deployed proxy stays deployed). */
  isDeployed(account: `0x${string}`): boolean | Promise<boolean>;
}

/** Committed-state lookups the order path needs (orders table). */
export interface OrderLookups {
  orderExists(orderId: string): boolean;
  clientOrderIdTaken(account: string, clientOrderId: string): boolean;
  /** Admitted orders still waiting out a betting delay (for restart). */
  delayedOrders(): { order: PlaceOrderInput; meta: OrderMeta; activateAt: number }[];
}

export const WAIT_FOR_OUTCOME = { defaultMs: 10_000, maxMs: 15_000 } as const;
export const CANCEL_CONFIRMATION_TIMEOUT_MS = 5_000;
/** Cancel-by-market submits at most this many orders per call; `hasMore` says to call again. */
export const CANCEL_MARKET_BATCH = 1_000;
const EXPIRY_SLACK_MS = 2_000;
/** Ten years: an expiry beyond this is almost certainly milliseconds sent as seconds. */
const MAX_EXPIRY_HORIZON_S = 10 * 365 * 24 * 3600;

type DelayedOrder = {
  order: PlaceOrderInput;
  meta: OrderMeta;
  activateAt: number;
  timer: NodeJS.Timeout;
  waiters: ((outcome: OrderOutcome) => void)[];
};

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

/** What opening a catalog market in the engine needs to know of it. */
export type MarketToOpen = Pick<MarketView, 'marketHash' | 'eventId' | 'quarterLineLegs'>;

export type OrderServiceOptions = {
  sequencer: Sequencer;
  catalog: CatalogService;
  wallets: ProxyWallets;
  lookups: OrderLookups;
  verifier: VerifierPool;
  clock: Clock;
  baseToken: `0x${string}`;
  ladderSize: number;
  /**
   * Opens a catalog market in the engine on its first order (a quarter-line market after its legs); false
   * when it cannot be (a leg no longer trades): its orders fail MARKET_INACTIVE.
   */
  openMarket: (market: MarketToOpen) => Promise<boolean>;
  /**
   * Null when the lookups see every order answered so far, else a promise of it (the projections follow
   * the answers: trading/pipeline.ts). Default: they always do.
   */
  lookupsCaughtUp?: () => Promise<void> | null;
  /**
   * Orders between their signature check and their commit at most: the work admitted ahead of the
   * sequencer. A request that would go past it is refused whole with 503 at once. Default unbounded.
   */
  maxPendingOrders?: number;
};

/** The orders a request holds of the `maxPendingOrders` bound, given back once (after the commit). */
type Hold = { count: number };

/**
 * The order path: admission (request-level 400s, per-order FAILED reasons, signatures), submission to
 * the sequencer, in-play betting delays, outcomes for `waitForOutcome`, and cancels.
 */
export class OrderService {
  private readonly o: OrderServiceOptions;
  /** Ids queued in the sequencer but not yet committed, so a concurrent replay is refused too. */
  private readonly inflightOrderIds = new Set<string>();
  private readonly inflightClientIds = new Set<string>();
  private readonly delayed = new Map<string, DelayedOrder>();
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

  /** Re-arms the betting-delay timers of admitted orders after a restart. */
  resumeDelayedOrders(): number {
    const rows = this.o.lookups.delayedOrders();
    for (const row of rows) this.schedule(row.order, row.meta, row.activateAt);
    return rows.length;
  }

  get delayedCount(): number {
    return this.delayed.size;
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
    for (const d of this.delayed.values()) clearTimeout(d.timer);
  }

  // ------------------------------------------------------------------ create

  async create(account: `0x${string}`, body: CreateOrdersBody): Promise<CreateOrderResult[]> {
    const hold: Hold = { count: 0 };
    try {
      return await this.admit(account, body, hold);
    } finally {
      this.release(hold);
    }
  }

  private async admit(
    account: `0x${string}`,
    body: CreateOrdersBody,
    hold: Hold,
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
      results[c.index]!.orderId = this.o.verifier.orderId(c.input);
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
    const verified = await this.o.verifier
      .verifyBatch(eligible.map((c) => ({ order: c.input, signature: c.input.orderSignature })))
      .catch((error: unknown) => {
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
    // Each market once, in order of first appearance; one the engine already has needs no await.
    let unopened: Set<string> | null = null;
    for (let i = 0; i < signed.length; i++) {
      const market = signed[i]!.state!.market;
      if (this.o.sequencer.engine.market(market.marketHash)) continue;
      let seen = false;
      for (let j = 0; j < i && !seen; j++) seen = signed[j]!.state!.market.marketHash === market.marketHash;
      if (!seen && !(await this.o.openMarket(market))) {
        unopened ??= new Set();
        unopened.add(market.marketHash);
      }
    }
    // An order answered while this request was verified has left the in-flight sets: the lookups must see
    // it before the uniqueness checks (its row is written by the projector after the answer).
    const caughtUp = this.o.lookupsCaughtUp?.();
    if (caughtUp) await caughtUp;
    if (this.closed) throw unavailable('The exchange is shutting down; retry later');

    // From here to submitAll nothing awaits, so the uniqueness checks and the queueing are atomic.
    // A request holds at most 10 orders: its own duplicates are found by scanning what it accepted.
    const accepted: { c: Candidate; input: SequencerInput; order: PlaceOrderInput; meta: OrderMeta }[] = [];
    for (const c of signed) {
      const orderId = c.orderId!;
      if (unopened?.has(c.state!.market.marketHash)) {
        fail(c, 'MARKET_INACTIVE');
        continue;
      }
      const clientOrderId = c.input.clientOrderId;
      if (
        accepted.some((a) => a.order.orderId === orderId) ||
        this.inflightOrderIds.has(orderId) ||
        this.delayed.has(orderId) ||
        this.o.sequencer.engine.order(orderId) ||
        this.o.lookups.orderExists(orderId)
      ) {
        fail(c, 'ORDER_ALREADY_EXISTS');
        continue;
      }
      if (
        clientOrderId &&
        (accepted.some((a) => a.meta.clientOrderId === clientOrderId) ||
          this.inflightClientIds.has(`${account}:${clientOrderId}`) ||
          this.o.lookups.clientOrderIdTaken(account, clientOrderId))
      ) {
        fail(c, 'DUPLICATE_CLIENT_ORDER_ID');
        continue;
      }
      const order: PlaceOrderInput = {
        type: 'place',
        orderId,
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
        eventId: c.state!.market.eventId,
        clientOrderId: clientOrderId ?? null,
        salt: c.input.salt,
        baseToken: this.o.baseToken,
        signature: c.input.orderSignature,
      };
      const delayMs = this.bettingDelayFor(c, order);
      const input: SequencerInput =
        delayMs > 0
          ? { kind: 'admit', order, meta, activateAt: started + delayMs }
          : { kind: 'engine', command: order, meta };
      accepted.push({ c, input, order, meta });
    }
    if (accepted.length === 0) return results;

    const pending = this.o.sequencer.submitAll(accepted.map((a) => a.input));
    const waitMs = Math.min(body.maxWaitTime ?? WAIT_FOR_OUTCOME.defaultMs, WAIT_FOR_OUTCOME.maxMs);
    let delayedOutcomes: Map<string, Promise<OrderOutcome>> | null = null;
    for (const a of accepted) {
      this.inflightOrderIds.add(a.order.orderId);
      if (a.meta.clientOrderId) this.inflightClientIds.add(`${account}:${a.meta.clientOrderId}`);
      // Admitted orders join the delay queue now, so a cancel arriving before the commit finds them.
      if (a.input.kind === 'admit') {
        this.schedule(a.order, a.meta, a.input.activateAt);
        if (body.waitForOutcome) {
          delayedOutcomes ??= new Map();
          delayedOutcomes.set(a.order.orderId, this.waitForDelayed(a.order, started + waitMs));
        }
      }
    }
    let entries: AppliedEntry[];
    try {
      entries = await Promise.all(pending);
    } finally {
      this.release(hold);
      for (const a of accepted) {
        this.inflightOrderIds.delete(a.order.orderId);
        if (a.meta.clientOrderId) this.inflightClientIds.delete(`${account}:${a.meta.clientOrderId}`);
      }
    }
    const resolved = body.waitForOutcome
      ? await Promise.all(
          accepted.map(
            (a, i) =>
              delayedOutcomes?.get(a.order.orderId) ??
              outcomeOf(a.order.orderId, a.order.totalBetSize, entries[i]!.events) ??
              undefined,
          ),
        )
      : null;
    for (let i = 0; i < accepted.length; i++) {
      const a = accepted[i]!;
      // Refused by the sequencer (e.g. INSUFFICIENT_BALANCE, or the market closed meanwhile): FAILED, with the
      // commandId of its journaled create (its INACTIVE row carries it too).
      const refused = a.input.kind === 'engine' ? rejectionOf(a.order.orderId, entries[i]!.events) : null;
      const result: CreateOrderResult = {
        orderId: a.order.orderId,
        status: refused ? 'FAILED' : 'SUBMITTED',
        commandId: a.meta.commandId,
      };
      if (a.meta.clientOrderId) result.clientOrderId = a.meta.clientOrderId;
      if (refused) result.reason = refused;
      const outcome = resolved?.[i];
      if (outcome && !refused) result.outcome = outcome;
      results[a.c.index] = result;
    }
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

  /**
   * In play, an order that would take liquidity waits the betting delay before it matches: IOC and FOK
   * always, GTC when it crosses the book on arrival. A GTC that only rests posts at once.
   */
  private bettingDelayFor(c: Candidate, order: PlaceOrderInput): number {
    const state = c.state!;
    if (!state.live || state.bettingDelayMs <= 0) return 0;
    if (order.timeInForce !== 'GTC') return state.bettingDelayMs;
    const opposite = this.o.sequencer.engine.bestTick(order.marketHash, !order.isBettingOutcomeOne);
    return opposite > 0 && c.tick! + opposite >= this.o.ladderSize ? state.bettingDelayMs : 0;
  }

  // ------------------------------------------------------------------ betting delay

  private schedule(order: PlaceOrderInput, meta: OrderMeta, activateAt: number): void {
    const existing = this.delayed.get(order.orderId);
    const waiters = existing?.waiters ?? [];
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => void this.activate(order.orderId),
      Math.max(0, activateAt - this.o.clock.now()),
    );
    this.delayed.set(order.orderId, { order, meta, activateAt, timer, waiters });
  }

  /** Resolves with the order's outcome once it leaves the delay queue, or TIMEOUT at `deadline`. */
  private waitForDelayed(order: PlaceOrderInput, deadline: number): Promise<OrderOutcome> {
    return new Promise((resolve) => {
      const timeout = setTimeout(
        () => resolve(timeoutOutcome(order.totalBetSize)),
        Math.max(0, deadline - this.o.clock.now()),
      );
      this.delayed.get(order.orderId)?.waiters.push((outcome) => {
        clearTimeout(timeout);
        resolve(outcome);
      });
    });
  }

  private async activate(orderId: string): Promise<void> {
    const d = this.delayed.get(orderId);
    if (!d || this.closed) return;
    this.delayed.delete(orderId);
    try {
      const entry = await this.o.sequencer.submit({ kind: 'engine', command: d.order, meta: d.meta });
      const outcome = outcomeOf(orderId, d.order.totalBetSize, entry.events);
      if (outcome) for (const w of d.waiters) w(outcome);
    } catch {
      // The sequencer stopped: the order stays PENDING in the journal and is re-armed at the next start.
    }
  }

  /** Removes admitted orders from the delay queue; the caller journals the withdrawal. */
  private takeDelayed(filter: (d: DelayedOrder) => boolean): DelayedOrder[] {
    const taken: DelayedOrder[] = [];
    for (const [id, d] of this.delayed) {
      if (!filter(d)) continue;
      clearTimeout(d.timer);
      this.delayed.delete(id);
      taken.push(d);
    }
    return taken;
  }

  // ------------------------------------------------------------------ cancels

  /** `DELETE /orders-v3`: synchronous, answered once committed or after the 5 s confirmation timeout. */
  async cancelByIds(account: `0x${string}`, orderIds: readonly string[]) {
    const ids = [...new Set(orderIds.map((id) => id.toLowerCase()))];
    const notCancelled: { orderId: string; reason: string }[] = [];
    const inputs: { orderId: string; commandId: string; input: SequencerInput }[] = [];
    const withdrawnOrders = this.takeDelayed(
      (d) => d.order.account === account && ids.includes(d.order.orderId),
    );
    notifyWithdrawn(withdrawnOrders, 'USER_REQUESTED');
    const withdrawn = new Set(withdrawnOrders.map((d) => d.order.orderId));
    for (const orderId of ids) {
      const commandId = randomUUID();
      if (withdrawn.has(orderId)) {
        inputs.push({
          orderId,
          commandId,
          input: { kind: 'withdraw', orderIds: [orderId], reason: 'USER_REQUESTED' },
        });
      } else if (this.o.sequencer.engine.order(orderId)?.account === account) {
        inputs.push({
          orderId,
          commandId,
          input: {
            kind: 'engine',
            command: { type: 'cancel', orderIds: [orderId], account, reason: 'USER_REQUESTED' },
          },
        });
      } else {
        notCancelled.push({ orderId, reason: 'NOT_FOUND' });
      }
    }
    const cancelled: { orderId: string; commandId: string }[] = [];
    const unconfirmed: { orderId: string; reason: string }[] = [];
    if (inputs.length > 0) {
      const pending = this.o.sequencer.submitAll(inputs.map((i) => i.input));
      const settled = await withTimeout(Promise.all(pending), CANCEL_CONFIRMATION_TIMEOUT_MS);
      inputs.forEach((item, i) => {
        if (!settled) unconfirmed.push({ orderId: item.orderId, reason: 'CONFIRMATION_TIMEOUT' });
        else if (item.input.kind === 'withdraw' || isCancelled(settled[i]!.events, item.orderId)) {
          cancelled.push({ orderId: item.orderId, commandId: item.commandId });
        } else notCancelled.push({ orderId: item.orderId, reason: 'NOT_FOUND' });
      });
    }
    return { cancelled, notCancelled, unconfirmed };
  }

  /** `DELETE /orders-v3/market`: every open order of the account on one market, in batches. */
  async cancelMarket(account: `0x${string}`, marketHash: string) {
    const hash = marketHash.toLowerCase();
    const delayed = this.takeDelayed((d) => d.order.account === account && d.order.marketHash === hash);
    const resting = this.o.sequencer.engine.openOrders(account).filter((o) => o.marketHash === hash);
    const batch = resting.slice(0, CANCEL_MARKET_BATCH);
    return this.submitCancels(
      account,
      delayed,
      batch.map((o) => o.orderId),
      resting.length > batch.length,
    );
  }

  /** `DELETE /orders-v3/event`: every open order of the account on the event's markets. */
  async cancelEvent(account: `0x${string}`, eventId: string) {
    const delayed = this.takeDelayed((d) => d.order.account === account && d.meta.eventId === eventId);
    const resting = this.o.sequencer.engine.openOrders(account).filter((o) => o.eventId === eventId);
    return this.submitCancels(
      account,
      delayed,
      resting.map((o) => o.orderId),
      false,
    );
  }

  /** `DELETE /orders-v3/all` and the heartbeat: every open order of the account. */
  async cancelAll(account: `0x${string}`, reason: 'USER_REQUESTED' | 'HEARTBEAT_TIMEOUT' = 'USER_REQUESTED') {
    const delayed = this.takeDelayed((d) => d.order.account === account);
    const resting = this.o.sequencer.engine.openOrders(account).map((o) => o.orderId);
    return this.submitCancels(account, delayed, resting, false, reason);
  }

  private async submitCancels(
    account: `0x${string}`,
    delayed: readonly DelayedOrder[],
    restingIds: readonly string[],
    hasMore: boolean,
    reason: 'USER_REQUESTED' | 'HEARTBEAT_TIMEOUT' = 'USER_REQUESTED',
  ) {
    const commandId = randomUUID();
    const inputs: SequencerInput[] = [];
    const delayedIds = delayed.map((d) => d.order.orderId);
    if (delayedIds.length) inputs.push({ kind: 'withdraw', orderIds: delayedIds, reason });
    if (restingIds.length)
      inputs.push({ kind: 'engine', command: { type: 'cancel', orderIds: restingIds, account, reason } });
    notifyWithdrawn(delayed, reason);
    if (inputs.length) await Promise.all(this.o.sequencer.submitAll(inputs));
    return {
      cancelledSubmitted: [...delayedIds, ...restingIds].map((orderId) => ({ orderId, commandId })),
      hasMore,
    };
  }
}

function notifyWithdrawn(orders: readonly DelayedOrder[], reason: string): void {
  for (const d of orders) for (const w of d.waiters) w(withdrawnOutcome(d.order.totalBetSize, reason));
}

function isCancelled(events: readonly EngineEvent[], orderId: string): boolean {
  return events.some((e) => e.type === 'orderDone' && e.orderId === orderId);
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
