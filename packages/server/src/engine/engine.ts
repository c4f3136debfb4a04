import { credit, debit, pullExcess } from './balances.js';
import { ladderSizeOfSnapshotBytes, readSnapshotBytes, writeSnapshotBytes } from './byte-snapshot.js';
import { cancelAccount, cancelInMarket, cancelOne, cancelOrders, expire } from './cancels.js';
import { flush, rejectCommand, takeEvents } from './command-events.js';
import type { EngineCommand } from './commands.js';
import { EngineState } from './engine-state.js';
import { type EngineEvent, RejectCode } from './events.js';
import { reverseFill } from './fill-reversal.js';
import { assertInvariants } from './invariants.js';
import { checkSnapshotFormat, readSnapshot, writeSnapshot } from './json-snapshot.js';
import { DEFAULT_LADDER_SIZE, type Ladder } from './ladder.js';
import { closeMarket, openMarket, resolveMarket } from './market-lifecycle.js';
import { place } from './matching.js';
import { dueParlayCloses, quoteWindowOpen } from './parlays.js';
import {
  balanceOf,
  bestTick,
  bookLevels,
  bookVersion,
  exposureOf,
  findOrder,
  hasDueExpiries,
  marketHashes,
  marketOrders,
  marketView,
  openOrders,
  owedBy,
  positionOf,
  restingOrderCount,
} from './reads.js';
import type { EngineSnapshot } from './snapshot.js';
import type { AccountBalance, BookLevels, MarketView, OrderView, PositionView } from './views.js';

export interface EngineOptions {
  /** Ticks per unit of probability (N); 800 for an `oddsLadderStepSize` of 125. */
  readonly ladderSize?: number;
  /** Capital efficiency (issue 25): each fill refunds the rise of its parties' guaranteed receipts. Default on. */
  readonly capitalEfficiency?: boolean;
  /**
   * With capital efficiency on, the first command seq it applies to (default 0: all). A journal begun
   * before the exchange had it replays its earlier commands as they were applied.
   */
  readonly capitalEfficiencyFromSeq?: number;
  /**
   * Honest liquidity (issue 34): an account's exposure (the remaining maker stakes of its resting orders)
   * never exceeds its available balance. A GTC order that would rest beyond it is refused or its remainder
   * cancelled (`INSUFFICIENT_BALANCE`), and when the balance falls below the exposure the account's newest
   * resting orders are pulled. Default on.
   */
  readonly honestLiquidity?: boolean;
  /** With honest liquidity on, the first command seq it applies to (default 0: all), as for capital efficiency. */
  readonly honestLiquidityFromSeq?: number;
}

/** The rules a journal's engines run with: what a restored engine takes besides its snapshot. */
export type EngineRuleOptions = Pick<
  EngineOptions,
  'capitalEfficiency' | 'capitalEfficiencyFromSeq' | 'honestLiquidity' | 'honestLiquidityFromSeq'
>;

/**
 * The matching engine: ladder books, resting orders and balances, changed only by `apply`.
 * Deterministic: the same commands always give the same events and the same state.
 *
 * A facade: the state is an `EngineState`, and each of the engine's jobs is a module of functions of it
 * (matching.ts, cancels.ts, balances.ts, market-lifecycle.ts, ...; see docs/adr/0015-engine-units.md).
 */
export class Engine {
  private readonly state: EngineState;
  readonly ladder: Ladder;
  /** Smallest accepted stake: N units, so a fresh order can always trade at least one lot. */
  readonly minOrderSize: bigint;

  constructor(options: EngineOptions = {}) {
    this.state = new EngineState(
      options.ladderSize ?? DEFAULT_LADDER_SIZE,
      options.capitalEfficiency === false
        ? Number.POSITIVE_INFINITY
        : (options.capitalEfficiencyFromSeq ?? 0),
      options.honestLiquidity === false ? Number.POSITIVE_INFINITY : (options.honestLiquidityFromSeq ?? 0),
    );
    this.ladder = this.state.ladder;
    this.minOrderSize = this.state.minOrderSize;
  }

  /** Sum of accepted credits minus accepted debits: always equals the sum of all available and escrowed. */
  get netDeposits(): bigint {
    return this.state.netDeposits;
  }

  set netDeposits(value: bigint) {
    this.state.netDeposits = value;
  }

  get lastAppliedSeq(): number {
    return this.state.lastSeq;
  }

  /** Applies one command and returns what happened. Throws only on a caller bug (seq not increasing). */
  apply(command: EngineCommand): readonly EngineEvent[] {
    const s = this.state;
    if (!Number.isSafeInteger(command.seq) || command.seq <= s.lastSeq) {
      throw new RangeError(`command seq must increase: ${command.seq} after ${s.lastSeq}`);
    }
    s.lastSeq = command.seq;
    if (!s.capitalEfficiency && command.seq >= s.capitalEfficiencyFromSeq) {
      s.capitalEfficiency = true;
      for (const market of s.markets) market.capitalEfficiency = true;
    }
    s.seq = command.seq;
    s.ts = command.ts;
    s.matchCount = 0;
    s.eventCount = 0;
    if (!s.honestLiquidity && command.seq >= s.honestLiquidityFromSeq) {
      s.honestLiquidity = true;
      // A journal begun before the rule may hold promises beyond balances: they go before anything else.
      for (let a = 0; a < s.accounts.names.length; a++) pullExcess(s, a);
    }
    switch (command.type) {
      case 'place': {
        const events = place(s, command);
        if (events !== undefined) return events;
        break;
      }
      case 'cancel':
        if (command.orderIds.length === 1) {
          return cancelOne(s, command.orderIds[0]!, command.account, command.reason ?? 'USER_REQUESTED');
        }
        cancelOrders(s, command.orderIds, command.account, command.reason ?? 'USER_REQUESTED');
        break;
      case 'cancelMarket': {
        const market = s.marketByHash.get(command.marketHash);
        if (market === undefined) rejectCommand(s, command.type, RejectCode.MARKET_NOT_FOUND);
        else cancelInMarket(s, market, command.account, command.reason);
        break;
      }
      case 'cancelEvent':
        for (const market of s.marketsByEvent.get(command.eventId) ?? []) {
          cancelInMarket(s, market, command.account, command.reason);
        }
        break;
      case 'cancelAccount':
        cancelAccount(s, command.account, command.reason);
        break;
      case 'expire':
        expire(s);
        break;
      case 'openMarket':
        openMarket(s, command.marketHash, command.eventId, command.legs, command.parlay);
        break;
      case 'closeMarket':
        closeMarket(s, command.marketHash);
        break;
      case 'resolveMarket':
        resolveMarket(s, command.marketHash, command.outcome);
        break;
      case 'credit':
        credit(s, command.account, command.amount);
        break;
      case 'debit':
        debit(s, command.account, command.amount);
        break;
      case 'reverseFill':
        reverseFill(s, command.fill);
        break;
      default:
        throw new TypeError(`unknown command ${(command as { type: string }).type}`);
    }
    flush(s);
    return takeEvents(s);
  }

