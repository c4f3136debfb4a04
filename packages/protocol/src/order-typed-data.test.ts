import { readFileSync } from 'node:fs';
import { type Address, type Hex, hashTypedData, keccak256, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  buildOrderDomain,
  ORDER_DOMAIN_TYPEHASH,
  ORDER_TYPE_STRING,
  ORDER_TYPEHASH,
  type OrderDomain,
  type OrderMessage,
  orderDomainSeparator,
  orderId,
  orderStructHash,
  orderTypedData,
} from './order-typed-data.js';

const V = JSON.parse(
  readFileSync(new URL('./test-vectors/safe-vectors.json', import.meta.url), 'utf8'),
  // biome-ignore lint/suspicious/noExplicitAny: JSON vectors are read loosely
) as Record<string, any>;
const PK_A = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

type OrderVector = {
  domain: OrderDomain;
  message: OrderMessage;
  domainSeparator: Hex;
  structHash: Hex;
  digest: Hex;
  signature: Hex;
  signer: Address;
};
const vectors = V.orderVectors as OrderVector[];

describe('Order EIP-712', () => {
  it('type hashes', () => {
    expect(keccak256(new TextEncoder().encode(ORDER_TYPE_STRING))).toBe(ORDER_TYPEHASH);
    expect(ORDER_TYPEHASH).toBe(V.ORDER_TYPEHASH);
    expect(ORDER_DOMAIN_TYPEHASH).toBe(V['EIP712Domain typehash (name,version,chainId,verifyingContract)']);
    expect(
      keccak256(
        new TextEncoder().encode(
          'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
        ),
      ),
    ).toBe(ORDER_DOMAIN_TYPEHASH);
  });

  it('marketHash of the vectors is keccak("sx-test-market-1")', () => {
    expect(keccak256(new TextEncoder().encode('sx-test-market-1'))).toBe(vectors[0]!.message.marketHash);
  });

  it('domain builder', () => {
    const d = buildOrderDomain({
      name: 'SX Bet',
      chainId: 4162,
      verifyingContract: '0x1111111111111111111111111111111111111111',
    });
    expect(d).toEqual(vectors[0]!.domain);
    expect(orderDomainSeparator(d)).toBe(vectors[0]!.domainSeparator);
  });

  for (const v of vectors) {
    it(`vector isMakerBettingOutcomeOne=${v.message.isMakerBettingOutcomeOne}`, async () => {
      expect(orderStructHash(v.message)).toBe(v.structHash);
      expect(orderId(v.domain, v.message)).toBe(v.digest);
      // With `EIP712Domain` among the types, viem types the domain by it: its uint256 chainId is a bigint.
      const typed = {
        ...orderTypedData(v.domain, v.message),
        domain: { ...v.domain, chainId: BigInt(v.domain.chainId) },
      };
      expect(hashTypedData(typed)).toBe(v.digest);
      const signature = await privateKeyToAccount(PK_A).signTypedData(typed);
      expect(signature).toBe(v.signature);
      expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(v.signer);
    });
  }

  it('accepts bigint, decimal and hex spellings of the same uints', () => {
    const v = vectors[0]!;
    const m = v.message;
    expect(
      orderId(v.domain, {
        ...m,
        totalBetSize: BigInt(m.totalBetSize),
        salt: `0x${BigInt(m.salt).toString(16)}`,
        expiry: Number(m.expiry),
      }),
    ).toBe(v.digest);
  });

  it('rejects malformed uints', () => {
    const v = vectors[0]!;
    for (const bad of ['', ' 1', '-1', '1.5', '0b1', '01', `${1n << 256n}`]) {
      expect(() => orderId(v.domain, { ...v.message, totalBetSize: bad }), bad).toThrow(RangeError);
    }
  });

  it('a different chain id gives a different id', () => {
    const v = vectors[0]!;
    expect(orderId({ ...v.domain, chainId: 79479957 }, v.message)).not.toBe(v.digest);
  });
});
