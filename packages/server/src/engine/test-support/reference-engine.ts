import type { EngineCommand, MarketOutcome, PlaceOrderCommand } from '../commands.js';
import type { DoneReason, EngineEvent, RejectCode } from '../events.js';

/**
 * The oracle of the property tests: the same rules as the engine written as plainly as possible (arrays,
 * filter and sort, deep copies for the FOK dry run), no indexes, no intrusive lists, no typed arrays.
 */

interface RefOrder {
  id: string;
  account: string;
  market: string;
  side: 0 | 1;
  tick: number;
  size: bigint;
  remaining: bigint;
  expiry: number;
  seq: number;
}

interface RefPosition {
  stakeOne: bigint;
  stakeTwo: bigint;
  potOne: bigint;
  potTwo: bigint;
  /** Capital efficiency: what the position has had back so far. */
  refunded: bigint;
}

export interface ReferenceOptions {
  /** Capital efficiency (default on): refund a position's guaranteed receipt as soon as a fill raises it. */
  readonly capitalEfficiency?: boolean;
  /** Honest liquidity (default on): resting orders never promise more than their account's available balance. */
  readonly honestLiquidity?: boolean;
}

interface RefMarket {
  hash: string;
  eventId: string;
  status: 'open' | 'closed' | 'resolved';
  version: number;
  positions: Map<string, RefPosition>;
}

interface RefState {
  orders: RefOrder[];
  balances: Map<string, { available: bigint; escrowed: bigint }>;
  markets: RefMarket[];
  events: EngineEvent[];
  touchedLevels: string[];
  touchedAccounts: string[];
  matchCount: number;
}

function gcd(a: bigint, b: bigint): bigint {
  return b === 0n ? a : gcd(b, a % b);
}

