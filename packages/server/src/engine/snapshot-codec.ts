/**
 * The byte layer of the engine's binary snapshot (`Engine.snapshotBytes` / `Engine.restoreBytes`):
 * little-endian numbers and length-prefixed strings. Strings are written byte per character when they are
 * ASCII (order ids, addresses, amounts: the fast path) and as UTF-8 otherwise, the length's top bit telling
 * which.
 */

const UTF8_FLAG = 0x8000_0000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ByteWriter {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  private length = 0;

  constructor(expectedBytes = 1 << 16) {
    this.reserve(expectedBytes);
  }

  u32(value: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  f64(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  u64(value: bigint): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, value, true);
    this.length += 8;
  }

  str(text: string): void {
    const n = text.length;
    this.reserve(4 + n);
    const bytes = this.bytes;
    const at = this.length + 4;
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        this.utf8(text);
        return;
      }
      bytes[at + i] = code;
    }
    this.view.setUint32(this.length, n, true);
    this.length = at + n;
  }

  /** The bytes written (a copy of exactly that length). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  private utf8(text: string): void {
    const encoded = encoder.encode(text);
    this.reserve(4 + encoded.length);
    this.view.setUint32(this.length, (encoded.length | UTF8_FLAG) >>> 0, true);
    this.bytes.set(encoded, this.length + 4);
    this.length += 4 + encoded.length;
  }

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }
}

export class SnapshotFormatError extends Error {
  override name = 'SnapshotFormatError';
}

export class ByteReader {
  private readonly view: DataView;
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  f64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.at, true);
    this.at += 8;
    return value;
  }

  u64(): bigint {
    this.need(8);
    const value = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return value;
  }

  str(): string {
    const header = this.u32();
    const n = header & ~UTF8_FLAG;
    this.need(n);
    const slice = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    if ((header & UTF8_FLAG) !== 0) return decoder.decode(slice);
    // Short ASCII strings (ids, names, amounts): one call; longer ones through the decoder.
    return n <= 1024 ? String.fromCharCode.apply(null, slice as unknown as number[]) : decoder.decode(slice);
  }

  /** Throws unless every byte was read. */
  end(): void {
    if (this.at !== this.bytes.length) throw new SnapshotFormatError('trailing bytes after the snapshot');
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new SnapshotFormatError('the snapshot ends early');
  }
}
