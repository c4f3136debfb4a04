import type { OrderDomain } from '@oddsbook/protocol';
import { type Hex, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { WireOrder } from './order-verifier.js';

/** Deterministic pseudo-random generator (xorshift32) so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

function randomBytes(rand: () => number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  return out;
}

function randomUint(rand: () => number, maxBytes: number): bigint {
  const bytes = 1 + Math.floor(rand() * maxBytes);
  return BigInt(toHex(randomBytes(rand, bytes)));
}

export type SignedTestOrder = { order: WireOrder; signature: Hex; signer: `0x${string}` };

/** Random orders signed with viem by a handful of random makers; uints in decimal, salts sometimes hex. */
export async function makeSignedOrders(
  domain: OrderDomain,
  count: number,
  seed = 42,
  makers = 8,
): Promise<SignedTestOrder[]> {
  const rand = seededRandom(seed);
  const accounts = Array.from({ length: makers }, () => privateKeyToAccount(toHex(randomBytes(rand, 32))));
  const out: SignedTestOrder[] = [];
  for (let i = 0; i < count; i++) {
    const account = accounts[i % accounts.length]!;
    const salt = randomUint(rand, 32);
    const order: WireOrder = {
      marketHash: toHex(randomBytes(rand, 32)),
      baseToken: toHex(randomBytes(rand, 20)),
      totalBetSize: randomUint(rand, i % 3 === 0 ? 4 : 12).toString(),
      percentageOdds: randomUint(rand, 9).toString(),
      salt: i % 2 === 0 ? salt.toString() : `0x${salt.toString(16)}`,
      expiry: i % 4 === 0 ? 1_800_000_000 + i : String(1_800_000_000 + i),
      maker: i % 5 === 0 ? account.address.toLowerCase() : account.address,
      isMakerBettingOutcomeOne: rand() < 0.5,
    };
    const signature = await account.signTypedData({
      domain,
      types: {
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
      },
      primaryType: 'Order',
      message: {
        marketHash: order.marketHash as Hex,
        baseToken: order.baseToken as Hex,
        totalBetSize: BigInt(order.totalBetSize),
        percentageOdds: BigInt(order.percentageOdds),
        salt,
        expiry: BigInt(order.expiry),
        maker: order.maker as Hex,
        isMakerBettingOutcomeOne: order.isMakerBettingOutcomeOne,
      },
    });
    out.push({ order, signature, signer: account.address });
  }
  return out;
}
