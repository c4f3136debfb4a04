import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryChainStore } from './chain-store.js';
import type { Address } from './chain-types.js';
import { FAULT_CLASS_OF } from './settlement-mining.js';
import type {
  SettlementFaultClass,
  SettlementItem,
  SettlementItemKind,
  SettlementMove,
} from './settlement-types.js';
import { A, B, C, createTestChain, ESCROW } from './test-support.js';

const WALLETS: Address[] = [A, B, C];
const amount = fc.bigInt(1n, 200n);
const wallet = fc.constantFrom(...WALLETS);
const walletMove: fc.Arbitrary<SettlementMove> = fc.oneof(
  fc.record({ kind: fc.constant('escrow' as const), from: wallet, amount }),
  fc.record({ kind: fc.constant('release' as const), to: wallet, amount }),
);
const movesOf: Record<SettlementItemKind, fc.Arbitrary<SettlementMove[]>> = {
  fill: fc.array(walletMove, { maxLength: 4 }),
  adjustment: fc.array(walletMove, { minLength: 1, maxLength: 2 }),
  payout: fc.array(fc.record({ kind: fc.constant('release' as const), to: wallet, amount }), {
    minLength: 1,
    maxLength: 1,
  }),
  deposit: fc.array(
    fc.record({ kind: fc.constant('mint' as const), to: wallet, amount: fc.bigInt(1n, 1_000n) }),
    {
      minLength: 1,
      maxLength: 1,
    },
  ),
};
// Ids from a small pool per kind, so that the same id comes back (a retry, a resubmission after a crash).
const settlementItem: fc.Arbitrary<SettlementItem> = fc
  .record({
    kind: fc.constantFrom<SettlementItemKind>('fill', 'adjustment', 'payout', 'deposit'),
    n: fc.nat(11),
  })
  .chain(({ kind, n }) => movesOf[kind].map((moves) => ({ id: `${kind}:${n}`, kind, moves })));
const items = fc.uniqueArray(settlementItem, { selector: (i) => i.id, maxLength: 8 });

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('submit' as const), items, window: fc.nat(3) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      faultClass: fc.constantFrom<SettlementFaultClass>('escrow', 'release', 'payout', 'deposit'),
      count: fc.nat(3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), paused: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
);

/** Applies moves to a copy of the model's balances: the new balances, or the first move's failure. */
function applyModel(balances: ReadonlyMap<Address, bigint>, moves: readonly SettlementMove[]) {
  const next = new Map(balances);
  const get = (a: Address) => next.get(a) ?? 0n;
  for (const m of moves) {
    if (m.kind === 'mint') next.set(m.to, get(m.to) + m.amount);
    else if (m.kind === 'escrow') {
      if (get(m.from) < m.amount) return { error: 'INSUFFICIENT_BALANCE' };
      next.set(m.from, get(m.from) - m.amount);
      next.set(ESCROW, get(ESCROW) + m.amount);
    } else {
      if (get(ESCROW) < m.amount) return { error: 'INSUFFICIENT_ESCROW' };
      next.set(ESCROW, get(ESCROW) - m.amount);
      next.set(m.to, get(m.to) + m.amount);
    }
  }
  return { next };
}

