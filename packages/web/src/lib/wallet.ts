import { createWalletClient, custom, getAddress, type LocalAccount } from 'viem';
import { toAccount } from 'viem/accounts';

/** An EIP-1193 provider, as a browser wallet injects it at `window.ethereum`. */
export type Eip1193Provider = {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
};

export function injectedProvider(): Eip1193Provider | undefined {
  return (globalThis as { ethereum?: Eip1193Provider }).ethereum;
}

/** Asks the wallet for its account (the wallet shows its own prompt). */
export async function connectWallet(provider: Eip1193Provider): Promise<`0x${string}`> {
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts?.[0]) throw new Error('The wallet gave no account.');
  return getAddress(accounts[0]);
}

type TypedData = {
  domain: Record<string, unknown>;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
};

/**
 * The wallet as a viem account: messages go to `personal_sign`, typed data to `eth_signTypedData_v4`
 * (viem's wallet client builds the request), so `@oddsbook/client`'s order signing works unchanged.
 */
export function walletAccount(provider: Eip1193Provider, address: `0x${string}`): LocalAccount {
  const wallet = createWalletClient({ account: address, transport: custom(provider) });
  return toAccount({
    address,
    signMessage: ({ message }) => wallet.signMessage({ account: address, message }),
    signTypedData: (typedData) => {
      const { EIP712Domain: _domainTypes, ...types } = (typedData as unknown as TypedData).types;
      return wallet.signTypedData({
        ...(typedData as unknown as TypedData),
        types,
        account: address,
      } as never);
    },
    signTransaction: () => Promise.reject(new Error('the exchange never asks for a transaction')),
  });
}
