import { createRequire } from 'node:module';
import type createKeccakType from 'keccak';
import type secp256k1Type from 'secp256k1';

export type CryptoImplementation = {
  /** 'native' when the compiled addon loaded, 'js' on the package's pure-JS fallback (several times slower). */
  kind: 'native' | 'js';
  /** Why the addon did not load, when it did not. */
  nativeError?: string;
};

const require = createRequire(import.meta.url);

/**
 * Loads a package's native build, else its pure-JS fallback. The packages' own entry points do the same
 * silently; loading each side by name tells which one runs.
 */
function load<T>(nativeEntry: string, jsEntry: string): { module: T; implementation: CryptoImplementation } {
  try {
    return { module: require(nativeEntry) as T, implementation: { kind: 'native' } };
  } catch (error) {
    const nativeError = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return { module: require(jsEntry) as T, implementation: { kind: 'js', nativeError } };
  }
}

const keccak = load<typeof createKeccakType>('keccak/bindings', 'keccak/js');
const secp = load<typeof secp256k1Type>('secp256k1/bindings', 'secp256k1/elliptic');
const createKeccak = keccak.module;
const secp256k1 = secp.module;

/** Which implementation of each primitive this process runs (checked and logged at start). */
export const cryptoImplementations: { secp256k1: CryptoImplementation; keccak: CryptoImplementation } = {
  secp256k1: secp.implementation,
  keccak: keccak.implementation,
};

/** The native sponge behind `keccak`'s stream API (3.0.4); driven directly it costs half as much per call. */
type KeccakState = {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  squeeze(length: number): Buffer;
};

function nativeKeccakState(): KeccakState | null {
  const probe = createKeccak('keccak256') as unknown as { _state?: { constructor: new () => KeccakState } };
  const Ctor = probe._state?.constructor;
  if (typeof Ctor !== 'function') return null;
  const state = new Ctor();
  if (typeof state.initialize !== 'function' || typeof state.squeeze !== 'function') return null;
  return state;
}

const state = nativeKeccakState();

/** keccak256 of `data`, synchronously, as a fresh 32-byte Buffer. */
export const keccak256Buffer: (data: Uint8Array) => Buffer = state
  ? (data) => {
      state.initialize(1088, 512);
      state.absorb(data);
      return state.squeeze(32);
    }
  : (data) => createKeccak('keccak256').update(Buffer.from(data)).digest();

const pubkey = Buffer.alloc(65);
const pubkeyXY = pubkey.subarray(1);

/**
 * libsecp256k1 public key recovery (64-byte r‖s, recovery id 0/1, 32-byte digest). Returns the
 * 64-byte x‖y in a shared buffer, valid until the next call. Throws when nothing recovers.
 */
export function ecdsaRecoverXY(rs: Uint8Array, recid: number, digest: Uint8Array): Buffer {
  secp256k1.ecdsaRecover(rs, recid, digest, false, pubkey);
  return pubkeyXY;
}
