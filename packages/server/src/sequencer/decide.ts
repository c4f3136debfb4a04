import { type Engine, MarketStatus, ODDS_SCALE, tickOfOdds } from '../engine/index.js';
import type { Admission, DelayedOrder } from './admission.js';
import { capToAverageOdds } from './average-odds-cap.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput, SequencerInput } from './inputs.js';
import type {
  CancelIntent,
  Intent,
  IntentResult,
  OrderIntent,
  ParlayIntent,
  V2CutoverIntent,
} from './intents.js';

/** Applies one input: gives it the next seq, applies it to the engine and the admission state, journals it. */
export type ApplyInput = (input: SequencerInput) => AppliedEntry;

/**
 * The sequencer's admission stage (issue 35): decides an intent against the trading state as it stands at this
 * point of the batch, and applies what it decided as journaled inputs through `apply`. Deterministic given the
 * state and the intent; replays apply the journaled inputs and never decide again.
 */
export function decide(
  intent: Intent,
  state: { engine: Engine; admission: Admission; ts: number },
  apply: ApplyInput,
): IntentResult {
  switch (intent.kind) {
    case 'input':
      return { entries: [apply(intent.input)] };
    case 'fenced': {
      const { role, epoch } = intent.lease;
      const held = state.admission.lease(role).epoch;
      if (epoch < held) return { entries: [], fenced: { epoch: held } };
      const entries: AppliedEntry[] = [];
      if (epoch > held) entries.push(apply({ kind: 'lease', role, epoch }));
      const { receiptsThrough } = state.admission.lease(role);
      if (intent.blocks && intent.blocks.after < receiptsThrough)
        return { entries, journaled: { through: receiptsThrough } };
      for (const input of intent.inputs) entries.push(apply(input));
      return { entries };
    }
    case 'parlay':
      return decideParlay(intent, state.engine, apply);
    case 'order':
      return decideOrder(intent, state, apply);
    case 'cancel':
      return decideCancel(intent, state, apply);
    case 'activate': {
      const d = state.admission.delayed.get(intent.orderId);
      // Withdrawn meanwhile, or its delay not over yet (an activation decided on a clock ahead of the batch's).
      if (!d || d.activateAt > state.ts) return { entries: [] };
      return { entries: [placeOrWithdraw(d.order, d.meta, state.engine, apply)] };
    }
    case 'v2Cutover':
      return decideV2Cutover(intent, state, apply);
    case 'heartbeatExpired': {
      const { account, expiresAt } = intent;
      // Re-armed (or disarmed) meanwhile: nothing fires.
      if (state.admission.heartbeats.get(account)?.expiresAt !== expiresAt) return { entries: [] };
      const entries = cancelEverything(account, 'HEARTBEAT_TIMEOUT', state, apply);
      entries.push(
        apply({ kind: 'heartbeat', account, timeoutSeconds: 0, expiresAt: null, ifExpiresAt: expiresAt }),
      );
      return { entries };
    }
  }
}

function decideParlay(intent: ParlayIntent, engine: Engine, apply: ApplyInput): IntentResult {
  const entries: AppliedEntry[] = [];
  const open = (marketHash: string, eventId: string, legs?: readonly [string, string]) => {
    if (!engine.market(marketHash))
      entries.push(
        apply({
          kind: 'engine',
          command: { type: 'openMarket', marketHash, eventId, ...(legs ? { legs } : {}) },
        }),
      );
  };
  for (const leg of intent.legs) {
    for (const half of leg.quarterLineLegs ?? []) open(half, leg.eventId);
    open(leg.marketHash, leg.eventId, leg.quarterLineLegs ?? undefined);
  }
  if (engine.market(intent.marketHash)) return { entries, parlay: { opened: false } };
  entries.push(
    apply({
      kind: 'engine',
      command: {
        type: 'openMarket',
        marketHash: intent.marketHash,
        eventId: intent.eventId,
        parlay: intent.spec,
      },
    }),
  );
  return { entries, parlay: { opened: engine.market(intent.marketHash) !== undefined } };
}

