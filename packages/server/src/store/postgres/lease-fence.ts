/**
 * The lease a node writes under (the projector's or the chain's, `role_leases`; ADR 0018), with what to do
 * once it finds it taken.
 */
export type LeaseFence = {
  readonly role: string;
  readonly epoch: number;
  /** Called once, at the first write refused: this node must stop working at once. */
  readonly onFenced?: (error: LeaseFenced) => void;
};

/** The SQLSTATE `role_lease_fence` raises (migration 7). */
export const LEASE_FENCED_SQLSTATE = 'OBF01';

/** A write refused: the role's lease was taken by a successor (a higher epoch in `role_leases`). */
export class LeaseFenced extends Error {
  override name = 'LeaseFenced';
  constructor(
    readonly role: string,
    readonly epoch: number,
    options?: { cause?: unknown },
  ) {
    super(`the ${role} lease of epoch ${epoch} was taken: this node no longer writes`, options);
  }
}

/**
 * The first statement of a fenced transaction: it locks the role's row in `role_leases` FOR SHARE and
 * fails unless the epoch there is still `epoch`. A successor's bump (an UPDATE of that row) waits for a
 * transaction in flight to end, and a transaction after the bump reads the new epoch (READ COMMITTED
 * re-reads a row updated under a lock): so once the bump has committed, nothing of the former holder commits.
 */
export function fenceStatement(fence: Pick<LeaseFence, 'role' | 'epoch'>): {
  text: string;
  values: unknown[];
} {
  return { text: 'SELECT role_lease_fence($1, $2)', values: [fence.role, fence.epoch] };
}

/** Whether `error` is the fence's refusal (as PostgreSQL raised it, or already turned into `LeaseFenced`). */
export function isFenceRefusal(error: unknown): boolean {
  return error instanceof LeaseFenced || (error as { code?: unknown } | null)?.code === LEASE_FENCED_SQLSTATE;
}

/**
 * A writer's guard: `refuseIfDeposed` before a write (once fenced, nothing more is sent), `failed` with a
 * write's error (a fence refusal becomes `LeaseFenced`, reported once through `onFenced`).
 */
export class FenceGuard {
  private fenced: LeaseFenced | null = null;

  constructor(readonly fence: LeaseFence) {}

  get statement(): { text: string; values: unknown[] } {
    return fenceStatement(this.fence);
  }

  refuseIfDeposed(): void {
    if (this.fenced) throw this.fenced;
  }

  /** The error to throw for a failed write. */
  failed(error: unknown): unknown {
    if (!isFenceRefusal(error)) return error;
    if (this.fenced) return this.fenced;
    this.fenced =
      error instanceof LeaseFenced
        ? error
        : new LeaseFenced(this.fence.role, this.fence.epoch, { cause: error });
    this.fence.onFenced?.(this.fenced);
    return this.fenced;
  }
}
