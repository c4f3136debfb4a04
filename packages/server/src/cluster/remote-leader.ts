import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SafeDeployment, SafeTransactionData } from '@oddsbook/protocol';
import type { Chain, ChainFaultState, ChainFaults, DeploySafeResult, SubmittedTx } from '../chain/chain.js';
import type {
  Address,
  ChainBlock,
  ChainReceipt,
  ChainTx,
  Hash,
  ProxyStatus,
  SafeState,
} from '../chain/chain-types.js';
import type {
  ConfirmInput,
  MultisigService,
  PreparedSafeTx,
  PrepareInput,
  SafeTxProgress,
} from '../chain/multisig.js';
import { ProxyAddresses } from '../chain/proxy-addresses.js';
import type { SettlementFaultClass } from '../chain/settlement-types.js';
import type { ReconcileReport } from '../settlement/reconcile.js';
import type { Reconciler, ReconciliationRun } from '../settlement/reconciliation.js';
import type { SettlementBacklog, SettlementStatus } from '../settlement/settlement-driver.js';
import { LEADER_OPERATIONS, type LeaderOperation, type LeaderReply } from './leader-rpc.js';
import { LEADER_SUBJECT, MAX_RECEIPT_WAIT_MS } from './leader-services.js';
import { requestWithRetries } from './nats-request.js';
import { appErrorOf, decodeWire, encodeWire } from './wire-codec.js';

export type LeaderClientOptions = {
  nc: NatsConnection;
  subject?: string;
  /** How long one attempt of a quick operation waits for the reply (default 2 s). */
  attemptTimeoutMs?: number;
  /**
   * How long one attempt of a slow operation waits (default 30 s): a resolution waits for its market's fills
   * to settle (15 s at most by default), a reconciliation for a quiet moment, a receipt for its block.
   */
  slowAttemptTimeoutMs?: number;
  /** How long a call keeps trying while no leader answers (a failover), from its start (default 10 s). */
  deadlineMs?: number;
  /** The pause between attempts after "no responders" (default 100 ms). */
  retryPauseMs?: number;
};

/**
 * Calls the leader's services (`LeaderServices`) over NATS request/reply. While no leader answers the call
 * is sent again, with the same id, until its deadline, then fails with the project's 503; an operation that
 * is not harmless twice is sent again only when nobody received it (`LEADER_OPERATIONS`). An error of the
 * leader's real implementation is thrown here as the same error (class, status, code, message).
 */
export class LeaderClient {
  readonly #subject: string;
  readonly #attemptTimeoutMs: number;
  readonly #slowAttemptTimeoutMs: number;
  readonly #deadlineMs: number;
  readonly #retryPauseMs: number;

  constructor(private readonly o: LeaderClientOptions) {
    this.#subject = o.subject ?? LEADER_SUBJECT;
    this.#attemptTimeoutMs = o.attemptTimeoutMs ?? 2_000;
    this.#slowAttemptTimeoutMs = o.slowAttemptTimeoutMs ?? 30_000;
    this.#deadlineMs = o.deadlineMs ?? 10_000;
    this.#retryPauseMs = o.retryPauseMs ?? 100;
  }

  /** `args` as the operation takes them; a trailing absent optional argument is left out. */
  async call<T>(op: LeaderOperation, args: unknown[] = []): Promise<T> {
    const spec: { retry: 'always' | 'no-responders'; slow?: boolean } = LEADER_OPERATIONS[op];
    const attemptTimeoutMs = spec.slow ? this.#slowAttemptTimeoutMs : this.#attemptTimeoutMs;
    while (args.length > 0 && args[args.length - 1] === undefined) args = args.slice(0, -1);
    const msg = await requestWithRetries({
      nc: this.o.nc,
      subject: this.#subject,
      data: encodeWire({ id: randomUUID(), op, args }),
      attemptTimeoutMs,
      // A slow operation's attempt may take its whole timeout once a leader has it.
      deadlineMs: spec.slow ? this.#deadlineMs + attemptTimeoutMs : this.#deadlineMs,
      retryPauseMs: this.#retryPauseMs,
      retryTimeouts: spec.retry === 'always',
      responder: 'leader',
    });
    const reply = decodeWire<LeaderReply>(msg.data);
    if (!reply.ok) throw appErrorOf(reply.error);
    return reply.result as T;
  }
}

