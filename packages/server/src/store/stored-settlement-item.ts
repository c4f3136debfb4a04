import type { SettlementItem } from '../chain/settlement-types.js';

/** A settlement item as a store keeps it (its JSON, amounts as decimal strings), without its receipt's status. */
export function parseStoredItem(json: string): SettlementItem {
  const {
    status: _status,
    error: _error,
    ...item
  } = JSON.parse(json) as SettlementItem & {
    status?: string;
    error?: string | null;
  };
  return { ...item, moves: item.moves.map((move) => ({ ...move, amount: BigInt(move.amount) })) };
}
