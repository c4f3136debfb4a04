import { F, NIL, type OrderStore } from './order-store.js';
import { U64Cells } from './u64-cells.js';

/**
 * Accounts by integer index: balances, exposure and the list of each account's resting orders in placement
 * order (linked through the orders' records; the newest last).
 * Balances change only through credit/debit commands, matches and payouts.
 */
export class Accounts {
  readonly names: string[] = [];
  /** Balances by account index. */
  readonly available = new U64Cells(1024);
  readonly escrowed = new U64Cells(1024);
  /** The remaining maker stakes of each account's resting orders: what its book liquidity promises. */
  readonly exposure = new U64Cells(1024);
  /** What a reversed fill left an account owing (repaid from what it receives next). Zero but after faults. */
  readonly owed = new U64Cells(16);
  readonly orderHead: number[] = [];
  readonly orderTail: number[] = [];
  /** Command stamp of the last balance change, to report each changed account once per command. */
  readonly touched: number[] = [];
  private readonly byName = new Map<string, number>();

  find(name: string): number {
    return this.byName.get(name) ?? NIL;
  }

  indexOf(name: string): number {
    let i = this.byName.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.byName.set(name, i);
      this.names.push(name);
      this.available.ensure(i + 1);
      this.escrowed.ensure(i + 1);
      this.exposure.ensure(i + 1);
      this.owed.ensure(i + 1);
      this.orderHead.push(NIL);
      this.orderTail.push(NIL);
      this.touched.push(0);
    }
    return i;
  }

  /** Appends resting order `h` of account `a` to the account's list. */
  append(store: OrderStore, a: number, h: number): void {
    const tail = this.orderTail[a]!;
    store.i32[(h << 4) + F.ACCOUNT_PREV] = tail;
    store.i32[(h << 4) + F.ACCOUNT_NEXT] = NIL;
    if (tail === NIL) this.orderHead[a] = h;
    else store.i32[(tail << 4) + F.ACCOUNT_NEXT] = h;
    this.orderTail[a] = h;
  }

  unlink(store: OrderStore, a: number, h: number): void {
    const prev = store.i32[(h << 4) + F.ACCOUNT_PREV]!;
    const next = store.i32[(h << 4) + F.ACCOUNT_NEXT]!;
    if (prev === NIL) this.orderHead[a] = next;
    else store.i32[(prev << 4) + F.ACCOUNT_NEXT] = next;
    if (next === NIL) this.orderTail[a] = prev;
    else store.i32[(next << 4) + F.ACCOUNT_PREV] = prev;
  }
}