/** Thrown by what a remote chain does not do on an API node: the leader alone runs the chain's blocks. */
export class RemoteChainUnsupported extends Error {
  override name = 'RemoteChainUnsupported';

  constructor(what: string, why: string) {
    super(`${what} is not available on a remote chain (an API node's): ${why}`);
  }
}

const BLOCKS_ARE_THE_LEADERS =
  'only the leading sequencer runs the chain; its block production starts and stops with its lead';
const SETTLEMENT_IS_THE_LEADERS =
  'only the leader moves money on the chain (its settlement driver, in journal order); an API node never does';
const NO_RECEIPT_FEED =
  'no receipt or block feed crosses NATS: what follows receipts (settlement, multisig) runs in the leader; ' +
  'wait for one transaction with waitForReceipt';

export type RemoteChainOptions = {
  chainId: number;
  baseToken: Address;
  escrowAddress: Address;
  /** The Safe contracts and salt of proxy addresses, as the leader's chain has them (default as its default). */
  safeDeployment?: SafeDeployment;
  saltNonce?: bigint;
};

/**
 * The leader's chain as an API node sees it: reads and the writes the HTTP routes make (proxy deployment,
 * Safe transactions, the faucet's mint, fault injection for drills) are the leader's, over NATS.
 * `proxyAddressFor` is CREATE2 math, computed here. What belongs to the leader alone refuses at once with
 * `RemoteChainUnsupported` rather than doing nothing: block production (`start`, `stop`), the settlement
 * driver's money moves (`transfer`, `escrow`, `release`, `submitMany`, `submitSettlement`), and the receipt
 * and block feeds (`onReceipt`, `onBlock`: nothing on an API node follows them; `waitForReceipt` asks the
 * leader, in waits of at most MAX_RECEIPT_WAIT_MS each).
 */
export class RemoteChain implements Chain, ChainFaults {
  readonly chainId: number;
  readonly baseToken: Address;
  readonly escrowAddress: Address;
  readonly #proxies: ProxyAddresses;

