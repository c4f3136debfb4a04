import {
  type Address,
  concat,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  hashDomain,
  hashStruct,
  hashTypedData,
  isAddressEqual,
  keccak256,
  pad,
  toHex,
} from 'viem';
import { parseUint256 } from './hex.js';

/** SafeTx field order of Safe v1.3.0 / v1.4.1 (unchanged in v1.5.0). */
export const SAFE_TX_TYPE_FIELDS = [
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'data', type: 'bytes' },
  { name: 'operation', type: 'uint8' },
  { name: 'safeTxGas', type: 'uint256' },
  { name: 'baseGas', type: 'uint256' },
  { name: 'gasPrice', type: 'uint256' },
  { name: 'gasToken', type: 'address' },
  { name: 'refundReceiver', type: 'address' },
  { name: 'nonce', type: 'uint256' },
] as const;

/** Safe >= 1.3.0 domain: no name, no version; the order matters to eth_signTypedData_v4. */
export const SAFE_DOMAIN_FIELDS = [
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const SAFE_TX_TYPES = { SafeTx: SAFE_TX_TYPE_FIELDS } as const;
export const SAFE_TX_TYPES_WITH_DOMAIN = {
  EIP712Domain: SAFE_DOMAIN_FIELDS,
  SafeTx: SAFE_TX_TYPE_FIELDS,
} as const;

export const SAFE_TX_TYPEHASH: Hex = '0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8';
export const SAFE_DOMAIN_SEPARATOR_TYPEHASH: Hex =
  '0x47e79534a245952e8b16893a336b85a3d9ea9fa8c573f3d803afb92a79469218';

export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';
/** Head of Safe's owner linked list; never a valid owner. */
export const SENTINEL_OWNER: Address = '0x0000000000000000000000000000000000000001';

export const ADD_OWNER_WITH_THRESHOLD_SELECTOR: Hex = '0x0d582f13';

/** Safe-specific ABI fragments used here (subset of the Safe v1.4.1 ABI). */
export const SAFE_ABI = [
  {
    type: 'function',
    name: 'addOwnerWithThreshold',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: '_threshold', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'setup',
    stateMutability: 'nonpayable',
    inputs: [
      { name: '_owners', type: 'address[]' },
      { name: '_threshold', type: 'uint256' },
      { name: 'to', type: 'address' },
      { name: 'data', type: 'bytes' },
      { name: 'fallbackHandler', type: 'address' },
      { name: 'paymentToken', type: 'address' },
      { name: 'payment', type: 'uint256' },
      { name: 'paymentReceiver', type: 'address' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'execTransaction',
    stateMutability: 'payable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'data', type: 'bytes' },
      { name: 'operation', type: 'uint8' },
      { name: 'safeTxGas', type: 'uint256' },
      { name: 'baseGas', type: 'uint256' },
      { name: 'gasPrice', type: 'uint256' },
      { name: 'gasToken', type: 'address' },
      { name: 'refundReceiver', type: 'address' },
      { name: 'signatures', type: 'bytes' },
    ],
    outputs: [{ name: 'success', type: 'bool' }],
  },
] as const;

export const SAFE_PROXY_FACTORY_ABI = [
  {
    type: 'function',
    name: 'createProxyWithNonce',
    stateMutability: 'nonpayable',
    inputs: [
      { name: '_singleton', type: 'address' },
      { name: 'initializer', type: 'bytes' },
      { name: 'saltNonce', type: 'uint256' },
    ],
    outputs: [{ name: 'proxy', type: 'address' }],
  },
] as const;

/**
 * Creation code of SafeProxy (v1.4.1) and GnosisSafeProxy (v1.3.0), from the canonical factories.
 * Pinned because corrupted copies circulate; a test checks the keccak of each.
 */
export const SAFE_PROXY_CREATION_CODE_V1_4_1: Hex =
  '0x608060405234801561001057600080fd5b506040516101e63803806101e68339818101604052602081101561003357600080fd5b8101908080519060200190929190505050600073ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff1614156100ca576040517f08c379a00000000000000000000000000000000000000000000000000000000081526004018080602001828103825260228152602001806101c46022913960400191505060405180910390fd5b806000806101000a81548173ffffffffffffffffffffffffffffffffffffffff021916908373ffffffffffffffffffffffffffffffffffffffff1602179055505060ab806101196000396000f3fe608060405273ffffffffffffffffffffffffffffffffffffffff600054167fa619486e0000000000000000000000000000000000000000000000000000000060003514156050578060005260206000f35b3660008037600080366000845af43d6000803e60008114156070573d6000fd5b3d6000f3fea264697066735822122003d1488ee65e08fa41e58e888a9865554c535f2c77126a82cb4c0f917f31441364736f6c63430007060033496e76616c69642073696e676c65746f6e20616464726573732070726f7669646564';
export const SAFE_PROXY_CREATION_CODE_V1_3_0: Hex =
  '0x608060405234801561001057600080fd5b506040516101e63803806101e68339818101604052602081101561003357600080fd5b8101908080519060200190929190505050600073ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff1614156100ca576040517f08c379a00000000000000000000000000000000000000000000000000000000081526004018080602001828103825260228152602001806101c46022913960400191505060405180910390fd5b806000806101000a81548173ffffffffffffffffffffffffffffffffffffffff021916908373ffffffffffffffffffffffffffffffffffffffff1602179055505060ab806101196000396000f3fe608060405273ffffffffffffffffffffffffffffffffffffffff600054167fa619486e0000000000000000000000000000000000000000000000000000000060003514156050578060005260206000f35b3660008037600080366000845af43d6000803e60008114156070573d6000fd5b3d6000f3fea2646970667358221220d1429297349653a4918076d650332de1a1068c5f3e07c5c82360c277770b955264736f6c63430007060033496e76616c69642073696e676c65746f6e20616464726573732070726f7669646564';

export type SafeDeployment = {
  version: '1.3.0' | '1.4.1';
  proxyFactory: Address;
  safeSingleton: Address;
  safeL2Singleton: Address;
  fallbackHandler: Address;
  proxyCreationCode: Hex;
};

/** Canonical deployments (safe-deployments). Chain 4162 has v1.4.1; use its SafeL2 singleton. */
export const SAFE_DEPLOYMENTS = {
  'v1.4.1': {
    version: '1.4.1',
    proxyFactory: '0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67',
    safeSingleton: '0x41675C099F32341bf84BFc5382aF534df5C7461a',
    safeL2Singleton: '0x29fcB43b46531BcA003ddC8FCB67FFE91900C762',
    fallbackHandler: '0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99',
    proxyCreationCode: SAFE_PROXY_CREATION_CODE_V1_4_1,
  },
  'v1.3.0': {
    version: '1.3.0',
    proxyFactory: '0xa6B71E26C5e0845f74c812102Ca7114b6a896AB2',
    safeSingleton: '0xd9Db270c1B5E3Bd161E8c8503c55cEABeE709552',
    safeL2Singleton: '0x3E5c63644E683549055b9Be8653de26E0B4CD36E',
    fallbackHandler: '0xf48f2B2d2a534e402487b3ee7C18c33Aec0Fe5e4',
    proxyCreationCode: SAFE_PROXY_CREATION_CODE_V1_3_0,
  },
} as const satisfies Record<string, SafeDeployment>;

export type SafeDomain = { chainId: number; verifyingContract: Address };

/**
 * Safe transaction data as sent over the wire: uints other than `operation` and `nonce` are
 * decimal strings, like the Safe Transaction Service.
 */
export type SafeTransactionData = {
  to: Address;
  value: string;
  data: Hex;
  operation: number;
  safeTxGas: string;
  baseGas: string;
  gasPrice: string;
  gasToken: Address;
  refundReceiver: Address;
  nonce: number;
};

/** The domain is the Safe proxy itself (never the singleton) plus the chain id. */
export function safeDomain(chainId: number, safe: Address): SafeDomain {
  return { chainId, verifyingContract: getAddress(safe) };
}

function normalizeSafeTx(tx: SafeTransactionData) {
  return {
    to: tx.to,
    value: parseUint256(tx.value),
    data: tx.data,
    operation: Number(tx.operation),
    safeTxGas: parseUint256(tx.safeTxGas),
    baseGas: parseUint256(tx.baseGas),
    gasPrice: parseUint256(tx.gasPrice),
    gasToken: tx.gasToken,
    refundReceiver: tx.refundReceiver,
    nonce: parseUint256(tx.nonce),
  };
}

/** Exactly what `eth_signTypedData_v4` / viem `signTypedData` take, `EIP712Domain` included. */
export function safeTxTypedData(domain: SafeDomain, tx: SafeTransactionData) {
  return {
    types: SAFE_TX_TYPES_WITH_DOMAIN,
    domain: { chainId: domain.chainId, verifyingContract: domain.verifyingContract },
    primaryType: 'SafeTx',
    message: { ...tx },
  } as const;
}

/** The hash owners sign (`getTransactionHash`). */
export function safeTxHash(domain: SafeDomain, tx: SafeTransactionData): Hex {
  return hashTypedData({ domain, types: SAFE_TX_TYPES, primaryType: 'SafeTx', message: normalizeSafeTx(tx) });
}

export function safeDomainSeparator(domain: SafeDomain): Hex {
  return hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: { EIP712Domain: SAFE_DOMAIN_FIELDS },
  });
}

