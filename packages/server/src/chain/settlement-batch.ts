import { badRequest, conflict } from '../errors/app-error.js';
import { address, positive } from './chain-input.js';
import type { Address, ChainTxPayload } from './chain-types.js';
import type {
  SettlementBatch,
  SettlementItem,
  SettlementItemKind,
  SettlementMove,
} from './settlement-types.js';

const ITEM_KINDS: ReadonlySet<SettlementItemKind> = new Set(['fill', 'payout', 'deposit', 'adjustment']);
/** Ids name journal entries and accounts; anything longer is not one. */
const MAX_ID_LENGTH = 256;

const invalid = (message: string) => badRequest('INVALID_SETTLEMENT', message);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a settlement batch and gives the payload of its transaction (addresses checksummed). Refuses (400) a
 * malformed one: seqs that are not a window, an item without a string id, of an unknown kind, ids repeated in
 * the batch, a move of an unknown kind, not a positive bigint, to or from the escrow pool as a wallet, a mint
 * outside a deposit; and (409) a window that does not start after `cursor`, the highest `lastSeq` submitted.
 */
export function settlementPayload(
  batch: SettlementBatch,
  context: { escrow: Address; cursor: number },
): ChainTxPayload {
  if (!isObject(batch)) throw invalid('the batch must be an object');
  const { firstSeq, lastSeq } = batch;
  if (!Number.isSafeInteger(firstSeq) || !Number.isSafeInteger(lastSeq) || firstSeq < 0 || lastSeq < 0) {
    throw invalid('firstSeq and lastSeq must be non-negative integers');
  }
  if (firstSeq > lastSeq + 1) throw invalid('firstSeq must be at most lastSeq + 1 (an empty window)');
  if (firstSeq <= lastSeq && firstSeq <= context.cursor) {
    throw conflict(
      'SETTLEMENT_OUT_OF_ORDER',
      `the window ${firstSeq}-${lastSeq} does not start after the settlement cursor ${context.cursor}`,
    );
  }
  if (!Array.isArray(batch.retries) || !Array.isArray(batch.items)) {
    throw invalid('retries and items must be arrays');
  }
  const check = new ItemChecker(context.escrow);
  return {
    kind: 'settle',
    firstSeq,
    lastSeq,
    retries: batch.retries.map((r, i) => check.item(r, () => `retries[${i}]`)),
    items: batch.items.map((r, i) => check.item(r, () => `items[${i}]`)),
  };
}

/** Checks a batch's items; `where` names the item or move in a refusal (built only then). */
class ItemChecker {
  private readonly ids = new Set<string>();
  /** A batch names few wallets many times: each is checked once (a check costs a few µs). */
  private readonly wallets = new Map<unknown, Address>();

  constructor(private readonly escrow: Address) {}

  item(raw: SettlementItem, where: () => string): SettlementItem {
    if (!isObject(raw)) throw invalid(`${where()} must be an object`);
    const { id, kind } = raw;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
      throw invalid(`${where()}.id must be a string of 1 to ${MAX_ID_LENGTH} characters`);
    }
    if (this.ids.has(id)) throw invalid(`${where()}.id ${id} is used twice in the batch`);
    this.ids.add(id);
    if (!ITEM_KINDS.has(kind))
      throw invalid(`${where()}.kind is not a settlement item kind: ${String(kind)}`);
    if (!Array.isArray(raw.moves)) throw invalid(`${where()}.moves must be an array`);
    if (raw.fill !== undefined && !isObject(raw.fill)) throw invalid(`${where()}.fill must be an object`);
    const moves = raw.moves.map((m, i) => this.move(m, kind, () => `${where()}.moves[${i}]`));
    // Keys in sorted order, as the transaction's hash writes them (then it has nothing to reorder).
    return raw.fill === undefined ? { id, kind, moves } : { fill: raw.fill, id, kind, moves };
  }

  private move(raw: SettlementMove, itemKind: SettlementItemKind, where: () => string): SettlementMove {
    if (!isObject(raw)) throw invalid(`${where()} must be an object`);
    const amount =
      typeof raw.amount === 'bigint' && raw.amount > 0n
        ? raw.amount
        : positive(raw.amount, `${where()}.amount`);
    switch (raw.kind) {
      case 'escrow':
        return { amount, from: this.wallet(raw.from, () => `${where()}.from`), kind: 'escrow' };
      case 'release':
        return { amount, kind: 'release', to: this.wallet(raw.to, () => `${where()}.to`) };
      case 'mint':
        // Only a deposit creates money: a mint anywhere else would break the engine's conservation.
        if (itemKind !== 'deposit') throw invalid(`${where()} is a mint in a ${itemKind} item`);
        return { amount, kind: 'mint', to: this.wallet(raw.to, () => `${where()}.to`) };
      default:
        throw invalid(`${where()}.kind is not a move kind: ${String((raw as { kind?: unknown }).kind)}`);
    }
  }

  private wallet(value: Address, where: () => string): Address {
    let checked = this.wallets.get(value);
    if (checked === undefined) {
      checked = address(value, where());
      if (checked === this.escrow) throw invalid(`${where()} is the escrow pool, not a wallet`);
      this.wallets.set(value, checked);
    }
    return checked;
  }
}
