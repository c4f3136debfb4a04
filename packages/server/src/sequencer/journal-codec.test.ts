import { describe, expect, it } from 'vitest';
import type { SequencerInput } from './inputs.js';
import { decodeInput, encodeInput } from './journal-codec.js';

const meta = {
  commandId: 'c1',
  eventId: 'E1',
  clientOrderId: null,
  salt: '0x01',
  baseToken: '0x0000000000000000000000000000000000000001',
  signature: '0xab',
};
const place = {
  type: 'place',
  orderId: '0x01',
  account: '0xA1',
  marketHash: '0xm',
  isBettingOutcomeOne: true,
  percentageOdds: 50_000_000_000_000_000_000n,
  totalBetSize: (1n << 70n) + 1n,
  expiry: 4_000_000_000,
  timeInForce: 'GTC',
} as const;

describe('journal codec', () => {
  it.each<[string, SequencerInput]>([
    ['an order', { kind: 'engine', command: place, meta }],
    ['a credit', { kind: 'engine', command: { type: 'credit', account: '0xA1', amount: 10n ** 30n } }],
    ['a debit', { kind: 'engine', command: { type: 'debit', account: '0xA1', amount: 5n } }],
    ['an admitted order', { kind: 'admit', order: place, meta, activateAt: 9 }],
    ['a withdrawal', { kind: 'withdraw', orderIds: ['0x01'], reason: 'CANCELLED' }],
    ['a cancel', { kind: 'engine', command: { type: 'cancel', orderIds: ['0x01'], account: '0xA1' } }],
  ])('gives back %s exactly, amounts as bigints', (_name, input) => {
    const payload = encodeInput(input);
    expect(payload).not.toMatch(/\d+n/);
    expect(decodeInput(payload)).toEqual(input);
  });
});
