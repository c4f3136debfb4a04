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
import type { VerifierPool } from '../signing/verifier-pool.js';
import { outcomeOf, timeoutOutcome, withdrawnOutcome } from './outcome.js';

/** What the order path needs of the wallets: the proxy must be deployed before any order is accepted. */
export interface ProxyWallets {
  isDeployed(account: `0x${string}`): Promise<boolean>;
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
  state: MarketTradingState | null;
  tick: number | null;
  orderId?: `0x${string}`;
};

export type OrderServiceOptions = {
  sequencer: Sequencer;
  catalog: CatalogService;
  wallets: ProxyWallets;
  lookups: OrderLookups;
  verifier: VerifierPool;
  clock: Clock;
  baseToken: `0x${string}`;
  ladderSize: number;
  /** Opens a catalog market in the engine on its first order. */
  openMarket: (marketHash: string, eventId: string) => Promise<void>;
};

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

  constructor(options: OrderServiceOptions) {
    this.o = options;
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

  close(): void {
    this.closed = true;
    for (const d of this.delayed.values()) clearTimeout(d.timer);
  }

  // ------------------------------------------------------------------ create

  async create(account: `0x${string}`, body: CreateOrdersBody): Promise<CreateOrderResult[]> {
    const started = this.o.clock.now();
    const makers = new Set(body.orders.map((o) => o.maker.toLowerCase()));
    if (makers.size > 1)
      throw badRequest('ORDERS_MUST_SHARE_ONE_MAKER', 'all orders of a request must have one maker');
    if (body.orders[0]!.maker.toLowerCase() !== account.toLowerCase()) {
      throw badRequest('MAKER_NOT_AUTHENTICATED', 'maker must be the address of the API key’s account');
    }
    if (!(await this.o.wallets.isDeployed(account))) {
      throw badRequest(
        ErrorCode.PROXY_NOT_DEPLOYED,
        'deploy the proxy wallet (POST /user/deploy-proxy) before trading',
      );
    }

    const results: CreateOrderResult[] = body.orders.map((o) => ({
      orderId: null,
      status: 'FAILED',
      ...(o.clientOrderId ? { clientOrderId: o.clientOrderId } : {}),
    }));
    const candidates: Candidate[] = [];
    for (const [index, input] of body.orders.entries()) {
      const marketHash = input.marketHash.toLowerCase();
      candidates.push({
        index,
        input,
        state:
          this.o.catalog.cachedTradingState(marketHash) ?? (await this.o.catalog.tradingState(marketHash)),
        tick: oddsToTick(BigInt(input.percentageOdds), 100_000 / this.o.ladderSize),
      });
    }
    this.checkRequestLevel(candidates, started);

    const fail = (c: Candidate, reason: string) => {
      results[c.index] = { ...results[c.index]!, status: 'FAILED', reason };
    };
    const eligible = candidates.filter((c) => {
      const reason = this.perOrderFailure(c);
      if (reason) fail(c, reason);
      return !reason;
    });

    const verified = await this.o.verifier.verifyBatch(
      eligible.map((c) => ({ order: c.input, signature: c.input.orderSignature })),
    );
    const signed = eligible.filter((c, i) => {
      const v = verified[i]!;
      if (v.orderId) results[c.index]!.orderId = v.orderId;
      if (!v.ok) fail(c, v.code);
      else if (v.signer.toLowerCase() !== account.toLowerCase()) fail(c, 'SIGNATURE_MISMATCH');
      else c.orderId = v.orderId;
      return v.ok && c.orderId !== undefined;
    });
    for (const c of new Map(signed.map((c) => [c.state!.market.marketHash, c])).values()) {
      await this.o.openMarket(c.state!.market.marketHash, c.state!.market.eventId);
    }
    if (this.closed) throw unavailable('The exchange is shutting down; retry later');

    // From here to submitAll nothing awaits, so the uniqueness checks and the queueing are atomic.
    const accepted: { c: Candidate; input: SequencerInput; order: PlaceOrderInput; meta: OrderMeta }[] = [];
    const batchOrderIds = new Set<string>();
    const batchClientIds = new Set<string>();
    for (const c of signed) {
      const orderId = c.orderId!;
      const clientKey = c.input.clientOrderId ? `${account}:${c.input.clientOrderId}` : null;
      if (
        batchOrderIds.has(orderId) ||
        this.inflightOrderIds.has(orderId) ||
        this.delayed.has(orderId) ||
        this.o.sequencer.engine.order(orderId) ||
        this.o.lookups.orderExists(orderId)
      ) {
        fail(c, 'ORDER_ALREADY_EXISTS');
        continue;
      }
      if (
        clientKey &&
        (batchClientIds.has(clientKey) ||
          this.inflightClientIds.has(clientKey) ||
          this.o.lookups.clientOrderIdTaken(account, c.input.clientOrderId!))
      ) {
        fail(c, 'DUPLICATE_CLIENT_ORDER_ID');
        continue;
      }
      batchOrderIds.add(orderId);
      if (clientKey) batchClientIds.add(clientKey);
      const order: PlaceOrderInput = {
        type: 'place',
        orderId,
        account,
        marketHash: c.input.marketHash.toLowerCase(),
        isBettingOutcomeOne: c.input.isMakerBettingOutcomeOne,
        percentageOdds: BigInt(c.input.percentageOdds),
        totalBetSize: BigInt(c.input.totalBetSize),
        expiry: c.input.expiry,
        timeInForce: c.input.timeInForce as TimeInForce,
      };
      const meta: OrderMeta = {
        commandId: randomUUID(),
        eventId: c.state!.market.eventId,
        clientOrderId: c.input.clientOrderId ?? null,
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
    const delayedOutcomes = new Map<string, Promise<OrderOutcome>>();
    for (const a of accepted) {
      this.inflightOrderIds.add(a.order.orderId);
      if (a.meta.clientOrderId) this.inflightClientIds.add(`${account}:${a.meta.clientOrderId}`);
      // Admitted orders join the delay queue now, so a cancel arriving before the commit finds them.
      if (a.input.kind === 'admit') {
        this.schedule(a.order, a.meta, a.input.activateAt);
        if (body.waitForOutcome)
          delayedOutcomes.set(a.order.orderId, this.waitForDelayed(a.order, started + waitMs));
      }
    }
    let entries: AppliedEntry[];
    try {
      entries = await Promise.all(pending);
    } finally {
      for (const a of accepted) {
        this.inflightOrderIds.delete(a.order.orderId);
        if (a.meta.clientOrderId) this.inflightClientIds.delete(`${account}:${a.meta.clientOrderId}`);
      }
    }
    const outcomes = accepted.map((a, i) =>
      !body.waitForOutcome
        ? undefined
        : (delayedOutcomes.get(a.order.orderId) ??
          outcomeOf(a.order.orderId, a.order.totalBetSize, entries[i]!.events) ??
          undefined),
    );
    const resolved = await Promise.all(outcomes);
    accepted.forEach((a, i) => {
      results[a.c.index] = {
        orderId: a.order.orderId,
        status: 'SUBMITTED',
        commandId: a.meta.commandId,
        ...(a.meta.clientOrderId ? { clientOrderId: a.meta.clientOrderId } : {}),
        ...(resolved[i] ? { outcome: resolved[i] } : {}),
      };
    });
    return results;
  }

  /** The spec's 400s: expiry rules and the market minimum. One bad order refuses the whole request. */
  private checkRequestLevel(candidates: readonly Candidate[], now: number): void {
    for (const { input, state } of candidates) {
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
      if (BigInt(input.totalBetSize) < state.minBetSize) {
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
    if (c.input.baseToken.toLowerCase() !== this.o.baseToken.toLowerCase()) return 'BAD_BASE_TOKEN';
    if (c.tick === null) return 'ODDS_NOT_ON_LADDER';
    if (BigInt(c.input.totalBetSize) > MAX_ORDER_SIZE) return 'TOTAL_BET_SIZE_TOO_HIGH';
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
