import { randomBytes } from 'node:crypto';
import { tickToOdds } from '@oddsbook/protocol';
import { privateKeyToAccount } from 'viem/accounts';
import {
  V2_SIGNED_EXPIRY,
  type V2CancelMessage,
  v2CancelTypedData,
  v2FillTypedData,
  v2OrderHash,
} from '../../src/legacy/v2-signing.js';
import type { TestExchange, TestUser } from './test-exchange.js';

/** What a v2 bot reads from GET /metadata before signing. */
export async function v2Metadata(t: TestExchange) {
  const response = await t.app.inject({ method: 'GET', url: '/metadata' });
  if (response.statusCode !== 200) throw new Error(`metadata: ${response.body}`);
  return response.json().data as {
    executorAddress: `0x${string}`;
    EIP712FillHasher: `0x${string}`;
    chainId: number;
    domainVersion: string;
  };
}

/** A v2 maker order as a v2 bot signs it: personal_sign over the packed nine-field hash. */
export async function signV2Order(
  t: TestExchange,
  user: TestUser,
  f: { marketHash: `0x${string}`; tick: number; size: bigint; isOne?: boolean; apiExpiry?: number },
) {
  const { executorAddress } = await v2Metadata(t);
  const order = {
    marketHash: f.marketHash,
    baseToken: t.config.baseToken,
    totalBetSize: f.size.toString(),
    percentageOdds: tickToOdds(f.tick).toString(),
    expiry: V2_SIGNED_EXPIRY,
    salt: BigInt(`0x${randomBytes(32).toString('hex')}`).toString(),
    maker: user.address,
    executor: executorAddress,
    isMakerBettingOutcomeOne: f.isOne ?? true,
  };
  const orderHash = v2OrderHash(order);
  const signature = await privateKeyToAccount(user.privateKey).signMessage({ message: { raw: orderHash } });
  return {
    orderHash,
    order: {
      ...order,
      apiExpiry: f.apiExpiry ?? Math.floor(t.exchange.clock.now() / 1000) + 86_400,
      signature,
    },
  };
}

export async function postV2Orders(t: TestExchange, orders: unknown[]) {
  return t.app.inject({ method: 'POST', url: '/orders/new', payload: { orders } });
}

/** A v2 fill as a v2 bot signs it (EIP-712 Details/FillObject over GET /metadata's fill hasher). */
export async function signV2Fill(
  t: TestExchange,
  user: TestUser,
  f: {
    marketHash: `0x${string}`;
    stake: bigint;
    desiredOdds: bigint;
    oddsSlippage?: number;
    isOne?: boolean;
  },
) {
  const { EIP712FillHasher, chainId } = await v2Metadata(t);
  const fill = {
    market: f.marketHash,
    marketHash: f.marketHash,
    baseToken: t.config.baseToken,
    stakeWei: f.stake.toString(),
    desiredOdds: f.desiredOdds.toString(),
    oddsSlippage: f.oddsSlippage ?? 0,
    isTakerBettingOutcomeOne: f.isOne ?? true,
    fillSalt: BigInt(`0x${randomBytes(32).toString('hex')}`).toString(),
  };
  const takerSig = await privateKeyToAccount(user.privateKey).signTypedData(
    v2FillTypedData(fill, { chainId, fillHasher: EIP712FillHasher }),
  );
  return {
    market: f.marketHash,
    baseToken: fill.baseToken,
    isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
    stakeWei: fill.stakeWei,
    desiredOdds: fill.desiredOdds,
    oddsSlippage: fill.oddsSlippage,
    taker: user.address,
    takerSig,
    fillSalt: fill.fillSalt,
  };
}

/** A v2 cancel body (EIP-712 with a fresh salt in the domain), signed now by the exchange's clock. */
export async function signV2Cancel(t: TestExchange, user: TestUser, message: V2CancelMessage) {
  const salt = `0x${randomBytes(32).toString('hex')}` as const;
  const typed = v2CancelTypedData(message, { chainId: t.config.chainId, salt });
  const signature = await privateKeyToAccount(user.privateKey).signTypedData(
    typed as Parameters<ReturnType<typeof privateKeyToAccount>['signTypedData']>[0],
  );
  const { kind: _kind, ...fields } = message;
  return { ...fields, signature, salt, maker: user.address };
}

export const nowSeconds = (t: TestExchange) => Math.floor(t.exchange.clock.now() / 1000);
