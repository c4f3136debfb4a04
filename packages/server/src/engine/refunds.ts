/**
 * Capital-efficiency refunds of a fill, as balances see them: the stake into escrow and the refund back as
 * one net move per party (`lockFillStake`), and the `ceRefund` events (the amounts come from the
 * positions, `MarketBook.fill`).
 */
import type { EngineState } from './engine-state.js';
import type { MarketBook } from './market-book.js';

/** Moves a fill's `stake` from the account's available balance to escrow, and its `refund` back. */
export function lockFillStake(s: EngineState, a: number, stake: bigint, refund: bigint): void {
  const available = s.accounts.available;
  const escrowed = s.accounts.escrowed;
  if (refund === 0n) {
    available.decrease(a, stake);
    escrowed.increase(a, stake);
  } else if (refund <= stake) {
    const locked = stake - refund;
    available.decrease(a, locked);
    escrowed.increase(a, locked);
  } else {
    const freed = refund - stake;
    available.increase(a, freed);
    escrowed.decrease(a, freed);
  }
}

/** Reports a capital-efficiency refund, already moved by `lockFillStake` (see `CeRefundEvent`). */
export function reportRefund(
  s: EngineState,
  market: MarketBook,
  a: number,
  slot: number,
  amount: bigint,
  matchId: string,
  maker: boolean,
  orderId: string,
): void {
  const accounts = s.accounts;
  s.pending[s.eventCount++] = {
    type: 'ceRefund',
    account: accounts.names[a]!,
    marketHash: market.marketHash,
    eventId: market.eventId,
    amount,
    refundedTotal: market.refunded(slot),
    matchId,
    maker,
    orderId,
  };
}
