import { address } from '../chain/chain-input.js';
import { MemoryChainStore } from '../chain/chain-store.js';
import type { EmbeddedChain } from '../chain/embedded-chain.js';
import { BASE_TOKEN, createTestChain } from '../chain/test-support.js';
import { Harness, type PlaceInput } from '../engine/test-support/harness.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry, OrderMeta, SequencerInput } from '../sequencer/inputs.js';
import { Projector } from '../store/projector.js';
import { openDatabase } from '../store/sqlite/open-database.js';
import { SqliteProjectionStore } from '../store/sqlite/sqlite-projection-store.js';
import { SqliteSettlementFeed } from '../store/sqlite/sqlite-settlement-feed.js';
import type { ReconcileReport } from './reconcile.js';
import { ReceiptsJournaled, SettlementDriver } from './settlement-driver.js';

/** An account's proxy wallet in the rig: its name (hex letters) as an address. */
export const walletOf = (account: string) => address(`0x${account.padStart(40, '0')}`, 'wallet');

type EngineInput = Extract<SequencerInput, { kind: 'engine' }>['command'];

const metaOf = (orderId: string): OrderMeta => ({
  commandId: `command-${orderId}`,
  eventId: 'E',
  clientOrderId: null,
  salt: `0x${'0'.repeat(64)}`,
  baseToken: BASE_TOKEN,
  signature: '0x',
});

/**
 * The settlement driver between a real engine (journaled in memory; each submission one committed batch,
 * projected by the real projector on an in-memory SQLite database, then handed on, as the pipeline does)
 * and a real embedded chain whose blocks the test mines itself (`block()`): every step is deterministic.
 * The driver's feed is the projections', so that `restartDriver()` starts a new driver as an exchange start
 * does. Markets M and M2 (event E) and M3 (event F) are open; nothing is credited.
 */
export class DriverRig {
  readonly h = new Harness();
  private readonly chainStore = new MemoryChainStore();
  chain: EmbeddedChain;
  timer: ReturnType<typeof createTestChain>['timer'];
  readonly journal: AppliedEntry[] = [];
  readonly db = openDatabase(':memory:');
  readonly errors: unknown[] = [];
  readonly walletOf = walletOf;
  private readonly crashed = new Set<SettlementDriver>();
  /** The next submissions of receipts the sequencer refuses (a full queue: 503). */
  refuseSubmissions = 0;
  /** The next submissions journaled whose answers are lost (a timeout, a sequencer failover). */
  loseAnswers = 0;
  /**
   * The chain node's memo (ADR 0018), as the sequencer keeps it (`decide`, fenced intents): receipts of
   * blocks the journal holds already are refused with `ReceiptsJournaled`, not journaled again.
   */
  memo = false;
  private receiptsThrough = 0;
  driver: SettlementDriver;
  private projector!: Projector;
  /** The batches committed so far, projected and handed on to the driver, in order. */
  private delivered: Promise<void> = Promise.resolve();
  private stop: (() => void) | null = null;

  private constructor() {
    const { chain, timer } = createTestChain(this.chainStore);
    this.chain = chain;
    this.timer = timer;
    this.driver = this.newDriver();
  }

