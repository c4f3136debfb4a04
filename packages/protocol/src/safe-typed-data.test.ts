import { readFileSync } from 'node:fs';
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashTypedData,
  keccak256,
  recoverAddress,
  recoverTypedDataAddress,
  toFunctionSelector,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  ADD_OWNER_WITH_THRESHOLD_SELECTOR,
  addOwnerSafeTransaction,
  decodeAddOwnerWithThreshold,
  encodeAddOwnerWithThreshold,
  encodeCreateProxyWithNonce,
  encodeExecTransaction,
  encodePrevalidatedSignature,
  encodeSafeTxHashPreimage,
  normalizeSafeEip712Signature,
  packSafeSignatures,
  parseAddSignerTransaction,
  predictSafeAddress,
  predictSingleOwnerSafe,
  SAFE_DEPLOYMENTS,
  SAFE_DOMAIN_SEPARATOR_TYPEHASH,
  SAFE_PROXY_CREATION_CODE_V1_3_0,
  SAFE_PROXY_CREATION_CODE_V1_4_1,
  SAFE_TX_TYPEHASH,
  type SafeTransactionData,
  safeDomain,
  safeDomainSeparator,
  safeProxyInitCode,
  safeProxySalt,
  safeTxHash,
  safeTxStructHash,
  safeTxTypedData,
  singleOwnerSafeInitializer,
} from './safe-typed-data.js';

// Cross-library vectors (viem, ethers, eth-sig-util, protocol-kit and an in-process EVM agree).
type TypedData = Parameters<typeof hashTypedData>[0];

const V = JSON.parse(
  readFileSync(new URL('./test-vectors/safe-vectors.json', import.meta.url), 'utf8'),
  // biome-ignore lint/suspicious/noExplicitAny: JSON vectors are read loosely
) as Record<string, any>;

const PK_A = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const PK_B = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const A = V['ownerA (hardhat #0)'] as Address;
const B = V['ownerB (hardhat #1)'] as Address;
const C = V['ownerC (hardhat #2)'] as Address;
const SAFE = V['v1.4.1 SafeL2 predicted Safe address'] as Address;
const CHAIN_ID = 4162;
const tx0 = V['tx0 SafeTransactionData'] as SafeTransactionData;
const v141 = SAFE_DEPLOYMENTS['v1.4.1'];
const v130 = SAFE_DEPLOYMENTS['v1.3.0'];

describe('Safe constants', () => {
  it('type hashes', () => {
    expect(SAFE_TX_TYPEHASH).toBe(V.SAFE_TX_TYPEHASH);
    expect(SAFE_DOMAIN_SEPARATOR_TYPEHASH).toBe(V.DOMAIN_SEPARATOR_TYPEHASH);
    expect(
      keccak256(
        new TextEncoder().encode(
          'SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)',
        ),
      ),
    ).toBe(SAFE_TX_TYPEHASH);
    expect(
      keccak256(new TextEncoder().encode('EIP712Domain(uint256 chainId,address verifyingContract)')),
    ).toBe(SAFE_DOMAIN_SEPARATOR_TYPEHASH);
  });

  it('every selector', () => {
    for (const [signature, selector] of Object.entries(V.selectors as Record<string, string>)) {
      expect(toFunctionSelector(`function ${signature}`), signature).toBe(selector);
    }
    expect(ADD_OWNER_WITH_THRESHOLD_SELECTOR).toBe(V.selectors['addOwnerWithThreshold(address,uint256)']);
  });

  it('pinned proxy creation code', () => {
    expect(keccak256(SAFE_PROXY_CREATION_CODE_V1_4_1)).toBe(V['proxyCreationCode v1.4.1 keccak']);
    expect(keccak256(SAFE_PROXY_CREATION_CODE_V1_3_0)).toBe(V['proxyCreationCode v1.3.0 keccak']);
    expect((SAFE_PROXY_CREATION_CODE_V1_4_1.length - 2) / 2).toBe(486);
  });
});

