/** Fill reversal: a fill whose settlement failed on the chain taken back out of positions and balances. */
import { pullExcess } from './balances.js';
import { rejectCommand, touchAccount } from './command-events.js';
import type { FillToReverse } from './commands.js';
import type { EngineState } from './engine-state.js';
import { type EngineEvent, RejectCode } from './events.js';
import { MarketStatus, P } from './market-book.js';
import { NIL } from './order-store.js';

/**
 * Takes back a fill whose settlement failed on the chain (see `ReverseFillCommand`): for each party its
 * positions without the fill, the fill's own money move undone, and the refunds settled to what the
 * position is still certain of. What a party cannot pay back of refunds it already spent it owes.
 */
export function reverseFill(s: EngineState, fill: FillToReverse): void {
  const market = s.marketByHash.get(fill.marketHash);
  if (market === undefined) {
    rejectCommand(s, 'reverseFill', RejectCode.MARKET_NOT_FOUND);
    return;
  }
  const parts =
    market.legs === null
      ? [{ market, makerStake: fill.makerStake, takerStake: fill.takerStake }]
      : market.legs.map((leg, i) => {
          const part = fill.legs?.[i];
          return part?.marketHash === leg.marketHash
            ? { market: leg, makerStake: part.makerStake, takerStake: part.takerStake }
            : null;
        });
  if (parts.some((p) => p === null || p.market.status === MarketStatus.RESOLVED)) {
    rejectCommand(
      s,
      'reverseFill',
      parts.some((p) => p === null) ? RejectCode.FILL_NOT_HELD : RejectCode.MARKET_RESOLVED,
    );
    return;
  }
  const accounts = s.accounts;
  const makerStakeField = fill.makerIsBettingOutcomeOne ? P.STAKE_ONE : P.STAKE_TWO;
  const sides = [
    { name: fill.makerAccount, stake: fill.makerStake, field: makerStakeField, maker: true },
    { name: fill.takerAccount, stake: fill.takerStake, field: 1 - makerStakeField, maker: false },
  ];
  // Checked before anything changes: each party holds its part of the fill.
  for (const side of sides) {
    const a = accounts.find(side.name);
    for (const p of parts) {
      const slot = a === NIL ? NIL : p!.market.findPositionSlot(a);
      const stake = side.maker ? p!.makerStake : p!.takerStake;
      if (slot === NIL || p!.market.positionValue(slot, side.field) < stake) {
        rejectCommand(s, 'reverseFill', RejectCode.FILL_NOT_HELD);
        return;
      }
    }
  }
  const refundOf = (account: string, marketHash: string) => {
    let sum = 0n;
    for (const r of fill.refunds) if (r.account === account && r.marketHash === marketHash) sum += r.amount;
    return sum;
  };
  const parties: { account: string; walletDelta: bigint }[] = [];
  const adjusted: EngineEvent[] = [];
  for (const side of sides) {
    const a = accounts.find(side.name);
    let ownRefund = 0n;
    let refundChange = 0n;
    for (const p of parts) {
      const m = p!.market;
      const slot = m.findPositionSlot(a);
      const stake = side.maker ? p!.makerStake : p!.takerStake;
      const change = m.unfill(slot, side.field, stake, p!.makerStake + p!.takerStake);
      if (change === null) throw new Error(`engine invariant broken: reversing ${fill.matchId}`);
      ownRefund += refundOf(side.name, m.marketHash);
      refundChange += change;
      adjusted.push({
        type: 'positionAdjusted',
        account: side.name,
        marketHash: m.marketHash,
        stakeOne: m.positionValue(slot, P.STAKE_ONE),
        stakeTwo: m.positionValue(slot, P.STAKE_TWO),
        potOne: m.positionValue(slot, P.POT_ONE),
        potTwo: m.positionValue(slot, P.POT_TWO),
        refunded: m.refunded(slot),
      });
    }
    // Its stake leaves escrow, and escrow holds the positions' stakes less what is now refunded of them.
    const before = accounts.available.get(a);
    const net = side.stake + refundChange;
    accounts.escrowed.set(a, accounts.escrowed.get(a) - net);
    let after = before + net;
    const owed = accounts.owed.get(a);
    if (after < 0n) {
      accounts.owed.set(a, owed - after);
      adjusted.push({ type: 'debtChanged', account: side.name, owed: owed - after, repaid: 0n });
      after = 0n;
    } else if (owed > 0n && after > 0n) {
      // It owed (so held nothing available): what comes back pays that first.
      const repaid = after < owed ? after : owed;
      accounts.owed.set(a, owed - repaid);
      adjusted.push({ type: 'debtChanged', account: side.name, owed: owed - repaid, repaid });
      after -= repaid;
    }
    accounts.available.set(a, after);
    touchAccount(s, a);
    // On the chain the fill never moved anything: the wallet holds `before` plus the fill's own move, its
    // stake less the refunds it made (which later reversals may have taken back here already).
    parties.push({ account: side.name, walletDelta: after - (before + side.stake - ownRefund) });
  }
  s.pending[s.eventCount++] = {
    type: 'fillReversed',
    matchId: fill.matchId,
    marketHash: fill.marketHash,
    eventId: market.eventId,
    parties,
  };
  for (const e of adjusted) s.pending[s.eventCount++] = e;
  if (s.honestLiquidity) for (const side of sides) pullExcess(s, accounts.find(side.name));
}
