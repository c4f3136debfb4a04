import type { EngineEvent, ParlaySpec } from '../engine/index.js';

/**
 * An account's position in a market, as the engine holds it: stake and pot per outcome bet, and what
 * capital efficiency has refunded of it so far.
 */
export type PositionRow = {
  stakeOne: bigint;
  stakeTwo: bigint;
  potOne: bigint;
  potTwo: bigint;
  refunded: bigint;
};

/** A change to a market's mirror row: `openSeq` set for a market opened by the batch (an insert). */
export type MarketChange = {
  eventId: string;
  openSeq?: number;
  status?: string;
  version?: number;
  /** A quarter-line market opened by the batch: its leg markets (whole line, half line). */
  legs?: readonly [string, string];
  /** A parlay market opened by the batch: its rules. */
  parlay?: ParlaySpec;
};

/**
 * The engine state the projections mirror (balances, positions, markets), followed from a batch's events
 * alone: balances are the last `balanceChanged` of each account, positions add up the matches' stakes and
 * pots and take the refunded total of their refunds (a resolution's payouts end them), markets take their status and book version from the events.
 * `oddsbook replay` checks the result against the engine rebuilt from the journal.
 */
export class StateMirror {
  readonly balances = new Map<string, { available: bigint; escrowed: bigint }>();
  /** What accounts owe, where it changed (issue 33: a reversed fill's refunds already spent). */
  readonly owed = new Map<string, bigint>();
  /** By `marketHash|account`; null: the position ended (deleted). */
  readonly positions = new Map<string, { marketHash: string; account: string; row: PositionRow | null }>();
  readonly markets = new Map<string, MarketChange>();

  constructor(
    private readonly committedPosition: (marketHash: string, account: string) => PositionRow | null,
  ) {}

  apply(seq: number, event: EngineEvent): void {
    switch (event.type) {
      case 'balanceChanged':
        this.balances.set(event.account, { available: event.available, escrowed: event.escrowed });
        break;
      case 'orderMatched': {
        const makerOne = event.makerIsBettingOutcomeOne;
        // A quarter-line fill's positions are on its legs, never on the quarter-line market itself.
        for (const part of event.legs ?? [event]) {
          const pot = part.makerStake + part.takerStake;
          this.addToPosition(part.marketHash, event.makerAccount, makerOne, part.makerStake, pot);
          this.addToPosition(part.marketHash, event.takerAccount, !makerOne, part.takerStake, pot);
        }
        break;
      }
      case 'ceRefund':
        this.position(event.marketHash, event.account).refunded = event.refundedTotal;
        break;
      case 'positionAdjusted': {
        const { stakeOne, stakeTwo, potOne, potTwo, refunded } = event;
        this.positions.set(key(event.marketHash, event.account), {
          marketHash: event.marketHash,
          account: event.account,
          row: { stakeOne, stakeTwo, potOne, potTwo, refunded },
        });
        break;
      }
      case 'debtChanged':
        this.owed.set(event.account, event.owed);
        break;
      case 'payout':
        this.positions.set(key(event.marketHash, event.account), {
          marketHash: event.marketHash,
          account: event.account,
          row: null,
        });
        break;
      case 'marketOpened':
        this.markets.set(event.marketHash, {
          eventId: event.eventId,
          openSeq: seq,
          status: 'open',
          version: 0,
          ...(event.legs ? { legs: event.legs } : {}),
          ...(event.parlay ? { parlay: event.parlay } : {}),
        });
        break;
      case 'marketClosed':
        this.market(event.marketHash, event.eventId).status = 'closed';
        break;
      case 'marketResolved':
        this.market(event.marketHash, event.eventId).status = 'resolved';
        break;
      case 'levelChanged':
        this.market(event.marketHash, '').version = event.version;
        break;
      default:
        break;
    }
  }

  private market(marketHash: string, eventId: string): MarketChange {
    let change = this.markets.get(marketHash);
    if (!change) {
      change = { eventId };
      this.markets.set(marketHash, change);
    }
    return change;
  }

  private addToPosition(
    marketHash: string,
    account: string,
    isOne: boolean,
    stake: bigint,
    pot: bigint,
  ): void {
    const row = this.position(marketHash, account);
    if (isOne) {
      row.stakeOne += stake;
      row.potOne += pot;
    } else {
      row.stakeTwo += stake;
      row.potTwo += pot;
    }
  }

  /** The batch's working row of a position (read once from the committed rows; created when there is none). */
  private position(marketHash: string, account: string): PositionRow {
    const k = key(marketHash, account);
    let entry = this.positions.get(k);
    if (!entry) {
      const committed = this.committedPosition(marketHash, account);
      entry = { marketHash, account, row: committed ? { ...committed } : null };
      this.positions.set(k, entry);
    }
    entry.row ??= { stakeOne: 0n, stakeTwo: 0n, potOne: 0n, potTwo: 0n, refunded: 0n };
    return entry.row;
  }
}

const key = (marketHash: string, account: string) => `${marketHash}|${account}`;
