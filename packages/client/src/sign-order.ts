import {
  DEFAULT_ODDS_LADDER_STEP,
  normalizeOrderMessage,
  ORDER_TYPES,
  type OrderDomain,
  type OrderMessage,
  orderId,
  tickToOdds,
} from '@oddsbook/protocol';
import { type Signer, toSigner, type ViemAccountLike } from './signer.js';

export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

/** An order to sign, as `signOrder` takes it (the order builder fills the defaults and checks it). */
export type OrderParameters = {
  marketHash: `0x${string}`;
  baseToken: `0x${string}`;
  /** Own stake in base-token units (6 decimals). */
  totalBetSize: bigint;
  /** Implied probability x 10^20 on the ladder; or give `tick` (1..799 at the default 0.125 % step). */
  percentageOdds?: bigint;
  tick?: number;
  isMakerBettingOutcomeOne: boolean;
  timeInForce: TimeInForce;
  /** Unix seconds. */
  expiry: number;
  salt?: bigint;
  clientOrderId?: string;
};

/** The order as `POST /orders-v3` takes it. */
export type SignedOrder = {
  marketHash: `0x${string}`;
  maker: `0x${string}`;
  baseToken: `0x${string}`;
  totalBetSize: string;
  percentageOdds: string;
  salt: `0x${string}`;
  expiry: number;
  isMakerBettingOutcomeOne: boolean;
  timeInForce: TimeInForce;
  orderSignature: `0x${string}`;
  clientOrderId?: string;
};

export function randomSalt(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return BigInt(`0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`);
}

/** The signed message of a wire order. */
export function signedOrderMessage(order: SignedOrder): OrderMessage {
  return {
    marketHash: order.marketHash,
    baseToken: order.baseToken,
    totalBetSize: order.totalBetSize,
    percentageOdds: order.percentageOdds,
    salt: order.salt,
    expiry: order.expiry,
    maker: order.maker,
    isMakerBettingOutcomeOne: order.isMakerBettingOutcomeOne,
  };
}

/** The id the exchange gives a signed order: its EIP-712 digest, known before it is posted. */
export function signedOrderId(domain: OrderDomain, order: SignedOrder): `0x${string}` {
  return orderId(domain, signedOrderMessage(order));
}

/**
 * Signs an order with EIP-712 over the exchange's domain (`GET /metadata/obv3` `domain`); a `tick` is read
 * on the exchange's ladder (`oddsLadderStepSize` of the same metadata). The signer may be any `Signer`
 * (a KMS, a wallet) or a viem account.
 */
export async function signOrder(
  signer: Signer | ViemAccountLike,
  domain: OrderDomain,
  p: OrderParameters,
  ladderStepSize = DEFAULT_ODDS_LADDER_STEP,
): Promise<SignedOrder> {
  const percentageOdds =
    p.percentageOdds ?? (p.tick !== undefined ? tickToOdds(p.tick, ladderStepSize) : undefined);
  if (percentageOdds === undefined) throw new TypeError('give percentageOdds or tick');
  const salt = p.salt ?? randomSalt();
  const { address } = signer;
  const message: OrderMessage = {
    marketHash: p.marketHash,
    baseToken: p.baseToken,
    totalBetSize: p.totalBetSize,
    percentageOdds,
    salt,
    expiry: p.expiry,
    maker: address,
    isMakerBettingOutcomeOne: p.isMakerBettingOutcomeOne,
  };
  const orderSignature = await toSigner(signer).signTypedData({
    domain,
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: normalizeOrderMessage(message),
  });
  return {
    marketHash: p.marketHash,
    maker: address,
    baseToken: p.baseToken,
    totalBetSize: p.totalBetSize.toString(),
    percentageOdds: percentageOdds.toString(),
    salt: `0x${salt.toString(16).padStart(64, '0')}`,
    expiry: p.expiry,
    isMakerBettingOutcomeOne: p.isMakerBettingOutcomeOne,
    timeInForce: p.timeInForce,
    orderSignature,
    ...(p.clientOrderId ? { clientOrderId: p.clientOrderId } : {}),
  };
}
