import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import { ByteReader, ByteWriter, SnapshotFormatError } from './snapshot-codec.js';
import { Harness } from './test-support/harness.js';

describe('snapshot bytes', () => {
  it('round-trip numbers and strings, ASCII and not', () => {
    const w = new ByteWriter(8);
    w.u32(0xffff_ffff);
    w.f64(2 ** 53 - 1);
    w.u64((1n << 64n) - 1n);
    w.str('');
    w.str('0xAbC');
    w.str('Équipe ⚽');
    w.str('x'.repeat(5_000));
    const r = new ByteReader(w.finish());
    expect([r.u32(), r.f64(), r.u64(), r.str(), r.str(), r.str(), r.str()]).toEqual([
      0xffff_ffff,
      2 ** 53 - 1,
      (1n << 64n) - 1n,
      '',
      '0xAbC',
      'Équipe ⚽',
      'x'.repeat(5_000),
    ]);
    r.end();
  });

  it('restore an engine with orders, balances, positions and closed markets exactly', () => {
    const h = Harness.standard({ A: 10n ** 12n, 'B é': 10n ** 12n });
    h.place({ id: 'm1', account: 'A', tick: 400, size: 8_000_000n });
    h.place({ id: 't1', account: 'B é', one: false, tick: 400, size: 2_000_000n, tif: 'IOC' });
    h.place({ id: 'm2', account: 'A', tick: 300, size: 5_000_000n });
    h.place({ id: 'm3', account: 'B é', one: false, tick: 100, size: 5_000_000n });
    h.apply({ type: 'closeMarket', marketHash: 'M3' });
    const bytes = h.engine.snapshotBytes();
    const restored = Engine.restoreBytes(bytes);
    expect(restored.snapshot()).toEqual(h.engine.snapshot());
    expect(restored.snapshotBytes()).toEqual(bytes);
    restored.assertInvariants();
  });

  it('refuses bytes that are not a whole snapshot', () => {
    const bytes = Harness.standard({ A: 5n }).engine.snapshotBytes();
    expect(() => Engine.restoreBytes(bytes.subarray(0, bytes.length - 1))).toThrow(SnapshotFormatError);
    expect(() => Engine.restoreBytes(new Uint8Array([...bytes, 0]))).toThrow(SnapshotFormatError);
    expect(() => Engine.restoreBytes(new TextEncoder().encode('{"format":1}'))).toThrow(SnapshotFormatError);
  });
});
