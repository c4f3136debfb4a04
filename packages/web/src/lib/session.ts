import { createExchangeClient, type ExchangeClient, eip1193Signer } from '@oddsbook/client';
import { getAddress } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { connectWallet, type Eip1193Provider, ensureChain } from './wallet.js';

/** What the page knows about its user; kept in sessionStorage (this tab only), never in a cookie. */
export type AuthState = {
  /** The wallet's account once connected. */
  address?: `0x${string}`;
  sessionToken?: string;
  sessionExpiresAt?: string;
  /** The API key this page made and trades with (shown once when made). */
  apiKey?: string;
  apiKeyId?: string;
};

const STORAGE_KEY = 'oddsbook.auth';
const listeners = new Set<(state: AuthState) => void>();
let state: AuthState = load();

function load(): AuthState {
  try {
    return JSON.parse(globalThis.sessionStorage?.getItem(STORAGE_KEY) ?? '{}') as AuthState;
  } catch {
    return {};
  }
}

export function authState(): AuthState {
  return state;
}

export function setAuth(next: AuthState): void {
  state = next;
  globalThis.sessionStorage?.setItem(STORAGE_KEY, JSON.stringify(state));
  for (const listener of listeners) listener(state);
}

export function onAuthChange(listener: (state: AuthState) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const baseUrl = () => globalThis.location?.origin ?? 'http://127.0.0.1:8080';

/** A client for the public routes. */
export function publicClient(): ExchangeClient {
  return createExchangeClient({ baseUrl: baseUrl() });
}

/** A client for the session routes (sign-in, API keys). */
export function sessionClient(): ExchangeClient {
  if (!state.sessionToken) throw new Error('Sign in with your wallet first.');
  return createExchangeClient({ baseUrl: baseUrl(), sessionToken: state.sessionToken });
}

/** A client for the trading API with this page's key, signing orders with the wallet. */
export function tradingClient(provider?: Eip1193Provider): ExchangeClient {
  if (!state.apiKey) throw new Error('Create an API key on the account page first.');
  return createExchangeClient({
    baseUrl: baseUrl(),
    apiKey: state.apiKey,
    // The wallet signs orders (eth_signTypedData_v4), with its own prompt for each.
    ...(provider && state.address ? { signer: eip1193Signer(provider, state.address) } : {}),
  });
}

/** The EIP-4361 message the wallet signs: bound to this page's host and origin, the chain and the nonce. */
export function signInMessage(options: {
  address: `0x${string}`;
  chainId: number;
  nonce: string;
  host: string;
  origin: string;
  now: Date;
}): string {
  return createSiweMessage({
    address: options.address,
    chainId: options.chainId,
    domain: options.host,
    uri: `${options.origin}/`,
    version: '1',
    nonce: options.nonce,
    issuedAt: options.now,
    expirationTime: new Date(options.now.getTime() + 5 * 60_000),
    statement: 'Sign in to the oddsbook exchange.',
  });
}

/** Connect the wallet, sign the server's nonce in an EIP-4361 message, and open a session. */
export async function signIn(provider: Eip1193Provider): Promise<void> {
  const address = await connectWallet(provider);
  const client = publicClient();
  const { nonce, chainId } = await client.siweNonce();
  // A wallet on another chain would refuse to sign for this one: switch it (or add the chain) first.
  await ensureChain(provider, chainId, `${location.origin}/rpc`);
  const message = signInMessage({
    address,
    chainId,
    nonce,
    host: location.host,
    origin: location.origin,
    now: new Date(),
  });
  const signature = await eip1193Signer(provider, address).signMessage(message);
  const session = await client.siweVerify(message, signature);
  const signedIn = getAddress(session.address);
  // A different account than before: forget the old account's key.
  const keep = state.address === signedIn ? { apiKey: state.apiKey, apiKeyId: state.apiKeyId } : {};
  setAuth({
    ...keep,
    address: signedIn,
    sessionToken: session.sessionToken,
    sessionExpiresAt: session.expiresAt,
  });
}

/** Ends the session; the key this page made is revoked first (it lived in this tab only). */
export async function signOut(): Promise<void> {
  const client = state.sessionToken ? sessionClient() : null;
  try {
    if (client && state.apiKeyId) await client.revokeApiKey(state.apiKeyId).catch(() => undefined);
    if (client) await client.signOut().catch(() => undefined);
  } finally {
    setAuth({ ...(state.address ? { address: state.address } : {}) });
  }
}

/** Makes an API key through the session; the page keeps it for trading in this tab. */
export async function createPageKey(label: string): Promise<{ apiKey: string; keyId: string }> {
  const created = await sessionClient().createApiKey(label || undefined);
  if (!state.apiKey) setAuth({ ...state, apiKey: created.apiKey, apiKeyId: created.keyId });
  return created;
}
