import type { NatsConnection } from '@nats-io/transport-node';
import type { SafeTransactionData } from '@oddsbook/protocol';
import { type Chain, type ChainFaults, supportsFaults } from '../chain/chain.js';
import type { Address, Hash } from '../chain/chain-types.js';
import type { ConfirmInput, MultisigService, PrepareInput } from '../chain/multisig.js';
import type { SettlementFaultClass } from '../chain/settlement-types.js';
import { badRequest, conflict } from '../errors/app-error.js';
import type { Reconciler } from '../settlement/reconciliation.js';
import type { SettlementStatus } from '../settlement/settlement-driver.js';
import {
  argumentsProblem,
  isLeaderOperation,
  LEADER_OPERATIONS,
  type LeaderOperation,
  type LeaderReply,
  type LeaderRequest,
} from './leader-rpc.js';
import { RequestServer } from './request-server.js';
import { decodeWire, encodeWire, wireError } from './wire-codec.js';

/** Where API nodes ask the leader for its services (request/reply; `clusterNames(...).leader` per cluster). */
export const LEADER_SUBJECT = 'oddsbook.leader.rpc';
/** One queue group: were two leaders ever subscribed at once, each request still goes to one. */
const QUEUE = 'oddsbook-leader';
/** The longest a `chain.waitForReceipt` request holds the leader; the client asks again for longer waits. */
export const MAX_RECEIPT_WAIT_MS = 10_000;

/** The parts only the leader runs, as the HTTP routes use them. */
export type LeaderParts = {
  chain: Chain;
  multisig: MultisigService;
  /** `Trading.resolveMarket`: returns once the market's fills are settled and it is resolved. */
  resolveMarket(marketHash: string, outcome: 0 | 1 | 2): Promise<void>;
  reconciliation: Reconciler;
  settlement: SettlementStatus;
};

export type LeaderServicesOptions = LeaderParts & {
  nc: NatsConnection;
  subject?: string;
  /** How many answered requests are remembered by id, for retries that reach the same leader. */
  rememberReplies?: number;
};

/** Its arguments were checked against the operation's shape: each handler types them as that shape. */
type Handler = (args: never) => unknown;

/**
 * The leader's services over NATS (ADR 0018): the leading sequencer starts them beside its intake and stops
 * them when it stops leading. Each request names one of `LEADER_OPERATIONS`; anything else, or arguments of
 * the wrong shape, is refused with a 400 naming the problem (never thrown in the leader). An error the real
 * implementation throws is answered as it is (class, status, code, message, body: `wireError`), so that a
 * route on an API node answers as the single process does. A retry of a request under way or answered here
 * gets the same reply (by request id): a resolution retried after a timeout is not run twice beside itself.
 */
export class LeaderServices {
  readonly subject: string;
  readonly #server: RequestServer<LeaderRequest>;
  readonly #handlers: Record<LeaderOperation, Handler>;

  constructor(o: LeaderServicesOptions) {
    this.subject = o.subject ?? LEADER_SUBJECT;
    this.#handlers = handlersOf(o);
    this.#server = new RequestServer({
      nc: o.nc,
      subject: this.subject,
      queue: QUEUE,
      remember: o.rememberReplies ?? 1_000,
      decode: (data) => {
        const request = decodeWire<LeaderRequest>(data);
        if (typeof request !== 'object' || request === null || typeof request.id !== 'string')
          throw new Error('not a leader request');
        return request;
      },
      refuse: (error) => encodeReply({ ok: false, error: wireError(badRequest('BAD_REQUEST', `${error}`)) }),
      answer: (request) => this.#answer(request).then(encodeReply),
    });
  }

  get serving(): boolean {
    return this.#server.serving;
  }

  /** Starts answering; resolves once the server has the subscription. */
  start(): Promise<void> {
    return this.#server.start();
  }

  /** Stops taking requests; those taken are still answered (the subscription drains). */
  stop(): Promise<void> {
    return this.#server.stop();
  }

  async #answer({ op, args }: LeaderRequest): Promise<LeaderReply> {
    if (!isLeaderOperation(op)) {
      return refused(
        `unknown leader operation ${JSON.stringify(op)}; the leader serves ${Object.keys(LEADER_OPERATIONS).join(', ')}`,
      );
    }
    const problem = argumentsProblem(op, args);
    if (problem) return refused(`${op}: ${problem}`);
    try {
      return { ok: true, result: await this.#handlers[op](args as never) };
    } catch (error) {
      return { ok: false, error: wireError(error, 'leader') };
    }
  }
}