export function safeTxStructHash(tx: SafeTransactionData): Hex {
  return hashStruct({ data: normalizeSafeTx(tx), primaryType: 'SafeTx', types: SAFE_TX_TYPES });
}

/** `encodeTransactionData`: the 66-byte preimage 0x1901 ‖ domainSeparator ‖ structHash. */
export function encodeSafeTxHashPreimage(domain: SafeDomain, tx: SafeTransactionData): Hex {
  return concat(['0x1901', safeDomainSeparator(domain), safeTxStructHash(tx)]);
}

export function encodeAddOwnerWithThreshold(owner: Address, threshold: number | bigint): Hex {
  return encodeFunctionData({
    abi: SAFE_ABI,
    functionName: 'addOwnerWithThreshold',
    args: [owner, BigInt(threshold)],
  });
}

/** Decodes `addOwnerWithThreshold(owner, threshold)` calldata; null for anything else. */
export function decodeAddOwnerWithThreshold(data: Hex): { owner: Address; threshold: bigint } | null {
  // Exactly 4 + 2 * 32 bytes: trailing bytes would be ignored by the ABI decoder but change the hash.
  if (typeof data !== 'string' || data.length !== 2 + 2 * 68) return null;
  if (data.slice(0, 10).toLowerCase() !== ADD_OWNER_WITH_THRESHOLD_SELECTOR) return null;
  try {
    const decoded = decodeFunctionData({ abi: SAFE_ABI, data });
    if (decoded.functionName !== 'addOwnerWithThreshold') return null;
    const [owner, threshold] = decoded.args;
    return { owner: getAddress(owner), threshold };
  } catch {
    return null;
  }
}

