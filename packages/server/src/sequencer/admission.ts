import { ByteReader, ByteWriter, SnapshotFormatError } from '../engine/snapshot-codec.js';
import type { FencedRole, HeartbeatInput, OrderMeta, PlaceOrderInput, SequencerInput } from './inputs.js';

/** A fenced role's lease as the journal holds it (`Admission.lease`). */
export type FencedLease = { readonly epoch: number; readonly receiptsThrough: number };

/** An order admitted to wait out its market's in-play betting delay. */
export type DelayedOrder = { order: PlaceOrderInput; meta: OrderMeta; activateAt: number };

/** An account's armed dead-man switch. */
export type HeartbeatDeadline = { timeoutSeconds: number; expiresAt: number };

/** An order id or a client order id kept until its order's expiry (unix seconds). */
type Expiring = { at: number; key: string; client: boolean | 'v2' };

/**
 * The sequencer's own trading state besides the engine (issue 35): what admission decides with, kept in line
 * with the journal by `observe` (live and in replays alike) and saved in checkpoints beside the engine.
 * - every order id that reached the sequencer, until its order expires: a signed order is placed once;
 * - every client order id of an account, until its order expires: a tag names one live order;
 * - the orders admitted to wait out a betting delay, and when each enters the engine;
 * - the accounts' heartbeat deadlines;
 * - the ids of v2 orders (legacy API) until their expiry: the v3 cut-over cancels those still open;
 * - the epoch of each fenced role's lease (the chain node's): what it sent under an older one is refused;
 *   and, from its first epoch on, the last chain block whose receipts are journaled (their memo).
 * Pure and deterministic: time comes with each input.
 */
export class Admission {
  private readonly seen = new Map<string, number>();
  private readonly clientIds = new Map<string, number>();
  /** A min-heap on `at` of the ids above, to forget them once their order has expired. */
  private readonly expiring: Expiring[] = [];
  readonly delayed = new Map<string, DelayedOrder>();
  readonly heartbeats = new Map<string, HeartbeatDeadline>();
  /** v2 order ids with their expiry (unix seconds): open, or done and not yet forgotten. */
  private readonly v2 = new Map<string, number>();
  /** Each fenced role's lease: its newest epoch journaled, and the last block whose receipts are. */
  private readonly leases = new Map<FencedRole, FencedLease>();

  /** Whether the order id was seen (and its order has not expired). */
  hasOrder(orderId: string): boolean {
    return this.seen.has(orderId);
  }

  /** Whether the account's tag names an order that has not expired. */
  hasClientOrderId(account: string, clientOrderId: string): boolean {
    return this.clientIds.has(clientKey(account, clientOrderId));
  }

  /** The role's lease as the journal holds it (epoch 0: none yet). */
  lease(role: FencedRole): FencedLease {
    return this.leases.get(role) ?? { epoch: 0, receiptsThrough: 0 };
  }

  /** The account's admitted orders that match, oldest first. */
  delayedOf(account: string, match: (d: DelayedOrder) => boolean = () => true): DelayedOrder[] {
    const out: DelayedOrder[] = [];
    for (const d of this.delayed.values()) if (d.order.account === account && match(d)) out.push(d);
    return out;
  }

  /**
   * The v2 orders still open: resting in the engine (`isResting`) or waiting out a betting delay, in id order
   * (deterministic: the cut-over journals them in this order).
   */
  openV2Orders(isResting: (orderId: string) => boolean): { resting: string[]; delayed: string[] } {
    const resting: string[] = [];
    const delayed: string[] = [];
    for (const orderId of [...this.v2.keys()].sort()) {
      if (this.delayed.has(orderId)) delayed.push(orderId);
      else if (isResting(orderId)) resting.push(orderId);
    }
    return { resting, delayed };
  }

  /** The earliest time something is due (an admitted order's activation, a heartbeat deadline), or null. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const d of this.delayed.values()) if (next === null || d.activateAt < next) next = d.activateAt;
    for (const h of this.heartbeats.values()) if (next === null || h.expiresAt < next) next = h.expiresAt;
    return next;
  }

  /** Keeps the state in line with a journaled input (`ts`, ms: its time). */
  observe(input: SequencerInput, ts: number): void {
    this.forgetExpired(ts);
    switch (input.kind) {
      case 'engine':
        if (input.command.type === 'place') {
          this.delayed.delete(input.command.orderId);
          this.remember(input.command, input.meta?.clientOrderId ?? null);
          if (input.meta?.api === 'v2') this.rememberV2(input.command);
        }
        break;
      case 'admit':
        this.remember(input.order, input.meta.clientOrderId);
        if (input.meta.api === 'v2') this.rememberV2(input.order);
        this.delayed.set(input.order.orderId, {
          order: input.order,
          meta: input.meta,
          activateAt: input.activateAt,
        });
        break;
      case 'withdraw':
        for (const orderId of input.orderIds) this.delayed.delete(orderId);
        break;
      case 'heartbeat':
        this.heartbeat(input);
        break;
      case 'lease': {
        const lease = this.lease(input.role);
        if (input.epoch > lease.epoch) this.leases.set(input.role, { ...lease, epoch: input.epoch });
        break;
      }
      case 'settlement':
      case 'escrows':
        // Receipts of the chain's blocks through `block`, once the chain is fenced (the projections' block
        // moves alike, so a chain node taking over starts after it).
        if (input.block !== null) {
          const lease = this.leases.get('chain');
          if (lease && input.block > lease.receiptsThrough)
            this.leases.set('chain', { ...lease, receiptsThrough: input.block });
        }
        break;
      default:
        break;
    }
  }

