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

/** EIP-1193 / EIP-3326 codes: the person refused; the wallet does not know the chain. */
const USER_REJECTED = 4001;
const UNKNOWN_CHAIN = 4902;

/** A wallet error's code, also where some wallets nest it (MetaMask mobile: data.originalError.code). */
function errorCode(error: unknown): number | undefined {
  const e = error as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null;
  const code = e?.code ?? e?.data?.originalError?.code;
  return typeof code === 'number' ? code : undefined;
}

/** What the exchange's chain is called in the wallet. */
export function chainName(chainId: number): string {
  return chainId === 4162 ? 'oddsbook' : `oddsbook (chain ${chainId})`;
}

/** Thrown when the wallet stays on another chain: a sentence for the page, not the wallet's raw error. */
export class WrongChainError extends Error {
  override name = 'WrongChainError';
}

/**
 * Puts the wallet on the exchange's chain: nothing when it is there; else asks it to switch
 * (wallet_switchEthereumChain) and, when the wallet does not know the chain, to add it
 * (wallet_addEthereumChain, with the exchange's JSON-RPC at `rpcUrl`). A refusal is a WrongChainError.
 */
export async function ensureChain(provider: Eip1193Provider, chainId: number, rpcUrl: string): Promise<void> {
  const hexId = `0x${chainId.toString(16)}`;
  const current = async () => Number(await provider.request({ method: 'eth_chainId' }));
  if ((await current()) === chainId) return;
  const refused = new WrongChainError(
    `Your wallet is on another network. Sign-in needs ${chainName(chainId)} (chain id ${chainId}): accept the switch in your wallet, or switch to it there, and try again.`,
  );
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hexId }] });
  } catch (error) {
    if (errorCode(error) !== UNKNOWN_CHAIN)
      throw errorCode(error) === USER_REJECTED ? refused : wrap(error, refused);
    try {
      await provider.request({
        method: 'wallet_addEthereumChain',
        params: [
          {
            chainId: hexId,
            chainName: chainName(chainId),
            nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
            rpcUrls: [rpcUrl],
          },
        ],
      });
    } catch (addError) {
      throw errorCode(addError) === USER_REJECTED ? refused : wrap(addError, refused);
    }
  }
  // Adding a chain usually switches to it; a wallet that did not is asked once more.
  if ((await current()) === chainId) return;
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hexId }] });
  } catch (error) {
    throw errorCode(error) === USER_REJECTED ? refused : wrap(error, refused);
  }
  if ((await current()) !== chainId) throw refused;
}

/** The plain message, with the wallet's own words after it. */
function wrap(error: unknown, plain: WrongChainError): WrongChainError {
  const detail = (error as { message?: unknown })?.message;
  return new WrongChainError(
    typeof detail === 'string' && detail ? `${plain.message} (The wallet said: ${detail})` : plain.message,
  );
}
