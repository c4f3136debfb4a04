import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryChainStore } from './chain-store.js';
import type { Address } from './chain-types.js';
import { A, B, C, createTestChain, ESCROW } from './test-support.js';

const WALLETS: Address[] = [A, B, C];

const op = fc.oneof(
  fc.record({ kind: fc.constant('mint' as const), w: fc.nat(2), amount: fc.bigInt(1n, 1_000n) }),
  fc.record({ kind: fc.constant('escrow' as const), w: fc.nat(2), amount: fc.bigInt(1n, 1_000n) }),
  fc.record({ kind: fc.constant('release' as const), w: fc.nat(2), amount: fc.bigInt(1n, 1_000n) }),
  fc.record({
    kind: fc.constant('transfer' as const),
    w: fc.nat(2),
    to: fc.nat(2),
    amount: fc.bigInt(1n, 1_000n),
  }),
  fc.record({ kind: fc.constant('tick' as const) }),
);

describe('embedded chain properties', () => {
  it('money is conserved: balances never go negative and always sum to what successful mints created', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const { chain, timer } = createTestChain(new MemoryChainStore());
        const submitted: `0x${string}`[] = [];
        for (const o of ops) {
          if (o.kind === 'tick') {
            timer.tick();
            continue;
          }
          const w = WALLETS[o.w]!;
          const { txHash } =
            o.kind === 'mint'
              ? await chain.mint(w, o.amount)
              : o.kind === 'escrow'
                ? await chain.escrow(w, o.amount)
                : o.kind === 'release'
                  ? await chain.release(w, o.amount)
                  : await chain.transfer(w, WALLETS[o.to]!, o.amount);
          submitted.push(txHash);
        }
        timer.tick();
        let minted = 0n;
        for (const hash of submitted) {
          const receipt = await chain.getReceipt(hash);
          expect(receipt).not.toBeNull();
          if (receipt!.status === 'success' && receipt!.tx.kind === 'mint') minted += receipt!.tx.amount;
        }
        let sum = 0n;
        for (const w of [...WALLETS, ESCROW]) {
          const balance = await chain.balanceOf(w);
          expect(balance >= 0n).toBe(true);
          sum += balance;
        }
        expect(sum).toBe(minted);
        expect(chain.totalSupply()).toBe(minted);
        expect(chain.pendingTransactions()).toHaveLength(0);
      }),
      { numRuns: 150 },
    );
  });
});
