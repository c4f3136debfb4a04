import type { Address } from '../chain/chain-types.js';
import type { SettledFill, SettlementItem } from '../chain/settlement-types.js';
import { type EngineEvent, type FillToReverse, fillsOf } from '../engine/index.js';
import type { AppliedEntry } from '../sequencer/inputs.js';

/** An account's proxy wallet (its address is derived: known before it is deployed). */
export type WalletOf = (account: string) => Address;

/**
 * The settlement items of the journal's entries, fed in seq order, each once. Every entry's items are its own
 * (`settlementItems`) but for the reversals of one receipt: the `reverseFill` entries the driver journals right
 * after a `settlement` input, one per fill that failed in it. The engine gives each reversal's wallet deltas as
 * if the fills reversed after it had moved on the chain, but they failed too: one by one, a reversal may take
 * back into escrow a refund that never reached the wallet (a later one gives it back). Such an item can never
 * land, and everything behind it waits for ever. Their sum is exact, so the run's deltas go as one net item per
 * account (`reversals:<seq of the settlement input>:<account>`), escrows first: each wallet then only goes to
 * what the engine says it holds after the run, and the escrow pool only up before it goes down to what it must
 * hold.
 */
export class SettlementItemStream {
  /** The reversals still to come after a `settlement` input, and the deltas of those seen so far. */
  private run: { seq: number; remaining: number; deltas: Map<string, bigint> } | null = null;

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
      let remaining = 0;
      for (const tx of input.txs)
        for (const item of tx.notLanded)
          if (item.kind === 'fill' && item.status === 'failed' && item.fill) remaining++;
      if (remaining > 0) this.run = { seq: entry.seq, remaining, deltas: new Map() };
      return items;
    }
    if (this.run && isReversal) {
      for (const e of entry.events) {
        if (e.type !== 'fillReversed') continue;
        for (const { account, walletDelta } of e.parties)
          this.run.deltas.set(account, (this.run.deltas.get(account) ?? 0n) + walletDelta);
      }
      this.run.remaining -= 1;
      return this.run.remaining === 0 ? this.close() : items;
    }
    items.push(...settlementItems(entry, this.walletOf));
    return items;
  }

  /**
   * Ends the open run with the reversals seen (at a start: the journal ended before the rest, which will never
   * come); its net items.
   */
  close(): SettlementItem[] {
    const run = this.run;
    this.run = null;
    if (!run) return [];
    const item = (account: string, delta: bigint): SettlementItem => ({
      id: `reversals:${run.seq}:${account}`,
      kind: 'adjustment',
      moves: [adjustmentMove(this.walletOf(account), delta)],
    });
    const deltas = [...run.deltas].filter(([, delta]) => delta !== 0n);
    return [
      ...deltas.filter(([, delta]) => delta < 0n).map(([account, delta]) => item(account, delta)),
      ...deltas.filter(([, delta]) => delta > 0n).map(([account, delta]) => item(account, delta)),
    ];
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
