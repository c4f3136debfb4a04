import type { ChainReceipt } from '../chain/chain-types.js';
import type { EscrowFills, EscrowReceipt } from '../sequencer/inputs.js';

/**
 * Data dirs from before settlement transactions (issue 33) escrowed one account's stakes per flush
 * (`escrow:<account>:<firstSeq>-<lastSeq>`), or one fill per escrow (`fill:<id>`). Their receipts, still to
 * come when such a data dir starts again, go to the journal as `escrows` inputs, as they always did.
 */
export function parseEscrowMemo(memo: string | null): EscrowFills | null {
  if (!memo) return null;
  if (memo.startsWith('escrow:')) {
    const colon = memo.lastIndexOf(':');
    const range = memo.slice(colon + 1).match(/^(\d+)-(\d+)$/);
    const account = memo.slice('escrow:'.length, colon);
    if (!range || !account) return null;
    return { account, firstSeq: Number(range[1]), lastSeq: Number(range[2]) };
  }
  if (memo.startsWith('fill:')) return { fillId: memo.slice('fill:'.length) };
  return null;
}

/** The escrow receipts among receipts (in their order), as the sequencer takes them. */
export function legacyEscrowsOf(receipts: readonly ChainReceipt[]): EscrowReceipt[] {
  const escrows: EscrowReceipt[] = [];
  for (const r of receipts) {
    const fills = r.tx.kind === 'escrow' ? parseEscrowMemo(r.tx.memo) : null;
    if (fills) escrows.push({ ...fills, ok: r.status === 'success' });
  }
  return escrows;
}
