// 32-bit multiply without Math.imul (the engine avoids Math): low 32 bits of a * b.
export function mul32(a: number, b: number): number {
  const ah = (a >>> 16) & 0xffff;
  const al = a & 0xffff;
  const bh = (b >>> 16) & 0xffff;
  const bl = b & 0xffff;
  return (al * bl + (((ah * bl + al * bh) << 16) >>> 0)) | 0;
}

function hex32(x: number): string {
  return (x >>> 0).toString(16).padStart(8, '0');
}

/**
 * A 128-bit non-cryptographic hash of a string (cyrb128, four mixed 32-bit lanes): enough to tell two
 * engine states apart in replay and recovery checks, not to resist an adversary.
 */
export function hashString(text: string): string {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ mul32(h1 ^ k, 597399067);
    h2 = h3 ^ mul32(h2 ^ k, 2869860233);
    h3 = h4 ^ mul32(h3 ^ k, 951274213);
    h4 = h1 ^ mul32(h4 ^ k, 2716044179);
  }
  h1 = mul32(h3 ^ (h1 >>> 18), 597399067);
  h2 = mul32(h4 ^ (h2 >>> 22), 2869860233);
  h3 = mul32(h1 ^ (h3 >>> 17), 951274213);
  h4 = mul32(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return hex32(h1) + hex32(h2) + hex32(h3) + hex32(h4);
}

/** The state hash of a canonical snapshot: what `Engine.stateHash()` returns for the engine that took it. */
export function snapshotHash(snapshot: unknown): string {
  return hashString(JSON.stringify(snapshot));
}