function decideOrder(
  intent: OrderIntent,
  state: { engine: Engine; admission: Admission; ts: number },
  apply: ApplyInput,
): IntentResult {
  const { order, meta, market } = intent;
  const { engine, admission } = state;
  admission.forgetExpired(state.ts);
  if (admission.hasOrder(order.orderId) || engine.order(order.orderId))
    return { entries: [], order: { status: 'refused', reason: 'ORDER_ALREADY_EXISTS' } };
  if (meta.clientOrderId !== null && admission.hasClientOrderId(order.account, meta.clientOrderId))
    return { entries: [], order: { status: 'refused', reason: 'DUPLICATE_CLIENT_ORDER_ID' } };
  const entries: AppliedEntry[] = [];
  // A market's first order opens it in the engine, in the same batch (its legs first).
  if (!engine.market(order.marketHash)) {
    for (const leg of market.legs ?? []) {
      if (!engine.market(leg))
        entries.push(
          apply({
            kind: 'engine',
            command: { type: 'openMarket', marketHash: leg, eventId: market.eventId },
          }),
        );
    }
    entries.push(
      apply({
        kind: 'engine',
        command: {
          type: 'openMarket',
          marketHash: order.marketHash,
          eventId: market.eventId,
          ...(market.legs ? { legs: market.legs } : {}),
        },
      }),
    );
    // The engine refuses legs that are closed or resolved (INVALID_LEGS): the market stays unopened.
    if (engine.market(order.marketHash)?.status !== MarketStatus.OPEN)
      return { entries, order: { status: 'refused', reason: 'MARKET_INACTIVE' } };
  }
  // In play, an order that takes liquidity waits the betting delay first: IOC and FOK always, a GTC that
  // crosses the book on arrival; a GTC that only rests posts at once.
  if (intent.bettingDelayMs > 0 && takesLiquidity(intent, engine)) {
    const activateAt = state.ts + intent.bettingDelayMs;
    entries.push(apply({ kind: 'admit', order, meta, activateAt }));
    return { entries, order: { status: 'admitted', activateAt } };
  }
  entries.push(placeOrWithdraw(order, meta, engine, apply));
  return { entries, order: { status: 'placed' } };
}

/**
 * Places an order in the engine; a v2 fill with its slippage rule is placed cut to what keeps its average
 * within it (`average-odds-cap.ts`). When nothing can be taken it is placed at the ladder's first tick, which
 * crosses nothing (intake refuses a bound below one tick, so a maker at the last tick is always within it):
 * the engine ends it NO_LIQUIDITY like any IOC that found nothing.
 */
function placeOrWithdraw(
  order: PlaceOrderInput,
  meta: OrderMeta,
  engine: Engine,
  apply: ApplyInput,
): AppliedEntry {
  if (!meta.averageOddsLimit) return apply({ kind: 'engine', command: order, meta });
  const book = engine.levels(order.marketHash);
  const side = order.isBettingOutcomeOne ? book?.outcomeTwo : book?.outcomeOne;
  const capped = capToAverageOdds(order, meta.averageOddsLimit, side ?? [], engine.ladder.size);
  if (capped) return apply({ kind: 'engine', command: capped, meta });
  const firstTick = ODDS_SCALE / BigInt(engine.ladder.size);
  return apply({ kind: 'engine', command: { ...order, percentageOdds: firstTick }, meta });
}

/** The cut-over: every open v2 order cancelled (V2_CUTOVER), in one engine input. */
function decideV2Cutover(
  intent: V2CutoverIntent,
  state: { engine: Engine; admission: Admission; ts: number },
  apply: ApplyInput,
): IntentResult {
  if (state.ts < intent.at) return { entries: [] };
  const { engine, admission } = state;
  admission.forgetExpired(state.ts);
  const { resting, delayed } = admission.openV2Orders((orderId) => engine.order(orderId) !== undefined);
  const entries: AppliedEntry[] = [];
  if (delayed.length > 0) entries.push(apply({ kind: 'withdraw', orderIds: delayed, reason: 'V2_CUTOVER' }));
  if (resting.length > 0)
    entries.push(
      apply({ kind: 'engine', command: { type: 'cancel', orderIds: resting, reason: 'V2_CUTOVER' } }),
    );
  return { entries, cancel: { cancelled: [...delayed, ...resting], notFound: [] } };
}