const encodeReply = (reply: LeaderReply): string => {
  try {
    return encodeWire(reply);
  } catch (error) {
    // A result the wire cannot carry is the leader's fault (a 500), never a lost reply.
    return encodeWire({ ok: false, error: wireError(error, 'leader') } satisfies LeaderReply);
  }
};

const refused = (message: string): LeaderReply => ({
  ok: false,
  error: wireError(badRequest('BAD_REQUEST', message)),
});

/** Each operation on the real parts; the arguments' shape is checked before (`argumentsProblem`). */
function handlersOf(parts: LeaderParts): Record<LeaderOperation, Handler> {
  const { chain, multisig, reconciliation, settlement } = parts;
  const faults = (): ChainFaults => {
    if (!supportsFaults(chain)) throw conflict('FAULTS_UNSUPPORTED', 'this chain has no fault injection');
    return chain;
  };
  return {
    'chain.blockNumber': () => chain.blockNumber(),
    'chain.getBlock': ([n]: [number]) => chain.getBlock(n),
    'chain.getTransaction': ([hash]: [Hash]) => chain.getTransaction(hash),
    'chain.getReceipt': ([hash]: [Hash]) => chain.getReceipt(hash),
    'chain.waitForReceipt': ([hash, waitMs]: [Hash, number]) => receiptWithin(chain, hash, waitMs),
    'chain.getProxy': ([owner]: [Address]) => chain.getProxy(owner),
    'chain.deployProxy': ([owner]: [Address]) => chain.deployProxy(owner),
    'chain.getSafe': ([safe]: [Address]) => chain.getSafe(safe),
    'chain.execSafeTransaction': ([o]: [
      { safe: Address; transaction: SafeTransactionData; signatures: Hash },
    ]) => chain.execSafeTransaction(o),
    'chain.balanceOf': ([wallet]: [Address]) => chain.balanceOf(wallet),
    'chain.mint': ([to, amount, memo]: [Address, bigint, string | null | undefined]) =>
      chain.mint(to, amount, memo ?? undefined),
    'chain.faults': () => faults().faults(),
    'chain.failNextDeployment': () => faults().failNextDeployment(),
    'chain.failNextSettlementItems': ([faultClass, count]: [SettlementFaultClass, number]) =>
      faults().failNextSettlementItems(faultClass, count),
    'chain.pauseBlocks': () => faults().pauseBlocks(),
    'chain.resumeBlocks': () => faults().resumeBlocks(),
    'chain.dropNextBlockAnnouncement': () => faults().dropNextBlockAnnouncement(),
    'multisig.prepare': ([input]: [PrepareInput]) => multisig.prepare(input),
    'multisig.confirm': ([input]: [ConfirmInput]) => multisig.confirm(input),
    'multisig.progress': ([hash]: [Hash]) => multisig.progress(hash),
    'trading.resolveMarket': ([marketHash, outcome]: [string, 0 | 1 | 2]) =>
      parts.resolveMarket(marketHash, outcome),
    'reconciliation.run': async () => {
      const report = await reconciliation.run();
      if (report === null) return null;
      const last = reconciliation.last;
      // Another run may have ended meanwhile: this run's own time, else now.
      return { at: last?.report === report ? last.at : Date.now(), report };
    },
    'reconciliation.last': () => reconciliation.last,
    'settlement.backlog': () => settlement.backlog(),
  };
}

/** The receipt, or null when none came within `waitMs` (at most MAX_RECEIPT_WAIT_MS). */
async function receiptWithin(chain: Chain, hash: Hash, waitMs: number) {
  const timeoutMs = Math.max(0, Math.min(waitMs, MAX_RECEIPT_WAIT_MS));
  const landed = await chain.getReceipt(hash);
  if (landed || timeoutMs === 0) return landed;
  // Rejected when none came in time: a read then tells "not yet" (null) from a failure (it throws).
  return chain.waitForReceipt(hash, { timeoutMs }).catch(() => chain.getReceipt(hash));
}
