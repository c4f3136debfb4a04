import { type Address, getAddress, type Hex, hashDomain, hashStruct, hashTypedData } from 'viem';
import { parseUint256 } from './hex.js';

/** The eight signed Order fields, in the order the spec fixes. */
export const ORDER_TYPE_FIELDS = [
  { name: 'marketHash', type: 'bytes32' },
  { name: 'baseToken', type: 'address' },
  { name: 'totalBetSize', type: 'uint256' },
  { name: 'percentageOdds', type: 'uint256' },
  { name: 'salt', type: 'uint256' },
  { name: 'expiry', type: 'uint256' },
  { name: 'maker', type: 'address' },
  { name: 'isMakerBettingOutcomeOne', type: 'bool' },
] as const;

export const ORDER_PRIMARY_TYPE = 'Order';

export const ORDER_TYPE_STRING =
  'Order(bytes32 marketHash,address baseToken,uint256 totalBetSize,uint256 percentageOdds,uint256 salt,uint256 expiry,address maker,bool isMakerBettingOutcomeOne)';

/** keccak256(ORDER_TYPE_STRING) */
export const ORDER_TYPEHASH: Hex = '0xcffacffea7ab5a18625ea65133ea917a04556441c18565330cb83a9b413560a3';

export const ORDER_DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** keccak256('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)') */
export const ORDER_DOMAIN_TYPEHASH: Hex =
  '0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f';

export const ORDER_TYPES = { Order: ORDER_TYPE_FIELDS } as const;

/** Types including `EIP712Domain`, as `eth_signTypedData_v4` wants them. */
export const ORDER_TYPES_WITH_DOMAIN = {
  EIP712Domain: ORDER_DOMAIN_FIELDS,
  Order: ORDER_TYPE_FIELDS,
} as const;

export type OrderDomain = {
  name: string;
  version: '1';
  chainId: number;
  verifyingContract: Address;
};

/** Unsigned integers travel as decimal strings (0x-hex is accepted too); bigint for local use. */
export type UintLike = string | bigint;

/** The signed part of an order. */
export type OrderMessage = {
  marketHash: Hex;
  baseToken: Address;
  totalBetSize: UintLike;
  percentageOdds: UintLike;
  salt: UintLike;
  expiry: UintLike | number;
  maker: Address;
  isMakerBettingOutcomeOne: boolean;
};

/** The message with every uint as a bigint, the form viem's typed-data functions are typed for. */
export type NormalizedOrderMessage = {
  marketHash: Hex;
  baseToken: Address;
  totalBetSize: bigint;
  percentageOdds: bigint;
  salt: bigint;
  expiry: bigint;
  maker: Address;
  isMakerBettingOutcomeOne: boolean;
};

export function buildOrderDomain(options: {
  name: string;
  chainId: number;
  verifyingContract: Address;
}): OrderDomain {
  return {
    name: options.name,
    version: '1',
    chainId: options.chainId,
    verifyingContract: getAddress(options.verifyingContract),
  };
}

export function normalizeOrderMessage(order: OrderMessage): NormalizedOrderMessage {
  return {
    marketHash: order.marketHash,
    baseToken: order.baseToken,
    totalBetSize: parseUint256(order.totalBetSize),
    percentageOdds: parseUint256(order.percentageOdds),
    salt: parseUint256(order.salt),
    expiry: parseUint256(order.expiry),
    maker: order.maker,
    isMakerBettingOutcomeOne: order.isMakerBettingOutcomeOne,
  };
}

/** Typed data ready for viem `signTypedData` or `eth_signTypedData_v4` (after JSON-serialising bigints). */
export function orderTypedData(domain: OrderDomain, order: OrderMessage) {
  return {
    domain,
    types: ORDER_TYPES_WITH_DOMAIN,
    primaryType: ORDER_PRIMARY_TYPE,
    message: normalizeOrderMessage(order),
  } as const;
}

/** The order id: the EIP-712 digest the maker signs. */
export function orderId(domain: OrderDomain, order: OrderMessage): Hex {
  return hashTypedData({
    domain,
    types: ORDER_TYPES,
    primaryType: ORDER_PRIMARY_TYPE,
    message: normalizeOrderMessage(order),
  });
}

export function orderStructHash(order: OrderMessage): Hex {
  return hashStruct({
    data: normalizeOrderMessage(order),
    primaryType: ORDER_PRIMARY_TYPE,
    types: ORDER_TYPES,
  });
}

export function orderDomainSeparator(domain: OrderDomain): Hex {
  return hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: { EIP712Domain: ORDER_DOMAIN_FIELDS },
  });
}
