import { type Static, Type } from 'typebox';
import { Address, Bytes32 } from './common.js';

/** Proxy wallets (deployment state) and the Safe multisig add-signer flow. */

export const PROXY_STATES = ['none', 'pending', 'deployed', 'failed'] as const;
export type ProxyDeploymentState = (typeof PROXY_STATES)[number];

/** `GET /user/proxy`, `POST /user/deploy-proxy`. */
export const ProxyState = Type.Object({
  proxy: Address,
  deployed: Type.Boolean(),
  pending: Type.Boolean(),
  state: Type.String({ description: 'none | pending | deployed | failed' }),
  txHash: Type.Union([Type.String(), Type.Null()]),
});
export type ProxyState = Static<typeof ProxyState> & { state: ProxyDeploymentState };

export const PendingDeployProxy = Type.Object({ pending: Type.Boolean() });
export type PendingDeployProxy = Static<typeof PendingDeployProxy>;

/** `GET /user/multisig`: the account's proxy wallet as a Safe. */
export const SafeInfo = Type.Object({
  safeAddress: Address,
  deployed: Type.Boolean(),
  owners: Type.Array(Address, { description: "Safe's getOwners() order, newest first" }),
  threshold: Type.Integer({ description: '0 until the proxy is deployed' }),
  nonce: Type.Integer(),
});
export type SafeInfo = Static<typeof SafeInfo>;

const Uint = Type.String({ pattern: '^[0-9]{1,78}$' });

/** SafeTransactionData as the execute route takes it: other properties are allowed (spec). */
export const SafeTransactionDataInput = Type.Object(
  {
    to: Address,
    value: Uint,
    data: Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 10_000 }),
    operation: Type.Integer({ minimum: 0, maximum: 1 }),
    nonce: Type.Integer({ minimum: 0 }),
    safeTxGas: Type.Optional(Uint),
    baseGas: Type.Optional(Uint),
    gasPrice: Type.Optional(Uint),
    gasToken: Type.Optional(Address),
    refundReceiver: Type.Optional(Address),
  },
  { additionalProperties: true },
);
export type SafeTransactionDataInput = Static<typeof SafeTransactionDataInput>;

export const SafeTxProgress = Type.Object({
  safeTxHash: Bytes32,
  confirmedBy: Type.Array(Address),
  signedCount: Type.Integer(),
  requiredThreshold: Type.Integer(),
  isReadyToExecute: Type.Boolean(),
  isExecuted: Type.Boolean(),
  executionTxHash: Type.Union([Bytes32, Type.Null()]),
});
export type SafeTxProgress = Static<typeof SafeTxProgress>;

export const AddSignerPrepareBody = Type.Object(
  {
    safeAddress: Address,
    newSignerAddress: Address,
    threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
export type AddSignerPrepareBody = Static<typeof AddSignerPrepareBody>;

/** `POST /user/multisig/add-signer/prepare`: sign `typedData` as it is (EIP-712). */
export const PreparedSafeTx = Type.Object({
  safeTxHash: Bytes32,
  safeTransactionData: Type.Object({}, { additionalProperties: true }),
  typedData: Type.Object({}, { additionalProperties: true, description: 'what eth_signTypedData_v4 takes' }),
});
/** The typed data is what `signTypedData` takes; typed here, the route's schema leaves it open. */
export type PreparedSafeTx = {
  safeTxHash: `0x${string}`;
  safeTransactionData: SafeTransactionDataInput & Record<string, unknown>;
  typedData: {
    domain: { chainId: number; verifyingContract: `0x${string}` };
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  };
};

export const AddSignerExecuteBody = Type.Object(
  {
    safeAddress: Address,
    safeTxHash: Bytes32,
    safeTransactionData: SafeTransactionDataInput,
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
    signerAddress: Address,
  },
  { additionalProperties: false },
);
export type AddSignerExecuteBody = Static<typeof AddSignerExecuteBody>;
