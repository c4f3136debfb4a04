import { buildOrderDomain } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderVerifier, type VerifyResult, type WireOrder } from './order-verifier.js';
import { makeSignedOrders, type SignedTestOrder } from './test-orders.js';
import { createVerifierPool } from './verifier-pool.js';
import { decodeReply, decodeRequest, encodeReply, encodeRequest, type WireItem } from './verifier-wire.js';

const domain = buildOrderDomain({
  name: 'oddsbook',
  chainId: 4162,
  verifyingContract: '0xa70B8BddF7B752f3756BecCB7710584d47597fC3',
});

/** Valid orders, then every kind of malformed input a caller could hand the pool. */
function edgeCases(orders: readonly SignedTestOrder[]): WireItem[] {
  const [a, b] = orders as [SignedTestOrder, SignedTestOrder];
  const with_ = (patch: Record<string, unknown>, signature: unknown = a.signature): WireItem => ({
    order: { ...a.order, ...patch } as unknown as WireOrder,
    signature: signature as string,
  });
  return [
    { order: a.order, signature: a.signature },
    { order: b.order, signature: b.signature },
    {
      order: { ...b.order, totalBetSize: `0x${BigInt(b.order.totalBetSize).toString(16)}` },
      signature: b.signature,
    },
    with_({ expiry: Number(a.order.expiry) }),
    with_({ expiry: String(a.order.expiry) }),
    with_({ expiry: 0 }),
    with_({ expiry: -0 }),
    with_({ expiry: -1 }),
    with_({ expiry: 1.5 }),
    with_({ expiry: 2 ** 53 }),
    with_({ expiry: Number.MAX_SAFE_INTEGER }),
    with_({ expiry: '9007199254740992' }),
    with_({ expiry: Number.NaN }),
    with_({ expiry: null }),
    with_({ expiry: 10n }),
    with_({ totalBetSize: 5 }),
    with_({ salt: '' }),
    with_({ salt: '01' }),
    with_({ salt: `${'9'.repeat(78)}` }),
    with_({ salt: `0x${'f'.repeat(65)}` }),
    with_({ marketHash: `${a.order.marketHash.slice(0, 10)}|${a.order.marketHash.slice(11)}` }),
    with_({ marketHash: a.order.marketHash.toUpperCase().replace('0X', '0x') }),
    with_({ baseToken: 'x|y|z' }),
    with_({ maker: `${a.order.maker}|` }),
    with_({ maker: 42 }),
    with_({ percentageOdds: '1|2' }),
    with_({ isMakerBettingOutcomeOne: 'true' }),
    with_({ isMakerBettingOutcomeOne: 1 }),
    with_({ isMakerBettingOutcomeOne: undefined }),
    with_({ isMakerBettingOutcomeOne: !a.order.isMakerBettingOutcomeOne }),
    with_({}, `${a.signature.slice(0, 20)}|${a.signature.slice(21)}`),
    with_({}, 7),
    with_({}, undefined),
    with_({}, '0x00'),
    with_({}, `${a.signature.slice(0, 130)}1b`),
    with_({}, `${a.signature.slice(0, 66)}${'f'.repeat(64)}${a.signature.slice(130)}`),
    { order: null as unknown as WireOrder, signature: a.signature },
    { order: 'order' as unknown as WireOrder, signature: a.signature },
    { order: {} as WireOrder, signature: a.signature },
    { order: a.order, signature: '' },
    with_({ extra: 'ignored|field' }),
  ];
}

describe('verifier wire format', () => {
  let orders: SignedTestOrder[];
  beforeAll(async () => {
    orders = await makeSignedOrders(domain, 4, 7);
  });

  it('a decoded request verifies exactly as the original items', () => {
    const local = createOrderVerifier(domain);
    const items = edgeCases(orders);
    const decoded = decodeRequest(encodeRequest(41, items));
    expect(decoded.id).toBe(41);
    expect(decoded.items).toHaveLength(items.length);
    const codes = new Set<string>();
    items.forEach((item, i) => {
      const expected = local.verify(item.order, item.signature);
      codes.add(expected.ok ? 'ok' : expected.code);
      expect(local.verify(decoded.items[i]!.order, decoded.items[i]!.signature), `case ${i}`).toStrictEqual(
        expected,
      );
    });
    // The cases reach every outcome.
    expect([...codes].sort()).toEqual(['INVALID_SIGNATURE', 'MALFORMED_ORDER', 'MALLEABLE_SIGNATURE', 'ok']);
  });

  it('replies decode to the same results, absent orderIds included', () => {
    const local = createOrderVerifier(domain);
    const results: VerifyResult[] = edgeCases(orders).map((i) => local.verify(i.order, i.signature));
    const decoded = decodeReply(encodeReply(7, results));
    expect(decoded.id).toBe(7);
    expect(decoded.results).toStrictEqual(results);
    expect(decodeRequest(encodeRequest(3, [])).items).toEqual([]);
    expect(decodeReply(encodeReply(3, [])).results).toEqual([]);
  });

  describe('through the pool', () => {
    const pool = createVerifierPool({ domain, size: 1 });
    afterAll(() => pool.close());

    it('workers give the in-thread results for every edge case', async () => {
      const local = createOrderVerifier(domain);
      const items = edgeCases(orders);
      const results = await pool.verifyBatch(items);
      expect(results).toStrictEqual(items.map((i) => local.verify(i.order, i.signature)));
      expect(pool.stats().onWorkers).toBe(items.length);
    });
  });
});
