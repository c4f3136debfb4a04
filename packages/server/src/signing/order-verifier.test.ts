import { readFileSync } from 'node:fs';
import { buildOrderDomain, orderId } from '@oddsbook/protocol';
import { type Hex, hashTypedData, recoverTypedDataAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { createOrderVerifier, type WireOrder } from './order-verifier.js';
import { recoverSigner } from './recover-signer.js';
import { makeSignedOrders } from './test-orders.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../protocol/src/test-vectors/safe-vectors.json', import.meta.url), 'utf8'),
).orderVectors as {
  domain: ReturnType<typeof buildOrderDomain>;
  message: WireOrder;
  digest: Hex;
  signature: Hex;
  signer: Hex;
}[];

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ORDER_TYPES = {
  Order: [
    { name: 'marketHash', type: 'bytes32' },
    { name: 'baseToken', type: 'address' },
    { name: 'totalBetSize', type: 'uint256' },
    { name: 'percentageOdds', type: 'uint256' },
    { name: 'salt', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'isMakerBettingOutcomeOne', type: 'bool' },
  ],
} as const;

function viemMessage(o: WireOrder) {
  return {
    marketHash: o.marketHash as Hex,
    baseToken: o.baseToken as Hex,
    totalBetSize: BigInt(o.totalBetSize),
    percentageOdds: BigInt(o.percentageOdds),
    salt: BigInt(o.salt),
    expiry: BigInt(o.expiry),
    maker: o.maker as Hex,
    isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
  };
}

/** The high-s twin of a signature: (r, n - s, v ^ 1). Recovers the same key. */
function malleate(signature: Hex): Hex {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  return `0x${r}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
}

describe('order verifier', () => {
  it('reproduces the cross-library Order vectors', () => {
    for (const v of vectors) {
      const verifier = createOrderVerifier(v.domain);
      expect(verifier.orderId(v.message)).toBe(v.digest);
      expect(verifier.verify(v.message, v.signature)).toEqual({
        ok: true,
        orderId: v.digest,
        signer: v.signer,
      });
    }
  });

  it('agrees with viem hashTypedData and recoverTypedDataAddress on 300 random orders', async () => {
    const domain = buildOrderDomain({
      name: 'oddsbook',
      chainId: 79479957,
      verifyingContract: '0x4574B7B01Ad86f2a1c2f5514D3BC2F69338579ee',
    });
    const verifier = createOrderVerifier(domain);
    const orders = await makeSignedOrders(domain, 300, 7);
    for (const { order, signature, signer } of orders) {
      const digest = hashTypedData({
        domain,
        types: ORDER_TYPES,
        primaryType: 'Order',
        message: viemMessage(order),
      });
      expect(orderId(domain, order as Parameters<typeof orderId>[1])).toBe(digest);
      const viemSigner = await recoverTypedDataAddress({
        domain,
        types: ORDER_TYPES,
        primaryType: 'Order',
        message: viemMessage(order),
        signature,
      });
      expect(viemSigner).toBe(signer);
      expect(verifier.verify(order, signature)).toEqual({ ok: true, orderId: digest, signer });
    }
  });

  it('accepts v as 0/1 as well as 27/28', () => {
    const v = vectors[0]!;
    const verifier = createOrderVerifier(v.domain);
    const v01 = `${v.signature.slice(0, 130)}0${Number.parseInt(v.signature.slice(130), 16) - 27}`;
    expect(verifier.verify(v.message, v01)).toEqual({ ok: true, orderId: v.digest, signer: v.signer });
  });

  it('refuses the high-s twin with MALLEABLE_SIGNATURE', async () => {
    const v = vectors[0]!;
    const twin = malleate(v.signature);
    // viem accepts it and recovers the same signer: that is the point.
    expect(
      await recoverTypedDataAddress({
        domain: v.domain,
        types: ORDER_TYPES,
        primaryType: 'Order',
        message: viemMessage(v.message),
        signature: twin,
      }),
    ).toBe(v.signer);
    const verifier = createOrderVerifier(v.domain);
    expect(verifier.verify(v.message, twin)).toEqual({
      ok: false,
      code: 'MALLEABLE_SIGNATURE',
      orderId: v.digest,
    });
  });

  it('INVALID_SIGNATURE for malformed or unrecoverable signatures', () => {
    const v = vectors[0]!;
    const verifier = createOrderVerifier(v.domain);
    const sig = v.signature;
    const bad = [
      '',
      '0x',
      sig.slice(0, 130),
      `${sig}00`,
      `${sig.slice(0, 130)}1d`, // v = 29
      `${sig.slice(0, 130)}02`,
      `0x${'00'.repeat(32)}${sig.slice(66)}`, // r = 0
      `0x${sig.slice(2, 66)}${'00'.repeat(32)}1b`, // s = 0
      `0x${'ff'.repeat(32)}${sig.slice(66)}`, // r >= n
      `${sig.slice(0, 10)}zz${sig.slice(12)}`,
    ];
    for (const s of bad) {
      expect(verifier.verify(v.message, s), s).toEqual({
        ok: false,
        code: 'INVALID_SIGNATURE',
        orderId: v.digest,
      });
    }
    expect(verifier.verify(v.message, 42 as unknown as string).ok).toBe(false);
  });

  it('a tampered order recovers someone else', () => {
    const v = vectors[0]!;
    const verifier = createOrderVerifier(v.domain);
    const result = verifier.verify({ ...v.message, totalBetSize: '1000000001' }, v.signature);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.signer).not.toBe(v.signer);
  });

  it('MALFORMED_ORDER when a field cannot be encoded', () => {
    const v = vectors[0]!;
    const verifier = createOrderVerifier(v.domain);
    const m = v.message;
    const bad: Partial<WireOrder>[] = [
      { marketHash: '0x1234' },
      { marketHash: `0x${'g'.repeat(64)}` },
      { baseToken: '0x22' },
      { maker: `${m.maker}00` },
      { totalBetSize: '-1' },
      { totalBetSize: '1.5' },
      { totalBetSize: '' },
      { salt: `0x${'f'.repeat(65)}` },
      { salt: `${1n << 256n}` },
      { expiry: 1.5 },
      { expiry: -1 },
      { isMakerBettingOutcomeOne: 'true' as unknown as boolean },
    ];
    for (const patch of bad) {
      expect(verifier.verify({ ...m, ...patch }, v.signature), JSON.stringify(patch)).toEqual({
        ok: false,
        code: 'MALFORMED_ORDER',
      });
      expect(verifier.orderId({ ...m, ...patch })).toBeNull();
    }
    expect(verifier.verify(null as unknown as WireOrder, v.signature).ok).toBe(false);
    // The largest uint256 is fine.
    expect(verifier.orderId({ ...m, salt: `${(1n << 256n) - 1n}` })).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('recoverSigner on a raw digest', () => {
    const v = vectors[1]!;
    const digest = Buffer.from(v.digest.slice(2), 'hex');
    expect(recoverSigner(digest, v.signature)).toEqual({ ok: true, signer: v.signer });
  });
});
