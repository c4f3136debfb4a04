/** How often the projector cursor is read while waiting for it. */
export const PROJECTIONS_POLL_MS = 20;
/** While waiting, the wait is reported this often (a projector node that does not run holds it for ever). */
const REPORT_EVERY_MS = 5_000;

/**
 * Resolves once the projections (the projector node's `projector_cursor`) include the entry at `seq`: the
 * settlement driver starts from what the projections recorded of the journaled receipts (the items to
 * submit again, the last block handed on, every account's money), so those must be at least where the
 * driver takes up the journal (ADR 0018). Rejects when `cancelled` says so (the node is stopping).
 */
export async function projectionsReached(o: {
  readCursor: () => Promise<number>;
  seq: number;
  pollMs?: number;
  onWaiting?: (projectedSeq: number) => void;
  cancelled?: () => unknown;
}): Promise<void> {
  let reported = performance.now();
  for (;;) {
    const cancelled = o.cancelled?.();
    if (cancelled) throw cancelled;
    const projected = await o.readCursor();
    if (projected >= o.seq) return;
    if (performance.now() - reported >= REPORT_EVERY_MS) {
      reported = performance.now();
      o.onWaiting?.(projected);
    }
    await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? PROJECTIONS_POLL_MS));
  }
}
