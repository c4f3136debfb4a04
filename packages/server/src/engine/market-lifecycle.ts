/** Markets opened, closed and resolved, with the payouts of a resolution. */
import { receive } from './balances.js';
import { cancelInMarket } from './cancels.js';
import { rejectCommand, touchAccount } from './command-events.js';
import type { MarketOutcome, ParlaySpec } from './commands.js';
import { compareStrings } from './compare-strings.js';
import type { EngineState } from './engine-state.js';
import { RejectCode } from './events.js';
import { MarketBook, MarketStatus, P } from './market-book.js';
import { parlayFee } from './parlay-rule.js';
import { closeParlay, closeParlaysOf, followLeg, linkParlay, parlayLegs } from './parlays.js';
import { closeParents, linkLegs } from './quarter-line-legs.js';

export function addMarket(s: EngineState, marketHash: string, eventId: string): MarketBook {
  const market = new MarketBook(s.markets.length, marketHash, eventId, s.ladder.size, s.capitalEfficiency);
  s.markets.push(market);
  s.marketByHash.set(marketHash, market);
  let list = s.marketsByEvent.get(eventId);
  if (list === undefined) {
    list = [];
    s.marketsByEvent.set(eventId, list);
  }
  list.push(market);
  return market;
}

export function openMarket(
  s: EngineState,
  marketHash: string,
  eventId: string,
  legHashes?: readonly [string, string],
  parlay?: ParlaySpec,
): void {
  if (s.marketByHash.has(marketHash)) {
    rejectCommand(s, 'openMarket', RejectCode.MARKET_EXISTS);
    return;
  }
  if (parlay !== undefined) {
    const legs = legHashes === undefined ? parlayLegs(s, parlay) : undefined;
    if (legs === undefined) {
      rejectCommand(s, 'openMarket', RejectCode.INVALID_PARLAY);
      return;
    }
    linkParlay(s, addMarket(s, marketHash, eventId), parlay, legs);
    s.pending[s.eventCount++] = { type: 'marketOpened', marketHash, eventId, parlay };
    return;
  }
  if (legHashes === undefined) {
    addMarket(s, marketHash, eventId);
    s.pending[s.eventCount++] = { type: 'marketOpened', marketHash, eventId };
    return;
  }
  const legs = legHashes.map((hash) => s.marketByHash.get(hash));
  const valid =
    legHashes.length === 2 &&
    legHashes[0] !== legHashes[1] &&
    legs.every((leg) => leg?.status === MarketStatus.OPEN && leg.legs === null && leg.eventId === eventId);
  if (!valid) {
    rejectCommand(s, 'openMarket', RejectCode.INVALID_LEGS);
    return;
  }
  linkLegs(addMarket(s, marketHash, eventId), legs[0]!, legs[1]!);
  s.pending[s.eventCount++] = { type: 'marketOpened', marketHash, eventId, legs: legHashes };
}

export function closeMarket(s: EngineState, marketHash: string): void {
  const market = s.marketByHash.get(marketHash);
  if (market === undefined) {
    rejectCommand(s, 'closeMarket', RejectCode.MARKET_NOT_FOUND);
    return;
  }
  if (market.status === MarketStatus.RESOLVED) {
    rejectCommand(s, 'closeMarket', RejectCode.MARKET_RESOLVED);
    return;
  }
  if (market.status === MarketStatus.CLOSED) {
    rejectCommand(s, 'closeMarket', RejectCode.MARKET_CLOSED);
    return;
  }
  if (market.parlay !== null) {
    closeParlay(s, market);
    return;
  }
  market.status = MarketStatus.CLOSED;
  s.pending[s.eventCount++] = { type: 'marketClosed', marketHash, eventId: market.eventId };
  cancelInMarket(s, market, undefined, 'EVENT_LIFECYCLE');
  closeParents(s, market);
  closeParlaysOf(s, market);
}

export function resolveMarket(s: EngineState, marketHash: string, outcome: MarketOutcome): void {
  const market = s.marketByHash.get(marketHash);
  if (market === undefined) {
    rejectCommand(s, 'resolveMarket', RejectCode.MARKET_NOT_FOUND);
    return;
  }
  if (market.status === MarketStatus.RESOLVED) {
    rejectCommand(s, 'resolveMarket', RejectCode.MARKET_RESOLVED);
    return;
  }
  if (outcome !== 0 && outcome !== 1 && outcome !== 2) {
    rejectCommand(s, 'resolveMarket', RejectCode.INVALID_OUTCOME);
    return;
  }
  if (market.legs !== null) {
    rejectCommand(s, 'resolveMarket', RejectCode.QUARTER_LINE_MARKET);
    return;
  }
  if (market.parlay !== null) {
    rejectCommand(s, 'resolveMarket', RejectCode.PARLAY_MARKET);
    return;
  }
  settleMarket(s, market, outcome);
  // Its parlays (and those of the quarter-line markets it is a half of) follow it: settled once decided.
  followLeg(s, market, outcome, (parlay, decided) => settleMarket(s, parlay, decided));
}

/**
 * Resolves a market: its orders cancelled, its quarter-line markets closed, every position paid. On a parlay
 * market each holder with a profit pays the fee on it, credited to the fee account (one payout of the fees).
 */
function settleMarket(s: EngineState, market: MarketBook, outcome: MarketOutcome): void {
  const marketHash = market.marketHash;
  market.status = MarketStatus.RESOLVED;
  s.pending[s.eventCount++] = {
    type: 'marketResolved',
    marketHash,
    eventId: market.eventId,
    outcome,
  };
  cancelInMarket(s, market, undefined, 'EVENT_LIFECYCLE');
  closeParents(s, market);
  const accounts = s.accounts;
  const parlay = market.parlay;
  let fees = 0n;
  const slots = market.holders.map((_, slot) => slot);
  slots.sort((x, y) =>
    compareStrings(accounts.names[market.holders[x]!]!, accounts.names[market.holders[y]!]!),
  );
  for (const slot of slots) {
    const a = market.holders[slot]!;
    const stakes = market.positionValue(slot, P.STAKE_ONE) + market.positionValue(slot, P.STAKE_TWO);
    const won =
      outcome === 1
        ? market.positionValue(slot, P.POT_ONE)
        : outcome === 2
          ? market.positionValue(slot, P.POT_TWO)
          : stakes;
    // What capital efficiency refunded is at most each of the three: it was paid early, not again.
    const refunded = market.refunded(slot);
    const stake = stakes - refunded;
    const fee = parlay === null || outcome === 0 ? 0n : parlayFee(won - stakes, parlay.feeBps);
    const payout = won - refunded - fee;
    fees += fee;
    accounts.escrowed.decrease(a, stake);
    touchAccount(s, a);
    s.pending[s.eventCount++] = {
      type: 'payout',
      account: accounts.names[a]!,
      marketHash,
      eventId: market.eventId,
      outcome,
      stake,
      payout,
      ...(parlay === null ? {} : { fee }),
    };
    receive(s, a, payout);
  }
  market.clearPositions();
  if (parlay !== null && fees > 0n) {
    const collector = accounts.indexOf(parlay.feeAccount);
    touchAccount(s, collector);
    s.pending[s.eventCount++] = {
      type: 'payout',
      account: parlay.feeAccount,
      marketHash,
      eventId: market.eventId,
      outcome,
      stake: 0n,
      payout: fees,
      fee: fees,
    };
    receive(s, collector, fees);
  }
}
