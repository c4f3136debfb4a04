import type { Eip1193Provider } from '@oddsbook/client';
import { getAddress } from 'viem';

export type { Eip1193Provider } from '@oddsbook/client';

export function injectedProvider(): Eip1193Provider | undefined {
  return (globalThis as { ethereum?: Eip1193Provider }).ethereum;
}

/** Asks the wallet for its account (the wallet shows its own prompt). */
export async function connectWallet(provider: Eip1193Provider): Promise<`0x${string}`> {
  const accounts = await provider.request({ method: 'eth_requestAccounts' });
  const first: unknown = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof first !== 'string') throw new Error('The wallet gave no account.');
  return getAddress(first);
}
