import { keccak256Buffer } from '../signing/native-crypto.js';
import type { ChainBlock, ChainTx, ChainTxPayload, Hash } from './chain-types.js';
import type { SettlementItem, SettlementMove } from './settlement-types.js';

/**
 * JSON with sorted keys and bigints as decimal strings: one byte string per content, so one hash. Native
 * `JSON.stringify` with a replacer that puts an object's keys in order when they are not already (a settlement
 * transaction is thousands of items, hashed at submission: a third of the time of a recursive writer).
 * Keys that are array indices would come first whatever the sort (`JSON.stringify`'s own order): no payload has one.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, canonicalValue);
}

function canonicalValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  let previous: string | null = null;
  for (const key in record) {
    if (previous !== null && !(previous < key)) return sortedCopy(record);
    previous = key;
  }
  return record;
}

function sortedCopy(record: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key];
  return sorted;
}

export function keccakHex(text: string): Hash {
  return `0x${keccak256Buffer(Buffer.from(text, 'utf8')).toString('hex')}`;
}

/** keccak256 of the transaction's content: chain id, sequence number (so equal payloads differ) and payload. */
export function transactionHash(chainId: number, seq: number, payload: ChainTxPayload): Hash {
  return keccakHex(canonicalJson({ chainId, seq, ...payload }));
}

export function blockHash(block: Omit<ChainBlock, 'hash'>, chainId: number): Hash {
  return keccakHex(canonicalJson({ chainId, ...block }));
}

/** Payload for storage: JSON with bigints as strings. */
export function encodePayload(tx: ChainTxPayload): string {
  return JSON.stringify(tx, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export function decodePayload(json: string): ChainTxPayload {
  const raw = JSON.parse(json) as Record<string, unknown> & { kind: ChainTxPayload['kind'] };
  switch (raw.kind) {
    case 'mint':
    case 'transfer':
    case 'escrow':
    case 'release':
      return { ...raw, amount: BigInt(raw.amount as string) } as ChainTxPayload;
    case 'deploySafe':
      return { ...raw, saltNonce: BigInt(raw.saltNonce as string) } as ChainTxPayload;
    case 'settle':
      return {
        ...raw,
        retries: (raw.retries as SettlementItem[]).map(decodeItem),
        items: (raw.items as SettlementItem[]).map(decodeItem),
      } as unknown as ChainTxPayload;
    default:
      return raw as ChainTxPayload;
  }
}

/** A stored settlement item: its moves' amounts back to bigints (the fill's calldata keeps its strings). */
function decodeItem(item: SettlementItem): SettlementItem {
  return {
    ...item,
    moves: item.moves.map((m) => ({ ...m, amount: BigInt(m.amount as unknown as string) }) as SettlementMove),
  };
}

export function toChainTx(
  payload: ChainTxPayload,
  meta: { hash: Hash; seq: number; submittedAt: number },
): ChainTx {
  return { ...payload, ...meta };
}