const min = (...xs: bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;

export class ReferenceEngine {
  private state: RefState = {
    orders: [],
    balances: new Map(),
    markets: [],
    events: [],
    touchedLevels: [],
    touchedAccounts: [],
    matchCount: 0,
  };
  private seq = 0;
  private ts = 0;
  private readonly n: bigint;
  private readonly ce: boolean;
  private readonly honest: boolean;

  constructor(
    private readonly size: number,
    options: ReferenceOptions = {},
  ) {
    this.n = BigInt(size);
    this.ce = options.capitalEfficiency ?? true;
    this.honest = options.honestLiquidity ?? true;
  }

  private odds(tick: number): bigint {
    return (BigInt(tick) * 10n ** 20n) / this.n;
  }

  apply(c: EngineCommand): EngineEvent[] {
    this.seq = c.seq;
    this.ts = c.ts;
    const s = this.state;
    s.events = [];
    s.touchedLevels = [];
    s.touchedAccounts = [];
    s.matchCount = 0;
    switch (c.type) {
      case 'place':
        this.place(c);
        break;
      case 'cancel':
        for (const id of c.orderIds) {
          const o = s.orders.find((x) => x.id === id && (c.account === undefined || x.account === c.account));
          if (o === undefined) s.events.push({ type: 'cancelRejected', orderId: id, code: 'NOT_FOUND' });
          else this.remove(s, o, c.reason ?? 'USER_REQUESTED');
        }
        break;
      case 'cancelMarket': {
        const m = s.markets.find((x) => x.hash === c.marketHash);
        if (m === undefined) this.reject(c.type, 'MARKET_NOT_FOUND');
        else
          this.cancelWhere(
            (o) => o.market === m.hash && (c.account === undefined || o.account === c.account),
            c.reason,
          );
        break;
      }
      case 'cancelEvent':
        for (const m of s.markets.filter((x) => x.eventId === c.eventId)) {
          this.cancelWhere(
            (o) => o.market === m.hash && (c.account === undefined || o.account === c.account),
            c.reason,
          );
        }
        break;
      case 'cancelAccount':
        this.cancelWhere((o) => o.account === c.account, c.reason);
        break;
      case 'expire': {
        const due = s.orders.filter((o) => o.expiry * 1000 <= this.ts);
        due.sort((a, b) => a.expiry - b.expiry || a.seq - b.seq);
        for (const o of due) this.remove(s, o, 'EXPIRED');
        break;
      }
      case 'openMarket':
        if (s.markets.some((m) => m.hash === c.marketHash)) this.reject(c.type, 'MARKET_EXISTS');
        else {
          s.markets.push({
            hash: c.marketHash,
            eventId: c.eventId,
            status: 'open',
            version: 0,
            positions: new Map(),
          });
          s.events.push({ type: 'marketOpened', marketHash: c.marketHash, eventId: c.eventId });
        }
        break;
      case 'closeMarket': {
        const m = s.markets.find((x) => x.hash === c.marketHash);
        if (m === undefined) this.reject(c.type, 'MARKET_NOT_FOUND');
        else if (m.status === 'resolved') this.reject(c.type, 'MARKET_RESOLVED');
        else if (m.status === 'closed') this.reject(c.type, 'MARKET_CLOSED');
        else {
          m.status = 'closed';
          s.events.push({ type: 'marketClosed', marketHash: m.hash, eventId: m.eventId });
          this.cancelWhere((o) => o.market === m.hash, 'EVENT_LIFECYCLE');
        }
        break;
      }
      case 'resolveMarket':
        this.resolve(c.marketHash, c.outcome);
        break;
      case 'credit':
        if (c.amount <= 0n) this.reject(c.type, 'INVALID_AMOUNT');
        else {
          this.balance(s, c.account).available += c.amount;
          this.touchAccount(s, c.account);
        }
        break;
      case 'debit': {
        const b = s.balances.get(c.account);
        if (c.amount <= 0n) this.reject(c.type, 'INVALID_AMOUNT');
        else if (b === undefined || b.available < c.amount) this.reject(c.type, 'INSUFFICIENT_BALANCE');
        else {
          b.available -= c.amount;
          this.touchAccount(s, c.account);
          this.pullExcess(c.account);
        }
        break;
      }
    }
    this.flush(s);
    return s.events;
  }

  /** Aggregated levels as the engine reports them. */
  levels(market: string, side: 0 | 1): { tick: number; size: bigint; orders: number }[] {
    const out = new Map<number, { tick: number; size: bigint; orders: number }>();
    for (const o of this.state.orders) {
      if (o.market !== market || o.side !== side) continue;
      const l = out.get(o.tick) ?? { tick: o.tick, size: 0n, orders: 0 };
      l.size += o.remaining;
      l.orders++;
      out.set(o.tick, l);
    }
    return [...out.values()].sort((a, b) => b.tick - a.tick);
  }

  /** An account's open position in a market, as `Engine.position` describes it. */
  positionOf(market: string, account: string): RefPosition | undefined {
    const p = this.state.markets.find((m) => m.hash === market)?.positions.get(account);
    return p === undefined ? undefined : { ...p };
  }

  balanceOf(account: string): { available: bigint; escrowed: bigint } {
    const b = this.state.balances.get(account);
    return { available: b?.available ?? 0n, escrowed: b?.escrowed ?? 0n };
  }

  openOrderIds(account: string): string[] {
    return this.state.orders.filter((o) => o.account === account).map((o) => o.id);
  }

  /** The remaining maker stakes of the account's resting orders. */
  exposureOf(account: string): bigint {
    return this.state.orders.filter((o) => o.account === account).reduce((sum, o) => sum + o.remaining, 0n);
  }

  private freeBalance(account: string): bigint {
    return this.balanceOf(account).available - this.exposureOf(account);
  }

  /** Honest liquidity: the account's newest resting orders go until the rest fit its available balance. */
  private pullExcess(account: string): void {
    if (!this.honest) return;
    while (this.exposureOf(account) > this.balanceOf(account).available) {
      const own = this.state.orders.filter((o) => o.account === account);
      const newest = own.reduce((x, y) => (y.seq > x.seq ? y : x));
      this.remove(this.state, newest, 'INSUFFICIENT_BALANCE');
    }
  }

  private reject(command: EngineCommand['type'], code: RejectCode): void {
    this.state.events.push({ type: 'commandRejected', command, code });
  }

  private balance(s: RefState, account: string) {
    let b = s.balances.get(account);
    if (b === undefined) {
      b = { available: 0n, escrowed: 0n };
      s.balances.set(account, b);
    }
    return b;
  }

  private touchAccount(s: RefState, account: string): void {
    if (!s.touchedAccounts.includes(account)) s.touchedAccounts.push(account);
  }

  private touchLevel(s: RefState, o: RefOrder): void {
    const key = `${o.market}|${o.side}|${o.tick}`;
    if (!s.touchedLevels.includes(key)) s.touchedLevels.push(key);
  }

  private cancelWhere(pred: (o: RefOrder) => boolean, reason: DoneReason): void {
    const s = this.state;
    const victims = s.orders.filter(pred).sort((a, b) => a.seq - b.seq);
    for (const o of victims) this.remove(s, o, reason);
  }

  private remove(s: RefState, o: RefOrder, reason: DoneReason): void {
    s.orders = s.orders.filter((x) => x !== o);
    this.touchLevel(s, o);
    s.events.push({
      type: 'orderDone',
      orderId: o.id,
      account: o.account,
      marketHash: o.market,
      isBettingOutcomeOne: o.side === 0,
      tick: o.tick,
      reason,
      totalBetSize: o.size,
      filledSize: o.size - o.remaining,
      remainingSize: o.remaining,
      wasResting: true,
    });
  }

  private place(c: PlaceOrderCommand): void {
    const s = this.state;
    const m = s.markets.find((x) => x.hash === c.marketHash);
    const step = 10n ** 20n / this.n;
    const onLadder = c.percentageOdds > 0n && c.percentageOdds < 10n ** 20n && c.percentageOdds % step === 0n;
    const code: RejectCode | undefined =
      m === undefined
        ? 'MARKET_NOT_FOUND'
        : m.status !== 'open'
          ? 'MARKET_CLOSED'
          : s.orders.some((o) => o.id === c.orderId)
            ? 'DUPLICATE_ORDER_ID'
            : !onLadder
              ? 'INVALID_TICK'
              : c.totalBetSize < this.n || c.totalBetSize >= 2n ** 64n
                ? 'INVALID_SIZE'
                : !Number.isSafeInteger(c.expiry) || c.expiry <= 0 || c.expiry > 0xffff_ffff
                  ? 'INVALID_EXPIRY'
                  : c.expiry * 1000 <= this.ts
                    ? 'ORDER_EXPIRED'
                    : this.honest &&
                        c.timeInForce === 'GTC' &&
                        !this.crosses(c) &&
                        c.totalBetSize > this.freeBalance(c.account)
                      ? 'INSUFFICIENT_BALANCE'
                      : undefined;
    if (code !== undefined || m === undefined) {
      s.events.push({
        type: 'orderRejected',
        orderId: c.orderId,
        account: c.account,
        marketHash: c.marketHash,
        code: code ?? 'MARKET_NOT_FOUND',
      });
      return;
    }
    const tick = Number(c.percentageOdds / step);
    s.events.push({
      type: 'orderAccepted',
      orderId: c.orderId,
      account: c.account,
      marketHash: c.marketHash,
      eventId: m.eventId,
      isBettingOutcomeOne: c.isBettingOutcomeOne,
      tick,
      percentageOdds: c.percentageOdds,
      totalBetSize: c.totalBetSize,
      expiry: c.expiry,
      timeInForce: c.timeInForce,
    });
    const done = (reason: DoneReason, remaining: bigint) =>
      this.state.events.push({
        type: 'orderDone',
        orderId: c.orderId,
        account: c.account,
        marketHash: c.marketHash,
        isBettingOutcomeOne: c.isBettingOutcomeOne,
        tick,
        reason,
        totalBetSize: c.totalBetSize,
        filledSize: c.totalBetSize - remaining,
        remainingSize: remaining,
        wasResting: false,
      });

    if (c.timeInForce === 'FOK') {
      // Dry run on a deep copy of the whole state; keep nothing of it.
      const saved = this.state;
      this.state = cloneState(saved);
      const [stop] = this.walk(c, m.hash, tick);
      this.state = saved;
      if (stop !== 'FILLED' && stop !== 'DUST') {
        done(stop === 'TAKER_FUNDS' ? 'INSUFFICIENT_BALANCE' : 'NO_LIQUIDITY', c.totalBetSize);
        return;
      }
    }
    const [stop, remaining] = this.walk(c, m.hash, tick);
    const side: 0 | 1 = c.isBettingOutcomeOne ? 0 : 1;
    const n = this.n;
    const t = BigInt(tick);
    const makerLot = t / gcd(t, n);
    if (stop === 'FILLED' || stop === 'DUST') done('FILLED', remaining);
    else if (stop === 'TAKER_FUNDS') done('INSUFFICIENT_BALANCE', remaining);
    else if (c.timeInForce !== 'GTC') done('NO_LIQUIDITY', remaining);
    else if (remaining < makerLot) done('FILLED', remaining);
    else if (this.honest && remaining > this.freeBalance(c.account)) done('INSUFFICIENT_BALANCE', remaining);
    else {
      const o: RefOrder = {
        id: c.orderId,
        account: c.account,
        market: m.hash,
        side,
        tick,
        size: c.totalBetSize,
        remaining,
        expiry: c.expiry,
        seq: this.seq,
      };
      this.state.orders.push(o);
      this.touchLevel(this.state, o);
      this.state.events.push({
        type: 'orderRested',
        orderId: c.orderId,
        account: c.account,
        marketHash: c.marketHash,
        isBettingOutcomeOne: c.isBettingOutcomeOne,
        tick,
        percentageOdds: c.percentageOdds,
        totalBetSize: c.totalBetSize,
        filledSize: c.totalBetSize - remaining,
        remainingSize: remaining,
      });
    }
    this.pullExcess(c.account);
  }

  /** Whether any resting order on the other side reaches the order's limit. */
  private crosses(c: PlaceOrderCommand): boolean {
    const side = c.isBettingOutcomeOne ? 0 : 1;
    const tick = Number(c.percentageOdds / (10n ** 20n / this.n));
    return this.state.orders.some(
      (o) => o.market === c.marketHash && o.side !== side && o.tick + tick >= this.size,
    );
  }

  private walk(c: PlaceOrderCommand, market: string, tick: number): [string, bigint] {
    const s = this.state;
    const n = this.n;
    const side = c.isBettingOutcomeOne ? 0 : 1;
    const m = s.markets.find((x) => x.hash === market)!;
    const candidates = s.orders
      .filter((o) => o.market === market && o.side !== side && o.tick + tick >= this.size)
      .sort((a, b) => b.tick - a.tick || a.seq - b.seq);
    let remaining = c.totalBetSize;
    for (const o of candidates) {
      const k = BigInt(o.tick);
      const g = gcd(k, n);
      const a = k / g;
      const b = (n - k) / g;
      for (;;) {
        if (remaining === 0n) return ['FILLED', 0n];
        if (o.account === c.account) break;
        if (o.expiry * 1000 <= this.ts) {
          this.remove(s, o, 'EXPIRED');
          break;
        }
        if (remaining < b) return ['DUST', remaining];
        const taker = this.balance(s, c.account);
        if (taker.available < b) return ['TAKER_FUNDS', remaining];
        const maker = this.balance(s, o.account);
        if (maker.available < a) {
          this.remove(s, o, 'INSUFFICIENT_BALANCE');
          break;
        }
        const lots = min(o.remaining / a, remaining / b, maker.available / a, taker.available / b);
        const makerStake = lots * a;
        const takerStake = lots * b;
        maker.available -= makerStake;
        maker.escrowed += makerStake;
        taker.available -= takerStake;
        taker.escrowed += takerStake;
        this.touchAccount(s, o.account);
        this.touchAccount(s, c.account);
        const pos = (acct: string) => {
          let p = m.positions.get(acct);
          if (p === undefined) {
            p = { stakeOne: 0n, stakeTwo: 0n, potOne: 0n, potTwo: 0n, refunded: 0n };
            m.positions.set(acct, p);
          }
          return p;
        };
        const mp = pos(o.account);
        const tp = pos(c.account);
        const pot = makerStake + takerStake;
        if (o.side === 0) {
          mp.stakeOne += makerStake;
          mp.potOne += pot;
          tp.stakeTwo += takerStake;
          tp.potTwo += pot;
        } else {
          mp.stakeTwo += makerStake;
          mp.potTwo += pot;
          tp.stakeOne += takerStake;
          tp.potOne += pot;
        }
        o.remaining -= makerStake;
        remaining -= takerStake;
        this.touchLevel(s, o);
        const matchId = `${this.seq}-${s.matchCount++}`;
        s.events.push({
          type: 'orderMatched',
          matchId,
          marketHash: market,
          eventId: m.eventId,
          tick: o.tick,
          makerOdds: this.odds(o.tick),
          takerOdds: this.odds(this.size - o.tick),
          makerOrderId: o.id,
          makerAccount: o.account,
          makerIsBettingOutcomeOne: o.side === 0,
          makerStake,
          makerRemainingSize: o.remaining,
          takerOrderId: c.orderId,
          takerAccount: c.account,
          takerStake,
          takerRemainingSize: remaining,
        });
        if (this.ce) {
          // Each party, maker first: refund whatever is now certain beyond what it already had back.
          for (const [acct, p, maker, orderId] of [
            [o.account, mp, true, o.id],
            [c.account, tp, false, c.orderId],
          ] as const) {
            const guaranteed = min(p.potOne, p.potTwo, p.stakeOne + p.stakeTwo);
            if (guaranteed <= p.refunded) continue;
            const amount = guaranteed - p.refunded;
            p.refunded = guaranteed;
            const b = this.balance(s, acct);
            b.escrowed -= amount;
            b.available += amount;
            s.events.push({
              type: 'ceRefund',
              account: acct,
              marketHash: market,
              eventId: m.eventId,
              amount,
              refundedTotal: guaranteed,
              matchId,
              maker,
              orderId,
            });
          }
        }
        if (o.remaining < a) {
          this.remove(s, o, 'FILLED');
          break;
        }
      }
    }
    return [remaining === 0n ? 'FILLED' : 'EXHAUSTED', remaining];
  }

  private resolve(hash: string, outcome: MarketOutcome): void {
    const s = this.state;
    const m = s.markets.find((x) => x.hash === hash);
    if (m === undefined || m.status === 'resolved') {
      this.reject('resolveMarket', m === undefined ? 'MARKET_NOT_FOUND' : 'MARKET_RESOLVED');
      return;
    }
    m.status = 'resolved';
    s.events.push({ type: 'marketResolved', marketHash: hash, eventId: m.eventId, outcome });
    this.cancelWhere((o) => o.market === hash, 'EVENT_LIFECYCLE');
    for (const account of [...m.positions.keys()].sort()) {
      const p = m.positions.get(account)!;
      const stakes = p.stakeOne + p.stakeTwo;
      const won = outcome === 1 ? p.potOne : outcome === 2 ? p.potTwo : stakes;
      const stake = stakes - p.refunded;
      const payout = won - p.refunded;
      const b = this.balance(s, account);
      b.escrowed -= stake;
      b.available += payout;
      this.touchAccount(s, account);
      s.events.push({
        type: 'payout',
        account,
        marketHash: hash,
        eventId: m.eventId,
        outcome,
        stake,
        payout,
      });
    }
    m.positions.clear();
  }

  private flush(s: RefState): void {
    const bumped = new Set<string>();
    for (const key of s.touchedLevels) {
      const [market, sideText, tickText] = key.split('|') as [string, string, string];
      const m = s.markets.find((x) => x.hash === market)!;
      if (!bumped.has(market)) {
        bumped.add(market);
        m.version++;
      }
      const side = Number(sideText);
      const tick = Number(tickText);
      const here = s.orders.filter((o) => o.market === market && o.side === side && o.tick === tick);
      s.events.push({
        type: 'levelChanged',
        marketHash: market,
        isBettingOutcomeOne: side === 0,
        tick,
        percentageOdds: this.odds(tick),
        size: here.reduce((acc, o) => acc + o.remaining, 0n),
        orders: here.length,
        version: m.version,
      });
    }
    for (const account of s.touchedAccounts) {
      const b = this.balance(s, account);
      s.events.push({ type: 'balanceChanged', account, available: b.available, escrowed: b.escrowed });
    }
  }
}

function cloneState(s: RefState): RefState {
  return {
    orders: s.orders.map((o) => ({ ...o })),
    balances: new Map([...s.balances].map(([k, v]) => [k, { ...v }])),
    markets: s.markets.map((m) => ({
      ...m,
      positions: new Map([...m.positions].map(([k, v]) => [k, { ...v }])),
    })),
    events: [],
    touchedLevels: [],
    touchedAccounts: [],
    matchCount: s.matchCount,
  };
}
