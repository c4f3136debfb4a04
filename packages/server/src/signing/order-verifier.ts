import type { OrderDomain } from '@oddsbook/protocol';
import { keccak256Buffer } from './native-crypto.js';
import { recoverSigner, type SignatureErrorCode } from './recover-signer.js';

/** The eight signed fields as they arrive on the wire (uints as decimal or 0x-hex strings). */
export type WireOrder = {
  marketHash: string;
  baseToken: string;
  totalBetSize: string;
  percentageOdds: string;
  salt: string;
  expiry: string | number;
  maker: string;
  isMakerBettingOutcomeOne: boolean;
};

/**
 * `MALFORMED_ORDER`: a signed field cannot be encoded (not hex of the right size, not a uint256), so
 * there is no order id. Schema validation normally rejects these first.
 */
export type VerifyErrorCode = SignatureErrorCode | 'MALFORMED_ORDER';

export type VerifyResult =
  | { ok: true; orderId: `0x${string}`; signer: `0x${string}` }
  | { ok: false; code: VerifyErrorCode; orderId?: `0x${string}` };

export type OrderVerifier = {
  /** The EIP-712 digest (order id), or null when a field is malformed. */
  orderId(order: WireOrder): `0x${string}` | null;
  /** Digest plus signer recovery. Never throws on bad input. */
  verify(order: WireOrder, signature: string): VerifyResult;
};

const ORDER_TYPE_STRING =
  'Order(bytes32 marketHash,address baseToken,uint256 totalBetSize,uint256 percentageOdds,uint256 salt,uint256 expiry,address maker,bool isMakerBettingOutcomeOne)';
const DOMAIN_TYPE_STRING =
  'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)';

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const HEX_UINT = /^0x[0-9a-fA-F]{1,64}$/;
const ZERO_WORD = '0'.repeat(64);

function ascii(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

function uintWord(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

/** keccak256(abi.encode(typeHash, keccak(name), keccak(version), chainId, verifyingContract)) */
export function orderDomainSeparatorBuffer(domain: OrderDomain): Buffer {
  const enc = Buffer.alloc(160);
  keccak256Buffer(ascii(DOMAIN_TYPE_STRING)).copy(enc, 0);
  keccak256Buffer(ascii(domain.name)).copy(enc, 32);
  keccak256Buffer(ascii(domain.version)).copy(enc, 64);
  uintWord(BigInt(domain.chainId)).copy(enc, 96);
  enc.write(domain.verifyingContract.slice(2), 140, 'hex');
  return keccak256Buffer(enc);
}

/**
 * A hand-written encoder for the one fixed Order struct: the type hash and domain separator are
 * computed once, the 288-byte struct and 66-byte digest preimage are preallocated, and hashing and
 * recovery use the native keccak and libsecp256k1. About 6x faster than viem `hashTypedData` +
 * native recovery and 20x faster than `recoverTypedDataAddress` (docs/wallets.md, bench/verify.ts).
 * Not re-entrant (shared buffers), which is fine on one thread; each worker builds its own.
 */
export function createOrderVerifier(domain: OrderDomain): OrderVerifier {
  const struct = Buffer.alloc(9 * 32);
  keccak256Buffer(ascii(ORDER_TYPE_STRING)).copy(struct, 0);
  const preimage = Buffer.alloc(66);
  preimage[0] = 0x19;
  preimage[1] = 0x01;
  orderDomainSeparatorBuffer(domain).copy(preimage, 2);

  function writeUint(value: string | number, offset: number): boolean {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) return false;
      struct.write(value.toString(16).padStart(64, '0'), offset, 'hex');
      return true;
    }
    if (typeof value !== 'string') return false;
    if (DECIMAL.test(value)) {
      // Up to 15 digits fits a double exactly: skip BigInt.
      const hex = value.length <= 15 ? Number(value).toString(16) : BigInt(value).toString(16);
      if (hex.length > 64) return false;
      struct.write(hex.padStart(64, '0'), offset, 'hex');
      return true;
    }
    if (HEX_UINT.test(value)) {
      struct.write(value.slice(2).padStart(64, '0'), offset, 'hex');
      return true;
    }
    return false;
  }

  function writeAddress(value: string, offset: number): boolean {
    if (typeof value !== 'string' || !ADDRESS.test(value)) return false;
    struct.write(ZERO_WORD, offset, 24, 'hex');
    struct.write(value.slice(2), offset + 12, 'hex');
    return true;
  }

  function digest(order: WireOrder): Buffer | null {
    if (order === null || typeof order !== 'object') return null;
    if (typeof order.marketHash !== 'string' || !HEX32.test(order.marketHash)) return null;
    struct.write(order.marketHash.slice(2), 32, 'hex');
    if (!writeAddress(order.baseToken, 64)) return null;
    if (!writeUint(order.totalBetSize, 96)) return null;
    if (!writeUint(order.percentageOdds, 128)) return null;
    if (!writeUint(order.salt, 160)) return null;
    if (!writeUint(order.expiry, 192)) return null;
    if (!writeAddress(order.maker, 224)) return null;
    if (typeof order.isMakerBettingOutcomeOne !== 'boolean') return null;
    struct.fill(0, 256, 287);
    struct[287] = order.isMakerBettingOutcomeOne ? 1 : 0;
    keccak256Buffer(struct).copy(preimage, 34);
    return keccak256Buffer(preimage);
  }

  return {
    orderId(order) {
      const d = digest(order);
      return d ? `0x${d.toString('hex')}` : null;
    },
    verify(order, signature) {
      const d = digest(order);
      if (!d) return { ok: false, code: 'MALFORMED_ORDER' };
      const orderId = `0x${d.toString('hex')}` as const;
      const recovered = recoverSigner(d, signature);
      if (!recovered.ok) return { ok: false, code: recovered.code, orderId };
      return { ok: true, orderId, signer: recovered.signer };
    },
  };
}