function takesLiquidity({ order }: OrderIntent, engine: Engine): boolean {
  if (order.timeInForce !== 'GTC') return true;
  const opposite = engine.bestTick(order.marketHash, !order.isBettingOutcomeOne);
  return opposite > 0 && tickOfOdds(engine.ladder, order.percentageOdds) + opposite >= engine.ladder.size;
}

function decideCancel(
  intent: CancelIntent,
  state: { engine: Engine; admission: Admission },
  apply: ApplyInput,
): IntentResult {
  const { account, target, reason } = intent;
  const { engine, admission } = state;
  const entries: AppliedEntry[] = [];
  const withdraw = (orders: readonly DelayedOrder[]) => {
    if (orders.length === 0) return [];
    const orderIds = orders.map((d) => d.order.orderId);
    entries.push(apply({ kind: 'withdraw', orderIds, reason }));
    return orderIds;
  };
  if ('orderIds' in target) {
    const ids = [...new Set(target.orderIds)];
    const withdrawn = withdraw(admission.delayedOf(account, (d) => ids.includes(d.order.orderId)));
    const resting = ids.filter((id) => !withdrawn.includes(id) && engine.order(id)?.account === account);
    const cancelled = [...withdrawn];
    if (resting.length > 0) {
      const entry = apply({
        kind: 'engine',
        command: { type: 'cancel', orderIds: resting, account, reason },
      });
      entries.push(entry);
      cancelled.push(...doneOrders(entry));
    }
    return { entries, cancel: { cancelled, notFound: ids.filter((id) => !cancelled.includes(id)) } };
  }
  if ('all' in target) {
    const before = entries.length;
    entries.push(...cancelEverything(account, reason, { engine, admission }, apply));
    return { entries, cancel: { cancelled: cancelledIn(entries.slice(before)), notFound: [] } };
  }
  const inMarket = 'marketHash' in target;
  const withdrawn = withdraw(
    admission.delayedOf(account, (d) =>
      inMarket ? d.order.marketHash === target.marketHash : d.meta.eventId === target.eventId,
    ),
  );
  const open = engine
    .openOrders(account)
    .some((o) => (inMarket ? o.marketHash === target.marketHash : o.eventId === target.eventId));
  if (!open) return { entries, cancel: { cancelled: withdrawn, notFound: [] } };
  const entry = apply({
    kind: 'engine',
    command: inMarket
      ? { type: 'cancelMarket', marketHash: target.marketHash, account, reason }
      : { type: 'cancelEvent', eventId: target.eventId, account, reason },
  });
  entries.push(entry);
  return { entries, cancel: { cancelled: [...withdrawn, ...doneOrders(entry)], notFound: [] } };
}

/** Withdraws every admitted order of the account and cancels every resting one. */
function cancelEverything(
  account: string,
  reason: CancelIntent['reason'],
  state: { engine: Engine; admission: Admission },
  apply: ApplyInput,
): AppliedEntry[] {
  const entries: AppliedEntry[] = [];
  const delayed = state.admission.delayedOf(account);
  if (delayed.length > 0)
    entries.push(apply({ kind: 'withdraw', orderIds: delayed.map((d) => d.order.orderId), reason }));
  entries.push(apply({ kind: 'engine', command: { type: 'cancelAccount', account, reason } }));
  return entries;
}

/** The orders an entry took off the book. */
function doneOrders(entry: AppliedEntry): string[] {
  const ids: string[] = [];
  for (const e of entry.events) if (e.type === 'orderDone' && e.wasResting) ids.push(e.orderId);
  return ids;
}

function cancelledIn(entries: readonly AppliedEntry[]): string[] {
  const ids: string[] = [];
  for (const entry of entries) {
    if (entry.input.kind === 'withdraw') ids.push(...entry.input.orderIds);
    else ids.push(...doneOrders(entry));
  }
  return ids;
}