  constructor(
    private readonly leader: LeaderClient,
    o: RemoteChainOptions,
  ) {
    this.chainId = o.chainId;
    this.baseToken = o.baseToken;
    this.escrowAddress = o.escrowAddress;
    this.#proxies = new ProxyAddresses({
      ...(o.safeDeployment ? { safeDeployment: o.safeDeployment } : {}),
      ...(o.saltNonce !== undefined ? { saltNonce: o.saltNonce } : {}),
    });
  }

  start(): void {
    throw new RemoteChainUnsupported('start()', BLOCKS_ARE_THE_LEADERS);
  }
  async stop(): Promise<void> {
    throw new RemoteChainUnsupported('stop()', BLOCKS_ARE_THE_LEADERS);
  }

  blockNumber(): Promise<number> {
    return this.leader.call('chain.blockNumber');
  }
  getBlock(number: number): Promise<ChainBlock | null> {
    return this.leader.call('chain.getBlock', [number]);
  }
  getTransaction(hash: Hash): Promise<ChainTx | null> {
    return this.leader.call('chain.getTransaction', [hash]);
  }
  getReceipt(hash: Hash): Promise<ChainReceipt | null> {
    return this.leader.call('chain.getReceipt', [hash]);
  }

  /** Asks the leader in waits of at most MAX_RECEIPT_WAIT_MS until the receipt lands or `timeoutMs` passes. */
  async waitForReceipt(hash: Hash, options: { timeoutMs?: number } = {}): Promise<ChainReceipt> {
    const until = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    for (;;) {
      const waitMs = Math.max(0, Math.min(MAX_RECEIPT_WAIT_MS, until - Date.now()));
      const receipt = await this.leader.call<ChainReceipt | null>('chain.waitForReceipt', [hash, waitMs]);
      if (receipt) return receipt;
      // The embedded chain's own message for the same timeout.
      if (Date.now() >= until) throw new Error(`no receipt for ${hash} within ${options.timeoutMs} ms`);
    }
  }

  onReceipt(_listener: (receipt: ChainReceipt) => void): () => void {
    throw new RemoteChainUnsupported('onReceipt()', NO_RECEIPT_FEED);
  }
  onBlock(_listener: (block: ChainBlock, receipts: readonly ChainReceipt[]) => void): () => void {
    throw new RemoteChainUnsupported('onBlock()', NO_RECEIPT_FEED);
  }

  proxyAddressFor(owner: Address): Address {
    return this.#proxies.of(owner);
  }
  getProxy(owner: Address): Promise<ProxyStatus> {
    return this.leader.call('chain.getProxy', [owner]);
  }
  deployProxy(owner: Address): Promise<DeploySafeResult> {
    return this.leader.call('chain.deployProxy', [owner]);
  }
  getSafe(safe: Address): Promise<SafeState | null> {
    return this.leader.call('chain.getSafe', [safe]);
  }
  execSafeTransaction(options: {
    safe: Address;
    transaction: SafeTransactionData;
    signatures: Hash;
  }): Promise<SubmittedTx> {
    return this.leader.call('chain.execSafeTransaction', [options]);
  }

  balanceOf(wallet: Address): Promise<bigint> {
    return this.leader.call('chain.balanceOf', [wallet]);
  }
  mint(to: Address, amount: bigint, memo?: string): Promise<SubmittedTx> {
    return this.leader.call('chain.mint', [to, amount, memo]);
  }
  async transfer(): Promise<SubmittedTx> {
    throw new RemoteChainUnsupported('transfer()', SETTLEMENT_IS_THE_LEADERS);
  }
  async escrow(): Promise<SubmittedTx> {
    throw new RemoteChainUnsupported('escrow()', SETTLEMENT_IS_THE_LEADERS);
  }
  async release(): Promise<SubmittedTx> {
    throw new RemoteChainUnsupported('release()', SETTLEMENT_IS_THE_LEADERS);
  }
  async submitMany(): Promise<SubmittedTx[]> {
    throw new RemoteChainUnsupported('submitMany()', SETTLEMENT_IS_THE_LEADERS);
  }
  async submitSettlement(): Promise<SubmittedTx> {
    throw new RemoteChainUnsupported('submitSettlement()', SETTLEMENT_IS_THE_LEADERS);
  }

  // Fault injection: the leader's chain's (409 FAULTS_UNSUPPORTED from the leader when it has none).
  failNextDeployment(): Promise<void> {
    return this.leader.call('chain.failNextDeployment');
  }
  failNextSettlementItems(faultClass: SettlementFaultClass, count: number): Promise<void> {
    return this.leader.call('chain.failNextSettlementItems', [faultClass, count]);
  }
  pauseBlocks(): Promise<void> {
    return this.leader.call('chain.pauseBlocks');
  }
  resumeBlocks(): Promise<void> {
    return this.leader.call('chain.resumeBlocks');
  }
  dropNextBlockAnnouncement(): Promise<void> {
    return this.leader.call('chain.dropNextBlockAnnouncement');
  }
  faults(): Promise<ChainFaultState> {
    return this.leader.call('chain.faults');
  }
}

/**
 * The leader's multisig coordinator. It runs there, not on each API node: its steps (a prepare, a
 * confirmation, a receipt) must run one at a time against the store, and it follows the chain's receipts.
 */
export class RemoteMultisig implements MultisigService {
  constructor(private readonly leader: LeaderClient) {}

