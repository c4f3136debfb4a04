import { legTradeIdOf, tradeIdOf } from '../records/records.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import type { PositionKey, ProjectionReads } from './projection-store.js';

/**
 * The committed rows a batch's projection reads, from its inputs and events: the orders and trades its
 * events change, the positions its fills and refunds add to, whether its markets have had refunds, and
 * what its receipts and reversals decide from. `known` leaves out what the projector already holds.
 */
export function projectionReads(
  entries: readonly AppliedEntry[],
  known: { order(orderId: string): boolean; refunds(marketHash: string): boolean },
): ProjectionReads {
  const orders = new Set<string>();
  const trades = new Set<string>();
  const positions = new Map<string, PositionKey>();
  const refundMarkets = new Set<string>();
  const reads: Omit<ProjectionReads, 'orders' | 'trades' | 'positions' | 'refundMarkets'> & {
    windows: { firstSeq: number; lastSeq: number }[];
    matches: { seq: number; matchId: string }[];
    escrows: ProjectionReads['escrows'][number][];
  } = { outstanding: false, windows: [], matches: [], escrows: [] };
  const position = (marketHash: string, account: string) =>
    positions.set(`${marketHash}|${account}`, { marketHash, account });

  for (const { input, events } of entries) {
    if (input.kind === 'admit') orders.add(input.order.orderId);
    else if (input.kind === 'withdraw') for (const id of input.orderIds) orders.add(id);
    else if (input.kind === 'engine' && input.command.type === 'place') orders.add(input.command.orderId);
    else if (input.kind === 'escrows') reads.escrows.push(...input.escrows);
    else if (input.kind === 'settlement') {
      reads.outstanding = true;
      for (const tx of input.txs)
        if (tx.firstSeq <= tx.lastSeq) reads.windows.push({ firstSeq: tx.firstSeq, lastSeq: tx.lastSeq });
    }
    for (const event of events) {
      switch (event.type) {
        case 'orderRested':
        case 'orderDone':
          orders.add(event.orderId);
          break;
        case 'orderMatched':
          for (const orderId of [event.makerOrderId, event.takerOrderId]) {
            orders.add(orderId);
            if (event.legs) for (const leg of [0, 1] as const) trades.add(legTradeIdOf(orderId, leg));
            else trades.add(tradeIdOf(orderId));
          }
          for (const part of event.legs ?? [event]) {
            position(part.marketHash, event.makerAccount);
            position(part.marketHash, event.takerAccount);
            refundMarkets.add(part.marketHash);
          }
          break;
        case 'ceRefund':
          position(event.marketHash, event.account);
          break;
        case 'fillReversed':
          reads.matches.push({ seq: Number.parseInt(event.matchId, 10), matchId: event.matchId });
          break;
        default:
          break;
      }
    }
  }
  return {
    ...reads,
    orders: [...orders].filter((id) => !known.order(id)),
    trades: [...trades],
    positions: [...positions.values()],
    refundMarkets: [...refundMarkets].filter((m) => !known.refunds(m)),
  };
}
