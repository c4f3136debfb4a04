import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderIndex } from './order-index.js';
import { NIL, OrderStore } from './order-store.js';

describe('order index', () => {
  it('behaves as a Map under random adds and deletes (with growth and backward shifts)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 300 })), { minLength: 1, maxLength: 1500 }),
        (ops) => {
          const store = new OrderStore();
          const index = new OrderIndex(store);
          const model = new Map<string, number>();
          for (const [add, n] of ops) {
            const id = n % 7 === 0 ? `0x${'ab'.repeat(31)}${n.toString(16).padStart(2, '0')}` : `id-${n}`;
            if (add && !model.has(id)) {
              const h = store.allocate();
              store.ids[h] = id;
              index.add(id, h);
              model.set(id, h);
            } else if (!add && model.has(id)) {
              index.delete(id);
              store.release(model.get(id)!);
              model.delete(id);
            }
            expect(index.size).toBe(model.size);
          }
          for (let n = 0; n <= 300; n++) {
            for (const id of [`id-${n}`, `0x${'ab'.repeat(31)}${n.toString(16).padStart(2, '0')}`]) {
              expect(index.get(id)).toBe(model.get(id) ?? NIL);
              expect(index.has(id)).toBe(model.has(id));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('order index with colliding hashes', () => {
  it('keeps runs longer than a tag can measure exact (ids crafted to share a hash)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 3000,
        }),
        (ops) => {
          const store = new OrderStore();
          const index = new OrderIndex(store);
          const model = new Map<string, number>();
          // Four hashes for every id: runs of hundreds of entries with one home.
          const hashOf = (n: number) => [7, 7 + 4096, -5, 123456789][n % 4]!;
          for (const [add, n] of ops) {
            const id = `id-${n}`;
            const hash = hashOf(n);
            if (add && !model.has(id)) {
              const h = store.allocate();
              store.ids[h] = id;
              index.addHashed(hash, h);
              model.set(id, h);
            } else if (!add && model.has(id)) {
              const slot = index.find(id, hash);
              expect(index.handleAt(slot)).toBe(model.get(id));
              if (n % 2 === 0) index.removeSlot(slot);
              else index.removeHandle(model.get(id)!);
              store.release(model.get(id)!);
              model.delete(id);
            }
          }
          expect(index.size).toBe(model.size);
          for (let n = 0; n <= 700; n++) {
            const slot = index.find(`id-${n}`, hashOf(n));
            expect(slot === NIL ? NIL : index.handleAt(slot)).toBe(model.get(`id-${n}`) ?? NIL);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
