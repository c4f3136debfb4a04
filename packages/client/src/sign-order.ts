import {
  DEFAULT_ODDS_LADDER_STEP,
  normalizeOrderMessage,
  ORDER_TYPES,
  type OrderDomain,
  type OrderMessage,
  tickToOdds,
} from '@oddsbook/protocol';
import type { LocalAccount } from 'viem';

export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

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

function randomSalt(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return BigInt(`0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`);
}

/**
 * Signs an order with EIP-712 over the exchange's domain (`GET /metadata/obv3` `domain`); a `tick` is read
 * on the exchange's ladder (`oddsLadderStepSize` of the same metadata).
 */
export async function signOrder(
  account: LocalAccount,
  domain: OrderDomain,
  p: OrderParameters,
  ladderStepSize = DEFAULT_ODDS_LADDER_STEP,
): Promise<SignedOrder> {
  const percentageOdds =
    p.percentageOdds ?? (p.tick !== undefined ? tickToOdds(p.tick, ladderStepSize) : undefined);
  if (percentageOdds === undefined) throw new TypeError('give percentageOdds or tick');
  const salt = p.salt ?? randomSalt();
  const message: OrderMessage = {
    marketHash: p.marketHash,
    baseToken: p.baseToken,
    totalBetSize: p.totalBetSize,
    percentageOdds,
    salt,
    expiry: p.expiry,
    maker: account.address,
    isMakerBettingOutcomeOne: p.isMakerBettingOutcomeOne,
  };
  const orderSignature = await account.signTypedData({
    domain,
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: normalizeOrderMessage(message),
  });
  return {
    marketHash: p.marketHash,
    maker: account.address,
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