  private heartbeat({ account, timeoutSeconds, expiresAt, ifExpiresAt }: HeartbeatInput): void {
    if (expiresAt !== null) this.heartbeats.set(account, { timeoutSeconds, expiresAt });
    else if (ifExpiresAt === undefined || this.heartbeats.get(account)?.expiresAt === ifExpiresAt)
      this.heartbeats.delete(account);
  }

  private remember(order: PlaceOrderInput, clientOrderId: string | null): void {
    if (!this.seen.has(order.orderId)) {
      this.seen.set(order.orderId, order.expiry);
      this.push({ at: order.expiry, key: order.orderId, client: false });
    }
    if (clientOrderId !== null) {
      const key = clientKey(order.account, clientOrderId);
      if ((this.clientIds.get(key) ?? -1) < order.expiry) {
        this.clientIds.set(key, order.expiry);
        this.push({ at: order.expiry, key, client: true });
      }
    }
  }

  private rememberV2(order: PlaceOrderInput): void {
    if (this.v2.has(order.orderId)) return;
    this.v2.set(order.orderId, order.expiry);
    this.push({ at: order.expiry, key: order.orderId, client: 'v2' });
  }

  /** Forgets the ids of orders expired at `ts` (ms): a replay of one is refused as expired anyway. */
  forgetExpired(ts: number): void {
    const now = Math.floor(ts / 1000);
    const heap = this.expiring;
    while (heap.length > 0 && heap[0]!.at <= now) {
      const { at, key, client } = this.pop()!;
      const map = client === 'v2' ? this.v2 : client ? this.clientIds : this.seen;
      if (map.get(key) === at) map.delete(key);
    }
  }

  private push(item: Expiring): void {
    const heap = this.expiring;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= item.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
  }

  private pop(): Expiring | undefined {
    const heap = this.expiring;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= last.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }

  // ------------------------------------------------------------------ snapshot

  /** The state as bytes (for checkpoints), canonical: equal states give equal bytes. */
  snapshotBytes(): Uint8Array {
    const w = new ByteWriter(1024 + (this.seen.size + this.v2.size) * 80 + this.clientIds.size * 110);
    // Without v2 orders, the bytes of before the legacy API (OBA1): their state hashes stay comparable; the
    // same without leases (OBA3 adds them, after the v2 orders).
    const withLeases = this.leases.size > 0;
    const withV2 = withLeases || this.v2.size > 0;
    w.u32(withLeases ? ADMISSION_MAGIC_V3 : withV2 ? ADMISSION_MAGIC_V2 : ADMISSION_MAGIC);
    const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const map of withV2 ? [this.seen, this.clientIds, this.v2] : [this.seen, this.clientIds]) {
      const entries = sorted(map);
      w.u32(entries.length);
      for (const [key, at] of entries) {
        w.str(key);
        w.u32(at as number);
      }
    }
    const delayed = sorted(this.delayed);
    w.u32(delayed.length);
    for (const [, d] of delayed) w.str(JSON.stringify(d, bigints));
    const heartbeats = sorted(this.heartbeats);
    w.u32(heartbeats.length);
    for (const [account, h] of heartbeats) {
      w.str(account);
      w.u32(h.timeoutSeconds);
      w.f64(h.expiresAt);
    }
    if (withLeases) {
      const leases = [...this.leases].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      w.u32(leases.length);
      for (const [role, lease] of leases) {
        w.str(role);
        w.f64(lease.epoch);
        w.f64(lease.receiptsThrough);
      }
    }
    return w.finish();
  }

  static restoreBytes(bytes: Uint8Array): Admission {
    const r = new ByteReader(bytes);
    const magic = r.u32();
    if (magic !== ADMISSION_MAGIC && magic !== ADMISSION_MAGIC_V2 && magic !== ADMISSION_MAGIC_V3)
      throw new SnapshotFormatError('not an admission snapshot');
    const a = new Admission();
    // OBA1: no v2 orders (a snapshot without any, or from before the legacy API).
    const kinds = magic === ADMISSION_MAGIC ? ([false, true] as const) : ([false, true, 'v2'] as const);
    for (const client of kinds) {
      const map = client === 'v2' ? a.v2 : client ? a.clientIds : a.seen;
      for (let n = r.u32(); n > 0; n--) {
        const key = r.str();
        const at = r.u32();
        map.set(key, at);
        a.push({ at, key, client });
      }
    }
    for (let n = r.u32(); n > 0; n--) {
      const d = JSON.parse(r.str()) as DelayedOrder & {
        order: { percentageOdds: string; totalBetSize: string };
      };
      const order = {
        ...d.order,
        percentageOdds: BigInt(d.order.percentageOdds),
        totalBetSize: BigInt(d.order.totalBetSize),
      } as PlaceOrderInput;
      a.delayed.set(order.orderId, { order, meta: d.meta, activateAt: d.activateAt });
    }
    for (let n = r.u32(); n > 0; n--) {
      const account = r.str();
      const timeoutSeconds = r.u32();
      a.heartbeats.set(account, { timeoutSeconds, expiresAt: r.f64() });
    }
    if (magic === ADMISSION_MAGIC_V3) {
      for (let n = r.u32(); n > 0; n--) {
        const role = r.str() as FencedRole;
        const epoch = r.f64();
        a.leases.set(role, { epoch, receiptsThrough: r.f64() });
      }
    }
    r.end();
    return a;
  }
}

const clientKey = (account: string, clientOrderId: string) => `${account}|${clientOrderId}`;
const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/** 'OBA1' read as a little-endian u32. */
const ADMISSION_MAGIC = 0x3141_424f;
/** 'OBA2': with the v2 orders after the client order ids. */
const ADMISSION_MAGIC_V2 = 0x3241_424f;
/** 'OBA3': OBA2 with the fenced roles' lease epochs at the end. */
const ADMISSION_MAGIC_V3 = 0x3341_424f;
