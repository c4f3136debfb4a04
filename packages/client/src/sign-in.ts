import { createSiweMessage } from 'viem/siwe';
import type { RestMethods } from './rest-client.js';
import type { Signer } from './signer.js';

/** How long a sign-in message is valid for (the exchange refuses older ones). */
const MESSAGE_LIFETIME_MS = 5 * 60_000;

/**
 * The EIP-4361 message of a sign-in at `baseUrl`: bound to its host and origin, the exchange's chain and a
 * nonce it issued.
 */
export function signInMessage(options: {
  address: `0x${string}`;
  baseUrl: string;
  chainId: number;
  nonce: string;
  now?: Date;
  statement?: string;
}): string {
  const url = new URL(options.baseUrl);
  const now = options.now ?? new Date();
  return createSiweMessage({
    address: options.address,
    chainId: options.chainId,
    domain: url.host,
    uri: `${url.origin}/`,
    version: '1',
    nonce: options.nonce,
    issuedAt: now,
    expirationTime: new Date(now.getTime() + MESSAGE_LIFETIME_MS),
    statement: options.statement ?? 'Sign in to the oddsbook exchange.',
  });
}

/** Signs in with the signer's key (EIP-4361): the session token of the account-page routes. */
export async function signInWithSigner(
  rest: Pick<RestMethods, 'siweNonce' | 'siweVerify'>,
  baseUrl: string,
  signer: Signer,
  statement?: string,
) {
  const { nonce, chainId } = await rest.siweNonce();
  const message = signInMessage({
    address: signer.address,
    baseUrl,
    chainId,
    nonce,
    ...(statement ? { statement } : {}),
  });
  const signature = await signer.signMessage(message);
  return rest.siweVerify(message, signature);
}
