import createKeccak from 'keccak';
import secp256k1 from 'secp256k1';

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