describe('settlement transactions: properties', () => {
  it('money is conserved, nothing goes negative, each item moves exactly its moves or nothing, an id moves once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const store = new MemoryChainStore();
        let { chain, timer } = createTestChain(store);
        // Funds to start from (the items' amounts make some of them infeasible still).
        await chain.submitSettlement({
          firstSeq: 1,
          lastSeq: 1,
          retries: [],
          items: WALLETS.map((to, i) => ({
            id: `funds:${i}`,
            kind: 'deposit',
            moves: [{ kind: 'mint', to, amount: 300n }],
          })),
        });
        let cursor = 1;
        const armed: Record<SettlementFaultClass, number> = { escrow: 0, release: 0, payout: 0, deposit: 0 };
        let failed: SettlementItem[] = [];
        for (const s of steps) {
          if (s.kind === 'submit') {
            // Failed items of earlier transactions come back as retries, as the driver would send them.
            const ids = new Set(s.items.map((i) => i.id));
            const retries: SettlementItem[] = [];
            for (const item of failed) {
              if (retries.length === 4 || ids.has(item.id)) continue;
              ids.add(item.id);
              retries.push(item);
            }
            failed = [];
            await chain.submitSettlement({
              firstSeq: cursor + 1,
              lastSeq: cursor + s.window,
              retries,
              items: s.items,
            });
            cursor += s.window;
          } else if (s.kind === 'tick') {
            const before = chain.headNumber();
            timer.tick();
            for (const r of await chain.receiptsBetween(before, chain.headNumber(), 'settle')) {
              const all = r.tx.kind === 'settle' ? [...r.tx.retries, ...r.tx.items] : [];
              r.items!.forEach((result, i) => {
                if (result.status === 'failed' || result.status === 'skipped') failed.push(all[i]!);
              });
            }
          } else if (s.kind === 'fault') {
            await chain.failNextSettlementItems(s.faultClass, s.count);
            armed[s.faultClass] += s.count;
          } else if (s.kind === 'pause') {
            await (s.paused ? chain.pauseBlocks() : chain.resumeBlocks());
          } else {
            await chain.stop();
            ({ chain, timer } = createTestChain(store));
            expect(chain.settlementSubmittedThrough()).toBe(cursor);
          }
        }
        await chain.resumeBlocks();
        timer.tick();
        expect(chain.pendingSettlements()).toEqual([]);

        // Replays the receipts, in chain order, on a model of the balances.
        let model = new Map<Address, bigint>();
        let minted = 0n;
        const landed = new Set<string>();
        const injected: Record<SettlementFaultClass, number> = {
          escrow: 0,
          release: 0,
          payout: 0,
          deposit: 0,
        };
        for (const receipt of await chain.receiptsBetween(0, chain.headNumber(), 'settle')) {
          expect(receipt.status).toBe('success');
          if (receipt.tx.kind !== 'settle') throw new Error('not a settlement');
          const all = [...receipt.tx.retries, ...receipt.tx.items];
          expect(receipt.items!.map((r) => [r.id, r.kind])).toEqual(all.map((i) => [i.id, i.kind]));
          let stopped = false;
          for (const [i, item] of all.entries()) {
            const result = receipt.items![i]!;
            if (stopped) {
              expect(result.status).toBe('skipped');
              continue;
            }
            if (landed.has(item.id)) {
              expect(result.status).toBe('duplicate');
              continue;
            }
            const applied = applyModel(model, item.moves);
            if (result.status === 'success') {
              // An id moves once: it was not landed before, and now it is.
              expect(applied.next).toBeDefined();
              model = applied.next!;
              landed.add(item.id);
              for (const m of item.moves) if (m.kind === 'mint') minted += m.amount;
              continue;
            }
            expect(result.status).toBe('failed');
            if (result.error === 'INJECTED_FAULT') injected[FAULT_CLASS_OF[item.kind]] += 1;
            else expect(result.error).toBe(applied.error);
            if (item.kind !== 'fill') stopped = true;
          }
        }
        const balances = chain.balances();
        for (const a of new Set([...balances.keys(), ...model.keys()])) {
          expect(balances.get(a) ?? 0n).toBe(model.get(a) ?? 0n);
          expect((balances.get(a) ?? 0n) >= 0n).toBe(true);
        }
        let sum = 0n;
        for (const v of balances.values()) sum += v;
        expect(sum).toBe(minted);
        expect(chain.totalSupply()).toBe(minted);
        for (const c of Object.keys(injected) as SettlementFaultClass[]) {
          expect(injected[c]).toBeLessThanOrEqual(armed[c]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
