import type { Address } from '../chain/chain-types.js';
import type { SettlementItem } from '../chain/settlement-types.js';
import type { WalletOf } from './settlement-items.js';

/** An account's money as the engine counts it. */
export type EngineMoney = { readonly available: bigint; readonly escrowed: bigint; readonly owed: bigint };

export type ReconcileInput = {
  /** Every account the engine knows with money, at one journal seq. */
  engine: ReadonlyMap<string, EngineMoney>;
  walletOf: WalletOf;
  /** The escrow pool's address. */
  pool: Address;
  /** The chain's mined balances (wallets and the pool). */
  chain: ReadonlyMap<Address, bigint>;
  /**
   * The items of that journal seq and before that are not on the chain yet: submitted and not mined, to be
   * submitted again, or not submitted yet (an item listed twice counts once). Everything else the engine
   * did there must be on the chain.
   */
  pending: readonly SettlementItem[];
};

/** One place where the chain does not hold what the engine says it must, in base units. */
export type ReconcileDifference =
  | {
      readonly kind: 'wallet';
      readonly account: string;
      readonly wallet: Address;
      /** The engine's available balance. */
      readonly engine: bigint;
      /** The wallet's mined balance, and what the pending items will move into it (negative: out). */
      readonly chain: bigint;
      readonly pending: bigint;
      /** chain + pending - engine: positive when the wallet holds more than the engine allows. */
      readonly difference: bigint;
      /** The pending items that touch the wallet (their ids name the journal seqs behind them). */
      readonly items: readonly string[];
    }
  | {
      readonly kind: 'pool';
      /** What escrow must hold: the accounts' escrowed amounts less what they owe. */
      readonly engine: bigint;
      readonly chain: bigint;
      readonly pending: bigint;
      readonly difference: bigint;
    }
  | {
      /** Money in a wallet that is no account's proxy (the engine knows nothing of it). */
      readonly kind: 'unknownWallet';
      readonly wallet: Address;
      readonly chain: bigint;
      readonly difference: bigint;
    };

export type ReconcileReport = {
  /** Accounts compared. */
  readonly accounts: number;
  readonly differences: readonly ReconcileDifference[];
  /** The engine's money in all (available + escrowed - owed) and the chain's (wallets + pool + pending mints). */
  readonly totals: { readonly engine: bigint; readonly chain: bigint };
};

/**
 * Compares, to the base unit, what the engine says every account holds with what the chain holds for it
 * (issue 33): each account's available balance with its proxy wallet (plus what the pending items will
 * move), the accounts' escrow with the escrow pool, and the totals.
 */
export function reconcile(input: ReconcileInput): ReconcileReport {
  const { engine, walletOf, pool, chain, pending } = input;
  const moves = new Map<Address, bigint>();
  const touching = new Map<Address, string[]>();
  let minted = 0n;
  const move = (address: Address, amount: bigint, item: string) => {
    moves.set(address, (moves.get(address) ?? 0n) + amount);
    const ids = touching.get(address) ?? [];
    if (ids.at(-1) !== item) ids.push(item);
    touching.set(address, ids);
  };
  const counted = new Set<string>();
  for (const item of pending) {
    // An item resubmitted is both under way and outstanding: counted once (ids are unique for ever).
    if (counted.has(item.id)) continue;
    counted.add(item.id);
    for (const m of item.moves) {
      if (m.kind === 'escrow') {
        move(m.from, -m.amount, item.id);
        move(pool, m.amount, item.id);
      } else if (m.kind === 'release') {
        move(m.to, m.amount, item.id);
        move(pool, -m.amount, item.id);
      } else {
        move(m.to, m.amount, item.id);
        minted += m.amount;
      }
    }
  }

  const differences: ReconcileDifference[] = [];
  const known = new Set<Address>([pool]);
  let engineTotal = 0n;
  let mustEscrow = 0n;
  for (const account of [...engine.keys()].sort()) {
    const money = engine.get(account)!;
    engineTotal += money.available + money.escrowed - money.owed;
    mustEscrow += money.escrowed - money.owed;
    const wallet = walletOf(account);
    known.add(wallet);
    const held = chain.get(wallet) ?? 0n;
    const incoming = moves.get(wallet) ?? 0n;
    const difference = held + incoming - money.available;
    if (difference !== 0n) {
      differences.push({
        kind: 'wallet',
        account,
        wallet,
        engine: money.available,
        chain: held,
        pending: incoming,
        difference,
        items: touching.get(wallet) ?? [],
      });
    }
  }
  const poolHeld = chain.get(pool) ?? 0n;
  const poolIncoming = moves.get(pool) ?? 0n;
  if (poolHeld + poolIncoming !== mustEscrow) {
    differences.push({
      kind: 'pool',
      engine: mustEscrow,
      chain: poolHeld,
      pending: poolIncoming,
      difference: poolHeld + poolIncoming - mustEscrow,
    });
  }
  let chainTotal = minted;
  for (const [address, balance] of [...chain].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    chainTotal += balance;
    if (!known.has(address) && balance !== 0n)
      differences.push({ kind: 'unknownWallet', wallet: address, chain: balance, difference: balance });
  }
  return { accounts: engine.size, differences, totals: { engine: engineTotal, chain: chainTotal } };
}

/** The sum of the differences' sizes: 0 when the chain holds exactly what the engine says (a metric). */
export function differenceUnits(report: ReconcileReport): bigint {
  let sum = 0n;
  for (const d of report.differences) sum += d.difference < 0n ? -d.difference : d.difference;
  return sum;
}

/** A report as JSON has it (the operator route, the logs, the CLI). */
export function reconcileReportToWire(report: ReconcileReport) {
  const wire = (value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
  return {
    accounts: report.accounts,
    differences: report.differences.map(
      (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, wire(v)])) as Record<string, unknown>,
    ),
    totals: { engine: report.totals.engine.toString(), chain: report.totals.chain.toString() },
    differenceUnits: differenceUnits(report).toString(),
  };
}
