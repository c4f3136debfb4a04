import type { Address } from '../chain/chain-types.js';
import type { SettledFill, SettlementItem } from '../chain/settlement-types.js';
import { type EngineEvent, type FillToReverse, fillsOf } from '../engine/index.js';
import type { AppliedEntry, SettledTx } from '../sequencer/inputs.js';

/** An account's proxy wallet (its address is derived: known before it is deployed). */
export type WalletOf = (account: string) => Address;

/**
 * Whether a block's receipts have a fill that failed (the driver journals its reversal right after them). Then
 * their payouts and adjustments that did not land are not submitted again as they were (`isAbsorbed`):
 * `SettlementItemStream` nets them into the reversals' items.
 */
export function startsReversals(txs: readonly SettledTx[]): boolean {
  return txs.some((tx) =>
    tx.notLanded.some((item) => item.kind === 'fill' && item.status === 'failed' && item.fill),
  );
}

/** An item of receipts that start reversals that goes into their net items if it did not land. */
export function isAbsorbed(item: Pick<SettlementItem, 'kind'>): boolean {
  return item.kind === 'adjustment' || item.kind === 'payout';
}

/** The net item of a run of reversals for a wallet (it pays the payouts the run took in). */
export function reversalsItemId(settlementSeq: number, wallet: Address): string {
  return `reversals:${settlementSeq}:${wallet}`;
}

/**
 * The settlement items of the journal's entries, fed in seq order, each once. Every entry's items are its own
 * (`settlementItems`) but around the reversals of one receipt: the `reverseFill` entries the driver journals
 * right after a `settlement` input, one per fill that failed in it. The engine gives each reversal's wallet
 * deltas, and every item after a fill, as if the fills that failed had moved on the chain:
 * - one by one, a reversal may take back into escrow a refund of a fill that failed with it, which never reached
 *   the wallet (a later reversal gives it back);
 * - an item after a failed fill in the same transaction may need what the fill would have paid in: an
 *   adjustment (a reversal's escrow, a debt's repayment) money in the wallet, a payout money in the escrow pool
 *   (a hedge's refunds counted on the failed fill's stakes there); it fails, and what makes up for it, the
 *   fill's reversal, is journaled after it.
 * Such items could never land, each retried ahead of what it needs for ever. The sums are exact, so the run's
 * deltas and the payouts and adjustments of the receipt that did not land go as one net item per wallet
 * (`reversals:<seq of the settlement input>:<wallet>`; one without moves for a wallet whose payout nets to
 * nothing), escrows first: each wallet then only goes to what the engine says it holds after the run, and the
 * escrow pool only up before it goes down to what it must hold. Deposits are submitted again as they were
 * (a mint always lands).
 */
export class SettlementItemStream {
  /** The reversals still to come after a `settlement` input, and the net moves per wallet so far. */
  private run: {
    seq: number;
    remaining: number;
    deltas: Map<Address, bigint>;
    /** Wallets whose payouts the run took in: their net item pays them, so there is one. */
    payees: Set<Address>;
  } | null = null;

  constructor(private readonly walletOf: WalletOf) {}

  /**
   * The seq of the `settlement` input whose reversals are not all seen yet (null: none): its items come once
   * they are, so a cursor of what is derived stays below it.
   */
  openSince(): number | null {
    return this.run?.seq ?? null;
  }

  /** The items that the entry completes, in order (those of a run it ends come first). */
  push(entry: AppliedEntry): SettlementItem[] {
    const { input } = entry;
    const isReversal = input.kind === 'engine' && input.command.type === 'reverseFill';
    const items = this.run && !isReversal ? this.close() : [];
    if (input.kind === 'settlement') {
      if (startsReversals(input.txs)) this.open(entry.seq, input.txs);
      return items;
    }
    if (this.run && isReversal) {
      for (const e of entry.events) {
        if (e.type !== 'fillReversed') continue;
        for (const { account, walletDelta } of e.parties) this.add(this.walletOf(account), walletDelta);
      }
      this.run.remaining -= 1;
      return this.run.remaining === 0 ? this.close() : items;
    }
    items.push(...settlementItems(entry, this.walletOf));
    return items;
  }

