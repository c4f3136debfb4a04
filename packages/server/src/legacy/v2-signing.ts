import {
  encodePacked,
  getAddress,
  hashMessage,
  hashTypedData,
  keccak256,
  type TypedDataDomain,
  toBytes,
  zeroAddress,
  zeroHash,
} from 'viem';
import { recoverSigner } from '../signing/recover-signer.js';

/**
 * The legacy v2 API's signatures (docs/legacy.md), as v2 bots make them:
 * - a maker order: personal_sign (EIP-191) of the packed keccak hash of its nine fields, which is its `orderHash`;
 * - a fill (`POST /orders/fill/v2`): EIP-712 `Details` holding a `FillObject`, domain "SX Bet" of the fill hasher;
 * - a cancel: EIP-712 `Details` with the random `salt` inside the domain (no verifying contract).
 */

/** The `expiry` every v2 order signs (the real expiry is `apiExpiry`, not signed). */
export const V2_SIGNED_EXPIRY = 2_209_006_800;
/** The version of the fill domain (GET /metadata `domainVersion`). */
export const V2_FILL_DOMAIN_VERSION = '6.0';
export const V2_FILL_DOMAIN_NAME = 'SX Bet';

/** The addresses a v2 client reads from GET /metadata: oddsbook's own, derived from the network's escrow. */
export function legacyAddresses(verifyingContract: `0x${string}`): {
  executorAddress: `0x${string}`;
  fillHasher: `0x${string}`;
} {
  const derive = (what: string) =>
    getAddress(`0x${keccak256(toBytes(`oddsbook:v2:${what}:${verifyingContract.toLowerCase()}`)).slice(26)}`);
  return { executorAddress: derive('executor'), fillHasher: derive('fill-hasher') };
}

/** A v2 maker order's nine signed fields, as sent (uints as decimal strings). */
export type V2Order = {
  marketHash: `0x${string}`;
  baseToken: `0x${string}`;
  totalBetSize: string;
  percentageOdds: string;
  expiry: string | number;
  salt: string;
  maker: `0x${string}`;
  executor: `0x${string}`;
  isMakerBettingOutcomeOne: boolean;
};

/** `orderHash`: solidityPackedKeccak256 of the nine fields in this order. */
export function v2OrderHash(order: V2Order): `0x${string}` {
  return keccak256(
    encodePacked(
      ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
      [
        order.marketHash,
        order.baseToken,
        BigInt(order.totalBetSize),
        BigInt(order.percentageOdds),
        BigInt(order.expiry),
        BigInt(order.salt),
        order.maker,
        order.executor,
        order.isMakerBettingOutcomeOne,
      ],
    ),
  );
}

export type Recovered = { ok: true; signer: `0x${string}` } | { ok: false };

function recover(digest: `0x${string}`, signature: string): Recovered {
  const result = recoverSigner(toBytes(digest), signature);
  return result.ok ? { ok: true, signer: result.signer } : { ok: false };
}

/** The signer of a maker order: personal_sign over the 32 bytes of its hash (`signMessage({message: {raw}})`). */
export function recoverV2OrderSigner(orderHash: `0x${string}`, signature: string): Recovered {
  return recover(hashMessage({ raw: orderHash }), signature);
}

/** A v2 fill's signed fields (`POST /orders/fill/v2`). */
export type V2Fill = {
  market: string;
  marketHash: `0x${string}`;
  baseToken: `0x${string}`;
  stakeWei: string;
  desiredOdds: string;
  oddsSlippage: number;
  isTakerBettingOutcomeOne: boolean;
  fillSalt: string;
};

export const V2_FILL_TYPES = {
  Details: [
    { name: 'action', type: 'string' },
    { name: 'market', type: 'string' },
    { name: 'betting', type: 'string' },
    { name: 'stake', type: 'string' },
    { name: 'worstOdds', type: 'string' },
    { name: 'worstReturning', type: 'string' },
    { name: 'fills', type: 'FillObject' },
  ],
  FillObject: [
    { name: 'stakeWei', type: 'string' },
    { name: 'marketHash', type: 'string' },
    { name: 'baseToken', type: 'string' },
    { name: 'desiredOdds', type: 'string' },
    { name: 'oddsSlippage', type: 'uint256' },
    { name: 'isTakerBettingOutcomeOne', type: 'bool' },
    { name: 'fillSalt', type: 'uint256' },
    { name: 'beneficiary', type: 'address' },
    { name: 'beneficiaryType', type: 'uint8' },
    { name: 'cashOutTarget', type: 'bytes32' },
  ],
} as const;

export type FillDomain = { chainId: number; fillHasher: `0x${string}` };

