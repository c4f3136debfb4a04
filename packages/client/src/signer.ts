import { createWalletClient, custom, type Hex } from 'viem';

/** EIP-712 typed data as signers take it: uints may be bigints (`jsonTypedData` makes it JSON-safe). */
export type TypedDataPayload = {
  domain: Record<string, unknown>;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
};

/**
 * Whatever signs for an account: orders (EIP-712), the sign-in message (EIP-191 personal_sign) and Safe
 * transactions (EIP-712). Every method is async, so the key may live anywhere: in memory (a viem account),
 * in a browser wallet (EIP-1193), in a KMS or a hardware wallet (`remoteSigner`).
 */
export interface Signer {
  readonly address: `0x${string}`;
  signTypedData(typedData: TypedDataPayload): Promise<Hex>;
  signMessage(message: string): Promise<Hex>;
}

/** The part of a viem account (`privateKeyToAccount`, `mnemonicToAccount`, `toAccount`...) a signer needs. */
export type ViemAccountLike = {
  readonly address: `0x${string}`;
  signTypedData: (...args: never[]) => Promise<Hex>;
  signMessage?: (...args: never[]) => Promise<Hex>;
};

/** An EIP-1193 provider (a browser wallet's `window.ethereum`, WalletConnect, Frame...). */
export type Eip1193Provider = {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
};

const isSigner = (value: ViemAccountLike | Signer): value is Signer =>
  'signMessage' in value && typeof value.signMessage === 'function' && !('type' in value);

/** A signer of a viem account (a local key, or any account with `signTypedData` and `signMessage`). */
export function accountSigner(account: ViemAccountLike): Signer {
  const { address } = account;
  return {
    address,
    signTypedData: (typedData) =>
      (account.signTypedData as unknown as (t: TypedDataPayload) => Promise<Hex>)(typedData),
    signMessage: (message) => {
      if (!account.signMessage) return Promise.reject(new TypeError('this account cannot sign messages'));
      return (account.signMessage as unknown as (m: { message: string }) => Promise<Hex>)({ message });
    },
  };
}

/**
 * A signer of a browser wallet (EIP-1193): typed data through `eth_signTypedData_v4`, messages through
 * `personal_sign`; the wallet shows its own prompt for each.
 */
export function eip1193Signer(provider: Eip1193Provider, address: `0x${string}`): Signer {
  const wallet = createWalletClient({ account: address, transport: custom(provider) });
  return {
    address,
    signTypedData: (typedData) => {
      // viem's wallet client adds EIP712Domain itself.
      const { EIP712Domain: _domain, ...types } = typedData.types;
      return wallet.signTypedData({ ...typedData, types, account: address } as never);
    },
    signMessage: (message) => wallet.signMessage({ account: address, message }),
  };
}

/** The typed data with every bigint as a decimal string, and `EIP712Domain` among the types. */
export function jsonTypedData(typedData: TypedDataPayload): TypedDataPayload {
  const plain = (value: unknown): unknown =>
    typeof value === 'bigint'
      ? value.toString()
      : Array.isArray(value)
        ? value.map(plain)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
          : value;
  const domainFields = [
    ['name', 'string'],
    ['version', 'string'],
    ['chainId', 'uint256'],
    ['verifyingContract', 'address'],
    ['salt', 'bytes32'],
  ]
    .filter(([name]) => typedData.domain[name!] !== undefined)
    .map(([name, type]) => ({ name: name!, type: type! }));
  return {
    domain: plain(typedData.domain) as Record<string, unknown>,
    types: { EIP712Domain: typedData.types.EIP712Domain ?? domainFields, ...typedData.types },
    primaryType: typedData.primaryType,
    message: plain(typedData.message) as Record<string, unknown>,
  };
}

/**
 * A signer whose key lives elsewhere (a KMS, an HSM, a hardware wallet, another process): `signTypedData`
 * gets JSON-safe typed data (`eth_signTypedData_v4`'s form: bigints as decimal strings, `EIP712Domain`
 * among the types) and answers the 65-byte signature.
 */
export function remoteSigner(remote: {
  address: `0x${string}`;
  signTypedData: (typedData: TypedDataPayload) => Promise<Hex>;
  signMessage?: (message: string) => Promise<Hex>;
}): Signer {
  return {
    address: remote.address,
    signTypedData: (typedData) => remote.signTypedData(jsonTypedData(typedData)),
    signMessage: (message) =>
      remote.signMessage
        ? remote.signMessage(message)
        : Promise.reject(new TypeError('this remote signer cannot sign messages')),
  };
}

/** A `Signer` as it is, or a viem account made one. */
export function toSigner(signer: Signer | ViemAccountLike): Signer {
  return isSigner(signer) ? signer : accountSigner(signer);
}