/** The add-signer Safe transaction: a CALL from the Safe to itself with every gas field zero. */
export function addOwnerSafeTransaction(options: {
  safe: Address;
  newOwner: Address;
  threshold: number | bigint;
  nonce: number;
}): SafeTransactionData {
  return {
    to: getAddress(options.safe),
    value: '0',
    data: encodeAddOwnerWithThreshold(getAddress(options.newOwner), options.threshold),
    operation: 0,
    safeTxGas: '0',
    baseGas: '0',
    gasPrice: '0',
    gasToken: ZERO_ADDRESS,
    refundReceiver: ZERO_ADDRESS,
    nonce: options.nonce,
  };
}

/**
 * Checks the shape of an add-signer transaction for `safe`, without any on-chain state.
 * Returns the decoded call, or null when it is anything else.
 */
export function parseAddSignerTransaction(
  safe: Address,
  tx: SafeTransactionData,
): { owner: Address; threshold: bigint } | null {
  try {
    if (!isAddressEqual(tx.to, safe)) return null;
    if (parseUint256(tx.value) !== 0n || Number(tx.operation) !== 0) return null;
    if (parseUint256(tx.safeTxGas) !== 0n || parseUint256(tx.baseGas) !== 0n) return null;
    if (parseUint256(tx.gasPrice) !== 0n) return null;
    if (!isAddressEqual(tx.gasToken, ZERO_ADDRESS) || !isAddressEqual(tx.refundReceiver, ZERO_ADDRESS))
      return null;
    // The nonce is an integer on our wire; the Safe Transaction Service sends it as a decimal string.
    if (parseUint256(tx.nonce as number | string) > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  } catch {
    return null;
  }
  return decodeAddOwnerWithThreshold(tx.data);
}

/** Safe `setup(...)` calldata: the proxy initializer. */
export function encodeSafeSetup(options: {
  owners: readonly Address[];
  threshold: number | bigint;
  fallbackHandler: Address;
  to?: Address;
  data?: Hex;
  paymentToken?: Address;
  payment?: bigint;
  paymentReceiver?: Address;
}): Hex {
  return encodeFunctionData({
    abi: SAFE_ABI,
    functionName: 'setup',
    args: [
      options.owners,
      BigInt(options.threshold),
      options.to ?? ZERO_ADDRESS,
      options.data ?? '0x',
      options.fallbackHandler,
      options.paymentToken ?? ZERO_ADDRESS,
      options.payment ?? 0n,
      options.paymentReceiver ?? ZERO_ADDRESS,
    ],
  });
}

/** Initializer of a fresh one-owner wallet: owners [owner], threshold 1, default fallback handler. */
export function singleOwnerSafeInitializer(owner: Address, deployment: SafeDeployment): Hex {
  return encodeSafeSetup({ owners: [owner], threshold: 1, fallbackHandler: deployment.fallbackHandler });
}

/** CREATE2 salt of `createProxyWithNonce`: keccak256(keccak256(initializer) ‖ uint256(saltNonce)). */
export function safeProxySalt(initializer: Hex, saltNonce: bigint): Hex {
  return keccak256(concat([keccak256(initializer), pad(toHex(saltNonce), { size: 32 })]));
}

/** initCode = proxyCreationCode ‖ uint256(uint160(singleton)) */
export function safeProxyInitCode(proxyCreationCode: Hex, singleton: Address): Hex {
  return concat([proxyCreationCode, encodeAbiParameters([{ type: 'address' }], [singleton])]);
}

export function predictSafeAddress(options: {
  proxyFactory: Address;
  singleton: Address;
  proxyCreationCode: Hex;
  initializer: Hex;
  saltNonce: bigint;
}): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: options.proxyFactory,
    salt: safeProxySalt(options.initializer, options.saltNonce),
    bytecode: safeProxyInitCode(options.proxyCreationCode, options.singleton),
  });
}