describe('Safe proxy prediction', () => {
  const initializer = singleOwnerSafeInitializer(A, v141);

  it('initializer, salt, init code and address (v1.4.1 SafeL2)', () => {
    expect(initializer).toBe(V['v1.4.1 SafeL2 initializer (setup calldata)']);
    expect(keccak256(initializer)).toBe(V['v1.4.1 SafeL2 keccak(initializer)']);
    expect(safeProxySalt(initializer, 0n)).toBe(V['v1.4.1 SafeL2 salt (saltNonce=0)']);
    expect(keccak256(safeProxyInitCode(v141.proxyCreationCode, v141.safeL2Singleton))).toBe(
      V['v1.4.1 SafeL2 keccak(initCode)'],
    );
    expect(predictSingleOwnerSafe({ owner: A })).toBe(SAFE);
  });

  it('other configurations', () => {
    expect(predictSingleOwnerSafe({ owner: A, saltNonce: 1n })).toBe(
      V['v1.4.1 SafeL2 predicted (saltNonce=1)'],
    );
    expect(predictSingleOwnerSafe({ owner: A, singleton: v141.safeSingleton })).toBe(
      V['v1.4.1 Safe(L1) predicted Safe address'],
    );
    expect(predictSingleOwnerSafe({ owner: A, deployment: v130 })).toBe(
      V['v1.3.0 GnosisSafeL2 predicted Safe address'],
    );
    expect(predictSingleOwnerSafe({ owner: A, deployment: v130, singleton: v130.safeSingleton })).toBe(
      V['v1.3.0 GnosisSafe(L1) predicted Safe address'],
    );
    // Lower-case input gives the same checksummed address.
    expect(predictSingleOwnerSafe({ owner: A.toLowerCase() as Address })).toBe(SAFE);
  });

  it('predictSafeAddress from raw parts', () => {
    expect(
      predictSafeAddress({
        proxyFactory: v141.proxyFactory,
        singleton: v141.safeL2Singleton,
        proxyCreationCode: v141.proxyCreationCode,
        initializer,
        saltNonce: 0n,
      }),
    ).toBe(SAFE);
  });

  it('createProxyWithNonce calldata', () => {
    expect(encodeCreateProxyWithNonce(v141.safeL2Singleton, initializer, 0n)).toBe(
      V['v1.4.1 createProxyWithNonce calldata'],
    );
  });
});

describe('SafeTx tx0 (add B, threshold 1, nonce 0)', () => {
  const domain = safeDomain(CHAIN_ID, SAFE);

  it('builds the transaction data', () => {
    expect(addOwnerSafeTransaction({ safe: SAFE, newOwner: B, threshold: 1, nonce: 0 })).toEqual(tx0);
    expect(encodeAddOwnerWithThreshold(B, 1)).toBe(tx0.data);
  });

  it('decodes the calldata', () => {
    const decoded = decodeAddOwnerWithThreshold(tx0.data);
    expect(decoded).toEqual({ owner: B, threshold: 1n });
    expect([decoded?.owner, String(decoded?.threshold)]).toEqual(V['tx0 data decoded'].args);
    expect(decodeAddOwnerWithThreshold(`${tx0.data}00` as Hex)).toBeNull();
    expect(decodeAddOwnerWithThreshold(V.selectors['changeThreshold(uint256)'])).toBeNull();
    expect(parseAddSignerTransaction(SAFE, tx0)).toEqual({ owner: B, threshold: 1n });
    expect(parseAddSignerTransaction(A, tx0)).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, operation: 1 })).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, value: '1' })).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, gasPrice: '1' })).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, refundReceiver: A })).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, nonce: -1 })).toBeNull();
    expect(parseAddSignerTransaction(SAFE, { ...tx0, nonce: '0' as unknown as number })).toEqual({
      owner: B,
      threshold: 1n,
    });
    expect(safeTxHash(safeDomain(CHAIN_ID, SAFE), { ...tx0, nonce: '0' as unknown as number })).toBe(
      V['tx0 safeTxHash'],
    );
  });

  it('domain separator, struct hash, preimage, safeTxHash', () => {
    expect(safeDomainSeparator(domain)).toBe(V['tx0 domainSeparator']);
    expect(safeTxStructHash(tx0)).toBe(V['tx0 SafeTx structHash']);
    expect(encodeSafeTxHashPreimage(domain, tx0)).toBe(V['tx0 encodeTransactionData (0x1901‖ds‖sh)']);
    expect(safeTxHash(domain, tx0)).toBe(V['tx0 safeTxHash']);
    expect(safeTxHash(domain, tx0)).toBe(V['tx0 safeTxHash (manual)']);
    expect(keccak256(encodeSafeTxHashPreimage(domain, tx0))).toBe(V['tx0 safeTxHash']);
    expect(safeTxHash(safeDomain(1, SAFE), tx0)).toBe(V['tx0 safeTxHash if chainId=1 (same Safe addr)']);
  });

  it('typed data is exactly the eth_signTypedData_v4 JSON', () => {
    const typed = safeTxTypedData(domain, tx0);
    expect(JSON.parse(JSON.stringify(typed))).toEqual(V.tx0TypedDataJson);
    // viem hashes the JSON (EIP712Domain included) and protocol-kit's variant to the same hash.
    expect(hashTypedData(V.tx0TypedDataJson)).toBe(V['tx0 safeTxHash']);
    expect(hashTypedData(V.protocolKitTypedData)).toBe(V['tx0 safeTxHash']);
    expect(hashTypedData(typed as unknown as TypedData)).toBe(V['tx0 safeTxHash']);
  });

  it('signatures by A (EIP-712, eth_sign, v normalisation, pre-validated)', async () => {
    const a = privateKeyToAccount(PK_A);
    const typed = safeTxTypedData(domain, tx0);
    const sig = await a.signTypedData(typed as unknown as TypedData);
    expect(sig).toBe(V['tx0 signature by A (EIP-712, v=27/28)']);
    expect(sig.slice(0, 66)).toBe(V['tx0 sigA r']);
    expect(`0x${sig.slice(66, 130)}`).toBe(V['tx0 sigA s']);
    expect(Number.parseInt(sig.slice(130), 16)).toBe(V['tx0 sigA v']);
    expect(await a.sign({ hash: V['tx0 safeTxHash'] })).toBe(sig);
    expect(await recoverTypedDataAddress({ ...(typed as unknown as TypedData), signature: sig })).toBe(A);
    expect(await recoverAddress({ hash: V['tx0 safeTxHash'], signature: sig })).toBe(A);

    expect(normalizeSafeEip712Signature(V['tx0 sigA with v as 0/1 (must be normalised +27)'])).toBe(sig);
    expect(normalizeSafeEip712Signature(sig)).toBe(sig);
    expect(normalizeSafeEip712Signature(V['tx0 eth_sign signature for Safe (v+4)'])).toBeNull();

    const ethSign = await a.signMessage({ message: { raw: V['tx0 safeTxHash'] } });
    expect(ethSign).toBe(V['tx0 eth_sign(safeTxHash) raw by A']);
    const v = Number.parseInt(ethSign.slice(130), 16) + 4;
    expect(`${ethSign.slice(0, 130)}${v.toString(16)}`).toBe(V['tx0 eth_sign signature for Safe (v+4)']);

    expect(encodePrevalidatedSignature(A).toLowerCase()).toBe(
      V['tx0 pre-validated sig for A (v=1; msg.sender==A or approveHash)'].toLowerCase(),
    );
  });

  it('execTransaction calldata', () => {
    expect(encodeExecTransaction(tx0, V['tx0 signature by A (EIP-712, v=27/28)'])).toBe(
      V['tx0 execTransaction calldata (to = Safe)'],
    );
    // Same as viem encoding by the Safe ABI fragment.
    expect(V['tx0 execTransaction calldata (to = Safe)'].slice(0, 10)).toBe(
      V.selectors[
        'execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)'
      ],
    );
  });
});