  prepare(input: PrepareInput): Promise<PreparedSafeTx> {
    return this.leader.call('multisig.prepare', [input]);
  }
  confirm(input: ConfirmInput): Promise<SafeTxProgress> {
    return this.leader.call('multisig.confirm', [input]);
  }
  progress(safeTxHash: Hash): Promise<SafeTxProgress | null> {
    return this.leader.call('multisig.progress', [safeTxHash]);
  }
}

/**
 * The leader's reconciliation. `run()` runs it there. `last` has to answer at once (the metrics and the route
 * read it as a property), so it is the latest run seen here: this node's last `run()`, or a read of the
 * leader's, which `last` starts when what it holds is older than `lastMaxAgeMs` (the value returned is the
 * one held meanwhile: a metrics scrape sees the leader's run at most one refresh late). `refresh()` reads it
 * at once.
 */
export class RemoteReconciler implements Reconciler {
  #last: ReconciliationRun | null = null;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<ReconciliationRun | null> | null = null;

  constructor(
    private readonly leader: LeaderClient,
    private readonly o: { lastMaxAgeMs?: number; onError?: (error: unknown) => void } = {},
  ) {}

  async run(): Promise<ReconcileReport | null> {
    const run = await this.leader.call<ReconciliationRun | null>('reconciliation.run');
    if (run === null) return null;
    this.#hold(run);
    return run.report;
  }

  get last(): ReconciliationRun | null {
    if (!this.#reading && performance.now() - this.#readAt > (this.o.lastMaxAgeMs ?? 5_000)) {
      this.refresh().catch((error: unknown) => this.o.onError?.(error));
    }
    return this.#last;
  }

  /** Reads the leader's last run now. */
  refresh(): Promise<ReconciliationRun | null> {
    this.#reading ??= this.leader
      .call<ReconciliationRun | null>('reconciliation.last')
      .then((run) => {
        if (run) this.#hold(run);
        return this.#last;
      })
      .finally(() => {
        this.#readAt = performance.now();
        this.#reading = null;
      });
    return this.#reading;
  }

  #hold(run: ReconciliationRun): void {
    if (!this.#last || run.at >= this.#last.at) this.#last = run;
  }
}

/** The leader's settlement driver, as the metrics read it. */
export class RemoteSettlementStatus implements SettlementStatus {
  constructor(private readonly leader: LeaderClient) {}

  backlog(): Promise<SettlementBacklog> {
    return this.leader.call('settlement.backlog');
  }
}

/**
 * What an API node's `Exchange` takes from the leader beside its chain and multisig: the resolution of a
 * market (returns once the market is resolved in the leader, fills settled; the catalog is PostgreSQL's,
 * shared), reconciliation, the settlement backlog.
 */
export type RemoteLeaderOperations = {
  resolveMarket(marketHash: string, outcome: 0 | 1 | 2): Promise<void>;
  reconciliation: RemoteReconciler;
  settlement: RemoteSettlementStatus;
  settlementBacklog(): Promise<SettlementBacklog>;
};

/** Everything an API node needs of the leader, on one NATS client. */
export function remoteLeader(
  o: LeaderClientOptions & {
    chain: RemoteChainOptions;
    reconciliation?: { lastMaxAgeMs?: number; onError?: (error: unknown) => void };
  },
): {
  client: LeaderClient;
  chain: RemoteChain;
  multisig: RemoteMultisig;
  operations: RemoteLeaderOperations;
} {
  const { chain, reconciliation, ...clientOptions } = o;
  const client = new LeaderClient(clientOptions);
  const settlement = new RemoteSettlementStatus(client);
  return {
    client,
    chain: new RemoteChain(client, chain),
    multisig: new RemoteMultisig(client),
    operations: {
      resolveMarket: (marketHash, outcome) => client.call('trading.resolveMarket', [marketHash, outcome]),
      reconciliation: new RemoteReconciler(client, reconciliation),
      settlement,
      settlementBacklog: () => settlement.backlog(),
    },
  };
}
