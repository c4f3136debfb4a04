import { Accounts } from './accounts.js';
import type { EngineEvent } from './events.js';
import { ExpiryIndex } from './expiry-index.js';
import { createLadder, type Ladder } from './ladder.js';
import type { MarketBook } from './market-book.js';
import { OrderIndex } from './order-index.js';
import { OrderStore } from './order-store.js';

/**
 * Everything the engine holds: books, resting orders, accounts and their indexes, the rules in force, and
 * the scratch of the command being applied. The engine's units are functions of it; one class, so that
 * every access in the walk sees one shape.
 */
export class EngineState {
  readonly ladder: Ladder;
  /** Smallest accepted stake: N units, so a fresh order can always trade at least one lot. */
  readonly minOrderSize: bigint;
  /** The first command seq with capital efficiency (infinite: never). */
  readonly capitalEfficiencyFromSeq: number;
  /** Whether the commands now applied have capital efficiency (set by the first at or after its seq). */
  capitalEfficiency = false;
  /** The first command seq with honest liquidity (infinite: never). */
  readonly honestLiquidityFromSeq: number;
  /** Whether the commands now applied have honest liquidity (set by the first at or after its seq). */
  honestLiquidity = false;
  /** Sum of accepted credits minus accepted debits: always equals the sum of all available and escrowed. */
  netDeposits = 0n;
  readonly store = new OrderStore();
  readonly accounts = new Accounts();
  readonly expiries = new ExpiryIndex();
  readonly markets: MarketBook[] = [];
  readonly marketByHash = new Map<string, MarketBook>();
  readonly marketsByEvent = new Map<string, MarketBook[]>();
  /** Parlay markets still open, in the order they were made (`parlays.ts`). */
  readonly parlayMarkets: MarketBook[] = [];
  readonly orderIndex = new OrderIndex(this.store);
  lastSeq = -1;

  // Per-command scratch state.
  seq = 0;
  ts = 0;
  matchCount = 0;
  /** Events of the command being applied: `pending[0 .. eventCount)`. */
  readonly pending: (EngineEvent | undefined)[] = [];
  eventCount = 0;
  readonly touchedMarkets: MarketBook[] = [];
  readonly touchedLevels: number[] = [];
  touchedLevelCount = 0;
  readonly touchedAccounts: number[] = [];
  touchedAccountCount = 0;
  readonly bumped: MarketBook[] = [];
  bumpedCount = 0;
  /** FOK dry run: stakes the walk has promised each maker so far. */
  readonly spent = new Map<number, bigint>();
  /** FOK dry run: what the walk has added to each maker's position (see `dryAdd`). */
  readonly spentAdds = new Map<number, bigint[]>();
  /** FOK dry run: what the walk has added to the taker's position (see `dryAdd`). */
  readonly takerAdds: bigint[] = [0n, 0n, 0n, 0n];
  walkRemaining = 0n;
  /** A quarter-line fill's refunds (see `fillLegs`). */
  readonly legRefunds: bigint[] = [0n, 0n, 0n, 0n];
  /** The market of the last place command. */
  lastMarket: MarketBook | undefined = undefined;
  /** Where `unrest` took its order from. */
  unrestMarket: MarketBook | undefined = undefined;
  unrestLevel = 0;

  constructor(ladderSize: number, capitalEfficiencyFromSeq: number, honestLiquidityFromSeq: number) {
    this.ladder = createLadder(ladderSize);
    this.minOrderSize = BigInt(this.ladder.size);
    this.capitalEfficiencyFromSeq = capitalEfficiencyFromSeq;
    this.honestLiquidityFromSeq = honestLiquidityFromSeq;
  }
}