describe('SafeTx tx1 (add C, threshold 2, nonce 1, two signatures)', () => {
  const domain = safeDomain(CHAIN_ID, SAFE);
  const tx1 = addOwnerSafeTransaction({ safe: SAFE, newOwner: C, threshold: 2, nonce: 1 });

  it('data, hash, signatures, packing', async () => {
    expect(tx1.data).toBe(V['tx1 data']);
    const hash = safeTxHash(domain, tx1);
    expect(hash).toBe(V['tx1 safeTxHash']);
    const typed = safeTxTypedData(domain, tx1) as unknown as TypedData;
    const sigA = await privateKeyToAccount(PK_A).signTypedData(typed);
    const sigB = await privateKeyToAccount(PK_B).signTypedData(typed);
    expect(sigA).toBe(V['tx1 sig A']);
    expect(sigB).toBe(V['tx1 sig B']);
    const packed = packSafeSignatures([
      { owner: A, signature: sigA },
      { owner: B, signature: sigB },
    ]);
    expect(packed).toBe(V['tx1 packed signatures (130 bytes)']);
    expect(V['tx1 signer order (ascending)']).toEqual([B, A]);
    // Order of input does not matter.
    expect(
      packSafeSignatures([
        { owner: B, signature: sigB },
        { owner: A, signature: sigA },
      ]),
    ).toBe(packed);
  });

  it('hash does not depend on address case', () => {
    const lower = { ...tx1, to: tx1.to.toLowerCase() as Address };
    expect(safeTxHash(safeDomain(CHAIN_ID, SAFE.toLowerCase() as Address), lower)).toBe(V['tx1 safeTxHash']);
    expect(getAddress(safeDomain(CHAIN_ID, SAFE.toLowerCase() as Address).verifyingContract)).toBe(SAFE);
  });

  it('encodeFunctionData agrees with the hand-picked selector', () => {
    expect(
      encodeFunctionData({
        abi: [
          {
            type: 'function',
            name: 'addOwnerWithThreshold',
            inputs: [
              { name: 'owner', type: 'address' },
              { name: '_threshold', type: 'uint256' },
            ],
            outputs: [],
            stateMutability: 'nonpayable',
          },
        ],
        args: [C, 2n],
      }),
    ).toBe(tx1.data);
  });
});