  static async start(): Promise<DriverRig> {
    const rig = new DriverRig();
    rig.projector = await Projector.open(new SqliteProjectionStore(rig.db), { settlementSince: 1 });
    rig.run({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
    rig.run({ type: 'openMarket', marketHash: 'M2', eventId: 'E' });
    rig.run({ type: 'openMarket', marketHash: 'M3', eventId: 'F' });
    await rig.delivered;
    rig.stop = await rig.driver.start();
    return rig;
  }

  private newDriver(): SettlementDriver {
    const driver = new SettlementDriver({
      chain: this.chain,
      feed: new SqliteSettlementFeed(this.db),
      walletOf,
      since: 1,
      submit: async (inputs, blocks) => {
        // A commit takes its time (the sequencer's batch, its sync): other work of the event loop goes first.
        await new Promise((resolve) => setImmediate(resolve));
        // A crashed driver's process is gone: it journals nothing more.
        if (this.crashed.has(driver)) throw new Error('the process is gone');
        if (this.refuseSubmissions > 0) {
          this.refuseSubmissions -= 1;
          throw new Error('Too many commands in flight; retry');
        }
        if (this.memo && blocks.after < this.receiptsThrough)
          throw new ReceiptsJournaled(this.receiptsThrough);
        const entries = this.commit(inputs);
        this.receiptsThrough = Math.max(this.receiptsThrough, blocks.through);
        if (this.loseAnswers > 0) {
          this.loseAnswers -= 1;
          throw new Error('no answer in time');
        }
        return entries;
      },
      onError: (error) => {
        if (!this.crashed.has(driver)) this.errors.push(error);
      },
    });
    return driver;
  }

  /**
   * A crash of the exchange (nothing is awaited: receipts mined and not journaled yet stay so; what the chain
   * was sent stays there) and its start: a new driver, the entries after its cursor handed on again, then
   * `start()`. With `chain`, the embedded chain starts again from its store too.
   */
  async restartDriver(options: { chain?: boolean } = {}): Promise<void> {
    this.stop?.();
    this.crashed.add(this.driver);
    if (options.chain) {
      this.timer.stop();
      const { chain, timer } = createTestChain(this.chainStore);
      this.chain = chain;
      this.timer = timer;
    }
    await this.delivered;
    this.driver = this.newDriver();
    const after = this.driver.outboxSeq();
    const replay = this.journal.filter((e) => e.seq > after);
    if (replay.length > 0) this.driver.submitForBatch(committedBatch(replay));
    this.stop = await this.driver.start();
    await this.turns();
  }

  /** Mines a block and crashes before its receipts are journaled (they are mined, not journaled); starts. */
  async crashAfterBlock(options: { chain?: boolean } = {}): Promise<void> {
    await this.turns();
    void this.timer.tick();
    await this.restartDriver(options);
  }

  /** Journals inputs as one committed batch: projected, then handed on to the driver. */
  commit(inputs: readonly SequencerInput[]): AppliedEntry[] {
    const entries = inputs.map((input): AppliedEntry => {
      if (input.kind !== 'engine') {
        this.h.seq += 1;
        return { seq: this.h.seq, ts: this.h.ts, input, events: [] };
      }
      const events = this.h.apply(input.command as Parameters<Harness['apply']>[0]);
      return { seq: this.h.seq, ts: this.h.ts, input, events };
    });
    this.journal.push(...entries);
    const driver = this.driver;
    this.delivered = this.delivered
      .then(() => this.projector.project(entries))
      .then(() => driver.submitForBatch(committedBatch(entries)));
    return entries;
  }

  /** One engine command, journaled; its events. */
  run(command: EngineInput): AppliedEntry['events'] {
    const meta = command.type === 'place' ? { meta: metaOf(command.orderId) } : {};
    return this.commit([{ kind: 'engine', command, ...meta }])[0]!.events;
  }

  credit(account: string, amount: bigint): void {
    this.run({ type: 'credit', account, amount });
  }

  place(p: PlaceInput): AppliedEntry['events'] {
    return this.run(this.h.placeCommand(p));
  }

  /** Lets the projections, the driver's scheduled work and the receipts' journaling run. */
  async turns(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.delivered;
      await this.driver.drained();
      await this.delivered;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Mines one block (if anything is pending) and lets the driver take its receipts. */
  async block(): Promise<void> {
    await this.turns();
    await this.timer.tick();
    await this.turns();
  }

  /**
   * Mines blocks until nothing is queued, outstanding or under way; false when that takes more than
   * `maxBlocks` (the driver is stuck, or spins without progress).
   */
  async settle(maxBlocks = 20): Promise<boolean> {
    for (let i = 0; i <= maxBlocks; i++) {
      await this.turns();
      const b = this.driver.backlog();
      if (b.queuedItems === 0 && b.outstandingItems === 0 && b.inFlight === 0) return true;
      if (i < maxBlocks) await this.block();
    }
    return false;
  }

  /** The driver's reconciliation (exact only once settled). */
  reconcile(): Promise<ReconcileReport> {
    return this.driver.reconcile();
  }

  /** What the engine says each account holds, and what the chain holds for it (wallets, then the pool). */
  async books(accounts: readonly string[]) {
    const engine: Record<string, bigint> = {};
    const chain: Record<string, bigint> = {};
    let mustEscrow = 0n;
    for (const a of accounts) {
      const b = this.h.engine.balance(a);
      engine[a] = b.available;
      chain[a] = await this.chain.balanceOf(walletOf(a));
      mustEscrow += b.escrowed - this.h.engine.owed(a);
    }
    engine.pool = mustEscrow;
    chain.pool = await this.chain.balanceOf(this.chain.escrowAddress);
    return { engine, chain };
  }
}