/** The address of the one-owner Safe (SafeL2 singleton) an EOA gets with `saltNonce`. */
export function predictSingleOwnerSafe(options: {
  owner: Address;
  saltNonce?: bigint;
  deployment?: SafeDeployment;
  singleton?: Address;
}): Address {
  const deployment = options.deployment ?? SAFE_DEPLOYMENTS['v1.4.1'];
  return predictSafeAddress({
    proxyFactory: deployment.proxyFactory,
    singleton: options.singleton ?? deployment.safeL2Singleton,
    proxyCreationCode: deployment.proxyCreationCode,
    initializer: singleOwnerSafeInitializer(getAddress(options.owner), deployment),
    saltNonce: options.saltNonce ?? 0n,
  });
}

export function encodeCreateProxyWithNonce(singleton: Address, initializer: Hex, saltNonce: bigint): Hex {
  return encodeFunctionData({
    abi: SAFE_PROXY_FACTORY_ABI,
    functionName: 'createProxyWithNonce',
    args: [singleton, initializer, saltNonce],
  });
}

/**
 * Turns a wallet's EIP-712 signature into the form the Safe checks: v 0/1 becomes 27/28
 * (left as 0/1, the Safe would read it as a contract or approved-hash signature). Null when the
 * signature is not 65 bytes with v in {0, 1, 27, 28}.
 */
export function normalizeSafeEip712Signature(signature: Hex): Hex | null {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  const v = Number.parseInt(signature.slice(130), 16);
  if (v === 27 || v === 28) return signature.toLowerCase() as Hex;
  if (v === 0 || v === 1) return `${signature.slice(0, 130).toLowerCase()}${(v + 27).toString(16)}` as Hex;
  return null;
}

/** Static-part signatures packed in strictly ascending owner order, as `checkNSignatures` requires. */
export function packSafeSignatures(confirmations: readonly { owner: Address; signature: Hex }[]): Hex {
  const sorted = [...confirmations].sort((a, b) => {
    const x = BigInt(a.owner);
    const y = BigInt(b.owner);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return concat(sorted.map((c) => c.signature));
}

/** `execTransaction(...)` calldata for a Safe transaction and its packed signatures. */
export function encodeExecTransaction(tx: SafeTransactionData, signatures: Hex): Hex {
  const t = normalizeSafeTx(tx);
  return encodeFunctionData({
    abi: SAFE_ABI,
    functionName: 'execTransaction',
    args: [
      t.to,
      t.value,
      t.data,
      t.operation,
      t.safeTxGas,
      t.baseGas,
      t.gasPrice,
      t.gasToken,
      t.refundReceiver,
      signatures,
    ],
  });
}

/** A pre-validated ("approved hash", v = 1) signature for `owner`. */
export function encodePrevalidatedSignature(owner: Address): Hex {
  return concat([pad(owner, { size: 32 }), pad('0x', { size: 32 }), '0x01']);
}
