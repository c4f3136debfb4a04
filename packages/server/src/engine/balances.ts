/**
 * Risk and balances: money in (credits, payouts) and out (debits), what a reversed fill left an account
 * owing and its repayment from what it receives next, and honest liquidity (an account's exposure within its
 * available balance: its newest resting orders pulled when it is not).
 */
import { rejectCommand, touchAccount } from './command-events.js';
import type { EngineState } from './engine-state.js';
import { RejectCode } from './events.js';
import { NIL } from './order-store.js';
import { removeResting } from './resting-orders.js';

export function credit(s: EngineState, account: string, amount: bigint): void {
  if (amount <= 0n) {
    rejectCommand(s, 'credit', RejectCode.INVALID_AMOUNT);
    return;
  }
  const a = s.accounts.indexOf(account);
  s.netDeposits += amount;
  touchAccount(s, a);
  receive(s, a, amount);
}

export function debit(s: EngineState, account: string, amount: bigint): void {
  if (amount <= 0n) {
    rejectCommand(s, 'debit', RejectCode.INVALID_AMOUNT);
    return;
  }
  const a = s.accounts.find(account);
  if (a === NIL || s.accounts.available.get(a) < amount) {
    rejectCommand(s, 'debit', RejectCode.INSUFFICIENT_BALANCE);
    return;
  }
  s.accounts.available.decrease(a, amount);
  s.netDeposits -= amount;
  touchAccount(s, a);
  if (s.honestLiquidity) pullExcess(s, a);
}

/** Money an account receives: what it owes is paid back into escrow first (`debtChanged`), the rest is available. */
export function receive(s: EngineState, a: number, amount: bigint): void {
  const accounts = s.accounts;
  const owed = accounts.owed.get(a);
  if (owed === 0n || amount === 0n) {
    accounts.available.increase(a, amount);
    return;
  }
  const repaid = amount < owed ? amount : owed;
  accounts.owed.decrease(a, repaid);
  accounts.available.increase(a, amount - repaid);
  s.pending[s.eventCount++] = {
    type: 'debtChanged',
    account: accounts.names[a]!,
    owed: owed - repaid,
    repaid,
  };
}

/** What an account holds beyond what its resting orders promise (negative only in a journal begun before the rule). */
export function freeBalance(s: EngineState, a: number): bigint {
  return s.accounts.available.get(a) - s.accounts.exposure.get(a);
}

/** Pulls the account's newest resting orders (`INSUFFICIENT_BALANCE`) until its exposure fits its available balance. */
export function pullExcess(s: EngineState, a: number): void {
  const accounts = s.accounts;
  while (accounts.exposure.get(a) > accounts.available.get(a)) {
    const newest = accounts.orderTail[a]!;
    if (newest === NIL) return;
    removeResting(s, newest, 'INSUFFICIENT_BALANCE');
  }
}
