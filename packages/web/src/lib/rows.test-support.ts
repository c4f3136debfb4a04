import type { OrderRow } from '@oddsbook/protocol';

/** A 32-byte hash made of a number, for the tests' ids and market hashes. */
export const H = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** An open order row of 10 USDC with nothing matched, with `over` on top. */
export const orderRow = (over: Partial<OrderRow>): OrderRow =>
  ({
    id: H(100),
    marketHash: H(1),
    status: 'ACTIVE',
    inactiveReason: null,
    fillAmount: '0',
    totalBetSize: '10000000',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  }) as OrderRow;