  /** A resting order, or undefined once it has left the book (or never rested). */
  order(orderId: string): OrderView | undefined {
    return findOrder(this.state, orderId);
  }

  /** An account's resting orders in placement order. */
  openOrders(account: string): OrderView[] {
    return openOrders(this.state, account);
  }

  /** A market's resting orders in placement order. */
  marketOrders(marketHash: string): OrderView[] {
    return marketOrders(this.state, marketHash);
  }

  /** Aggregated levels of both sides, best first, in the maker frame; undefined for an unknown market. */
  levels(marketHash: string, depth = Number.POSITIVE_INFINITY): BookLevels | undefined {
    return bookLevels(this.state, marketHash, depth);
  }

  /** Every market the engine has opened, in no particular order. */
  marketHashes(): IterableIterator<string> {
    return marketHashes(this.state);
  }

  /** Highest tick with resting orders betting that outcome, 0 when none (or unknown market). */
  bestTick(marketHash: string, isBettingOutcomeOne: boolean): number {
    return bestTick(this.state, marketHash, isBettingOutcomeOne);
  }

  /** True when some resting order's expiry (unix seconds) is at or before `nowMs`: an `expire` is due. */
  hasDueExpiries(nowMs: number): boolean {
    return hasDueExpiries(this.state, nowMs);
  }

  /** The open parlay markets whose take window is over at `nowMs`: a `closeMarket` of each is due. */
  dueParlayCloses(nowMs: number): string[] {
    return dueParlayCloses(this.state, nowMs);
  }

  /**
   * Whether a market's resting orders are sealed at `nowMs`: a parlay market's offers are shown to nobody
   * (no public book, no publication) until its quote window closes.
   */
  offersSealed(marketHash: string, nowMs: number): boolean {
    const parlay = this.state.marketByHash.get(marketHash)?.parlay;
    return parlay != null && quoteWindowOpen(parlay, nowMs);
  }

  bookVersion(marketHash: string): number {
    return bookVersion(this.state, marketHash);
  }

  market(marketHash: string): MarketView | undefined {
    return marketView(this.state, marketHash);
  }

  balance(account: string): AccountBalance {
    return balanceOf(this.state, account);
  }

  /** What a reversed fill left the account owing (0 but after a failed settlement, issue 33). */
  owed(account: string): bigint {
    return owedBy(this.state, account);
  }

  /** The remaining maker stakes of the account's resting orders (at most its available balance under honest liquidity). */
  exposure(account: string): bigint {
    return exposureOf(this.state, account);
  }

  position(marketHash: string, account: string): PositionView | undefined {
    return positionOf(this.state, marketHash, account);
  }

  /** Number of resting orders in the engine. */
  get restingOrderCount(): number {
    return restingOrderCount(this.state);
  }

  /** The state in a canonical JSON-safe form (see `EngineSnapshot`). */
  snapshot(): EngineSnapshot {
    return writeSnapshot(this.state);
  }

  /**
   * Rebuilds an engine from a snapshot; it then behaves exactly as the engine that took it. Format 1
   * (before capital efficiency, no refunded column) is read with nothing refunded, which is what its
   * escrow holds: the next fill of a hedged position refunds what is certain.
   */
  static restore(snapshot: EngineSnapshot, options: EngineRuleOptions = {}): Engine {
    checkSnapshotFormat(snapshot);
    const engine = new Engine({ ...options, ladderSize: snapshot.ladderSize });
    readSnapshot(engine.state, snapshot);
    return engine;
  }

  /**
   * The state as bytes: what `snapshot()` holds, laid out for a fast restore (`restoreBytes`). Equal states
   * give equal bytes (names sorted, orders by placement), so a digest of them is a state hash.
   */
  snapshotBytes(): Uint8Array {
    return writeSnapshotBytes(this.state);
  }

  /**
   * Rebuilds an engine from `snapshotBytes()`; it then behaves exactly as the engine that took them. The
   * format before capital efficiency ('OBS2', no refunded amounts) is read with nothing refunded, as in
   * `restore`.
   */
  static restoreBytes(bytes: Uint8Array, options: EngineRuleOptions = {}): Engine {
    const engine = new Engine({ ...options, ladderSize: ladderSizeOfSnapshotBytes(bytes) });
    readSnapshotBytes(engine.state, bytes);
    return engine;
  }

  /** Checks every internal invariant; throws with a description on the first violation (a bug). */
  assertInvariants(): void {
    assertInvariants(this.state);
  }
}