/** The typed data a taker signs for a fill: what `eth_signTypedData_v4` (or viem's signTypedData) takes. */
export function v2FillTypedData(fill: V2Fill, domain: FillDomain) {
  return {
    domain: {
      name: V2_FILL_DOMAIN_NAME,
      version: V2_FILL_DOMAIN_VERSION,
      chainId: domain.chainId,
      verifyingContract: domain.fillHasher,
    },
    types: V2_FILL_TYPES,
    primaryType: 'Details' as const,
    message: {
      action: 'N/A',
      market: fill.market,
      betting: 'N/A',
      stake: 'N/A',
      worstOdds: 'N/A',
      worstReturning: 'N/A',
      fills: {
        stakeWei: fill.stakeWei,
        marketHash: fill.marketHash,
        baseToken: fill.baseToken,
        desiredOdds: fill.desiredOdds,
        oddsSlippage: BigInt(fill.oddsSlippage),
        isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
        fillSalt: BigInt(fill.fillSalt),
        beneficiary: zeroAddress,
        beneficiaryType: 0,
        cashOutTarget: zeroHash,
      },
    },
  };
}

/** The fill's EIP-712 digest: also its `fillHash`, and the id of the taker order it becomes. */
export function v2FillHash(fill: V2Fill, domain: FillDomain): `0x${string}` {
  return hashTypedData(v2FillTypedData(fill, domain));
}

/**
 * The taker of a fill. Bots sign the Details `market` as the market hash (the documented form) or as "N/A"
 * (older examples): both are taken, and the hash is of the form that recovered to the taker.
 */
export function recoverV2FillSigner(
  fill: Omit<V2Fill, 'market'>,
  domain: FillDomain,
  taker: `0x${string}`,
  signature: string,
): { ok: true; fillHash: `0x${string}` } | { ok: false; fillHash: `0x${string}` } {
  let first: `0x${string}` | null = null;
  for (const market of [fill.marketHash, 'N/A']) {
    const fillHash = v2FillHash({ ...fill, market }, domain);
    first ??= fillHash;
    const recovered = recover(fillHash, signature);
    if (recovered.ok && recovered.signer.toLowerCase() === taker.toLowerCase()) return { ok: true, fillHash };
  }
  return { ok: false, fillHash: first! };
}

/** The three v2 cancels: their domain names and what their `Details` hold. */
export const V2_CANCEL_KINDS = {
  orders: {
    name: 'CancelOrderV2SportX',
    types: {
      Details: [
        { name: 'orderHashes', type: 'string[]' },
        { name: 'timestamp', type: 'uint256' },
      ],
    },
  },
  event: {
    name: 'CancelOrderEventsSportX',
    types: {
      Details: [
        { name: 'sportXeventId', type: 'string' },
        { name: 'timestamp', type: 'uint256' },
      ],
    },
  },
  all: {
    name: 'CancelAllOrdersSportX',
    types: { Details: [{ name: 'timestamp', type: 'uint256' }] },
  },
} as const;
export type V2CancelKind = keyof typeof V2_CANCEL_KINDS;

export type V2CancelMessage =
  | { kind: 'orders'; orderHashes: readonly string[]; timestamp: number }
  | { kind: 'event'; sportXeventId: string; timestamp: number }
  | { kind: 'all'; timestamp: number };

/** The typed data a maker signs for a cancel: domain `{name, version "1.0", chainId, salt}`, primary type Details. */
export function v2CancelTypedData(cancel: V2CancelMessage, domain: { chainId: number; salt: `0x${string}` }) {
  const kind = V2_CANCEL_KINDS[cancel.kind];
  const timestamp = BigInt(cancel.timestamp);
  const message =
    cancel.kind === 'orders'
      ? { orderHashes: [...cancel.orderHashes], timestamp }
      : cancel.kind === 'event'
        ? { sportXeventId: cancel.sportXeventId, timestamp }
        : { timestamp };
  const typedDomain: TypedDataDomain = {
    name: kind.name,
    version: '1.0',
    chainId: domain.chainId,
    salt: domain.salt,
  };
  return { domain: typedDomain, types: kind.types, primaryType: 'Details' as const, message };
}

export function recoverV2CancelSigner(
  cancel: V2CancelMessage,
  domain: { chainId: number; salt: `0x${string}` },
  signature: string,
): Recovered {
  // The union of the three kinds' typed data is one call's argument: viem checks it against `types`.
  const typedData = v2CancelTypedData(cancel, domain) as Parameters<typeof hashTypedData>[0];
  return recover(hashTypedData(typedData), signature);
}
