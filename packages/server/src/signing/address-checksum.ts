import { keccak256Buffer } from './native-crypto.js';

const cache = new Map<string, `0x${string}`>();
const CACHE_LIMIT = 50_000;

/** EIP-55 checksum of a 20-byte address given as 40 lower-case hex chars (no 0x). Makers repeat, so it is cached. */
export function checksumLowerHex(lower40: string): `0x${string}` {
  const hit = cache.get(lower40);
  if (hit) return hit;
  const hash = keccak256Buffer(Buffer.from(lower40, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower40.charCodeAt(i);
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += c >= 97 && nibble >= 8 ? String.fromCharCode(c - 32) : lower40[i];
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(lower40, out as `0x${string}`);
  return out as `0x${string}`;
}
