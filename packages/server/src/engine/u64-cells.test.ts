import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { U64Cells } from './u64-cells.js';

describe('u64 cells', () => {
  it('hold any bigint exactly, past 64 bits and below zero too, as an array would', () => {
    const values = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }),
      fc.constantFrom(0n, (1n << 64n) - 1n, 1n << 64n, -1n),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 40 }), values, fc.constantFrom('set', 'increase', 'decrease')), {
          maxLength: 200,
        }),
        (writes) => {
          const cells = new U64Cells(4);
          const model: bigint[] = [];
          for (const [i, value, op] of writes) {
            cells.ensure(i + 1);
            const delta = value < 0n ? -value : value;
            const v =
              op === 'set' ? value : op === 'increase' ? (model[i] ?? 0n) + delta : (model[i] ?? 0n) - delta;
            if (op === 'set') cells.set(i, v);
            else if (op === 'increase') cells.increase(i, delta);
            else cells.decrease(i, delta);
            model[i] = v;
            for (let j = 0; j < model.length; j++) expect(cells.get(j)).toBe(model[j] ?? 0n);
          }
          cells.clear(model.length);
          for (let j = 0; j < model.length; j++) expect(cells.get(j)).toBe(0n);
        },
      ),
      { numRuns: 100 },
    );
  });
});