  /** A run after a receipt with failed fills: its payouts and adjustments that did not land are in it. */
  private open(seq: number, txs: readonly SettledTx[]): void {
    let remaining = 0;
    this.run = { seq, remaining, deltas: new Map(), payees: new Set() };
    for (const tx of txs) {
      for (const item of tx.notLanded) {
        if (item.kind === 'fill' && item.status === 'failed' && item.fill) remaining++;
        if (!isAbsorbed(item)) continue;
        // The payouts an earlier net item took in wait for this run's item of its wallet.
        if (item.id.startsWith('reversals:')) this.run.payees.add(item.id.split(':')[2] as Address);
        // Amounts are decimal strings in a journal read back.
        for (const move of item.moves) {
          const amount = BigInt(move.amount);
          if (move.kind === 'escrow') this.add(move.from, -amount);
          else if (move.kind === 'release') this.add(move.to, amount);
          if (item.kind === 'payout' && move.kind === 'release') this.run.payees.add(move.to);
        }
      }
    }
    this.run.remaining = remaining;
  }

  private add(wallet: Address, delta: bigint): void {
    const deltas = this.run!.deltas;
    deltas.set(wallet, (deltas.get(wallet) ?? 0n) + delta);
  }

  /**
   * Ends the open run with the reversals seen (at a start: the journal ended before the rest, which will never
   * come); its net items: a wallet's that took in a payout even when it nets to nothing (it pays the payout).
   */
  close(): SettlementItem[] {
    const run = this.run;
    this.run = null;
    if (!run) return [];
    const item = ([wallet, delta]: [Address, bigint]): SettlementItem => ({
      id: reversalsItemId(run.seq, wallet),
      kind: 'adjustment',
      moves: delta === 0n ? [] : [adjustmentMove(wallet, delta)],
    });
    const deltas = [...run.deltas].filter(([wallet, d]) => d !== 0n || run.payees.has(wallet));
    return [...deltas.filter(([, d]) => d < 0n).map(item), ...deltas.filter(([, d]) => d >= 0n).map(item)];
  }
}

/** A wallet delta as a move: into the wallet from escrow (positive) or out of it into escrow. */
function adjustmentMove(wallet: Address, delta: bigint): SettlementItem['moves'][number] {
  return delta > 0n
    ? { kind: 'release', to: wallet, amount: delta }
    : { kind: 'escrow', from: wallet, amount: -delta };
}

/**
 * What the chain must do for one journal entry, in the engine's order, as settlement items:
 * - each fill: both stakes escrowed, then each party's capital-efficiency refunds of that match released
 *   (the engine paid the next lots of a walk from them: in this order a wallet never needs more than the
 *   engine allowed);
 * - each payout (a resolution) released, each credit (the faucet) minted;
 * - each part of what an account owed that money it received paid back (`debtChanged`) escrowed;
 * - a reversed fill's parties' `walletDelta`s (their debts included).
 * Ids are unique for ever: the chain applies each once.
 */
export function settlementItems(entry: AppliedEntry, walletOf: WalletOf): SettlementItem[] {
  const { input, events, seq } = entry;
  if (input.kind !== 'engine' || events.length === 0) return [];
  const items: SettlementItem[] = [];
  const command = input.command;
  if (command.type === 'place') {
    for (const fill of fillsOf(events)) items.push(fillItem(fill, seq, walletOf));
    return items;
  }
  if (command.type === 'reverseFill') {
    for (const e of events) {
      if (e.type !== 'fillReversed') continue;
      for (const { account, walletDelta } of e.parties) {
        if (walletDelta === 0n) continue;
        items.push({
          id: `adjust:${seq}:${account}`,
          kind: 'adjustment',
          moves: [adjustmentMove(walletOf(account), walletDelta)],
        });
      }
    }
    return items;
  }
  for (const e of events) {
    if (e.type === 'payout' && e.payout > 0n) {
      items.push({
        id: `payout:${e.marketHash}:${e.account}`,
        kind: 'payout',
        moves: [{ kind: 'release', to: walletOf(e.account), amount: e.payout }],
      });
    } else if (e.type === 'balanceChanged' && command.type === 'credit' && command.account === e.account) {
      items.push({
        id: `deposit:${seq}`,
        kind: 'deposit',
        moves: [{ kind: 'mint', to: walletOf(e.account), amount: command.amount }],
      });
    } else if (e.type === 'debtChanged' && e.repaid > 0n) {
      items.push(repayItem(e, seq, walletOf));
    }
  }
  // A credit's mint comes before what it pays back (its balanceChanged follows its debtChanged).
  return command.type === 'credit' ? sortDepositFirst(items) : items;
}

function repayItem(
  e: Extract<EngineEvent, { type: 'debtChanged' }>,
  seq: number,
  walletOf: WalletOf,
): SettlementItem {
  return {
    id: `repay:${seq}:${e.account}`,
    kind: 'adjustment',
    moves: [{ kind: 'escrow', from: walletOf(e.account), amount: e.repaid }],
  };
}

function sortDepositFirst(items: SettlementItem[]): SettlementItem[] {
  return [...items.filter((i) => i.kind === 'deposit'), ...items.filter((i) => i.kind !== 'deposit')];
}

function fillItem(fill: FillToReverse, seq: number, walletOf: WalletOf): SettlementItem {
  const refundOf = new Map<string, bigint>();
  for (const r of fill.refunds) refundOf.set(r.account, (refundOf.get(r.account) ?? 0n) + r.amount);
  const moves: SettlementItem['moves'][number][] = [
    { kind: 'escrow', from: walletOf(fill.makerAccount), amount: fill.makerStake },
    { kind: 'escrow', from: walletOf(fill.takerAccount), amount: fill.takerStake },
  ];
  for (const [account, amount] of refundOf) moves.push({ kind: 'release', to: walletOf(account), amount });
  return { id: `fill:${fill.matchId}`, kind: 'fill', moves, fill: settledFill(fill, seq) };
}

/** A fill as calldata (amounts as decimal strings). */
export function settledFill(fill: FillToReverse, seq: number): SettledFill {
  return {
    matchId: fill.matchId,
    seq,
    marketHash: fill.marketHash,
    makerAccount: fill.makerAccount,
    takerAccount: fill.takerAccount,
    makerIsBettingOutcomeOne: fill.makerIsBettingOutcomeOne,
    makerStake: fill.makerStake.toString(),
    takerStake: fill.takerStake.toString(),
    ...(fill.legs
      ? {
          legs: fill.legs.map((leg) => ({
            marketHash: leg.marketHash,
            makerStake: leg.makerStake.toString(),
            takerStake: leg.takerStake.toString(),
          })),
        }
      : {}),
    refunds: fill.refunds.map((r) => ({
      account: r.account,
      marketHash: r.marketHash,
      amount: r.amount.toString(),
    })),
  };
}

/** The fill a failed `fill` item stands for, as `reverseFill` takes it. */
export function fillToReverse(fill: SettledFill): FillToReverse {
  return {
    matchId: fill.matchId,
    marketHash: fill.marketHash,
    makerAccount: fill.makerAccount,
    takerAccount: fill.takerAccount,
    makerIsBettingOutcomeOne: fill.makerIsBettingOutcomeOne,
    makerStake: BigInt(fill.makerStake),
    takerStake: BigInt(fill.takerStake),
    ...(fill.legs
      ? {
          legs: fill.legs.map((leg) => ({
            marketHash: leg.marketHash,
            makerStake: BigInt(leg.makerStake),
            takerStake: BigInt(leg.takerStake),
          })),
        }
      : {}),
    refunds: fill.refunds.map((r) => ({
      account: r.account,
      marketHash: r.marketHash,
      amount: BigInt(r.amount),
    })),
  };
}
