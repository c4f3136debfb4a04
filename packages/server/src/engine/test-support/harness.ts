import type { EngineCommand, PlaceOrderCommand, TimeInForce } from '../commands.js';
import { Engine, type EngineOptions } from '../engine.js';
import type { EngineEvent } from '../events.js';

type Unstamped<T> = T extends unknown ? Omit<T, 'seq' | 'ts'> & { ts?: number } : never;
export type CommandInput = Unstamped<EngineCommand>;

export interface PlaceInput {
  readonly id: string;
  readonly account: string;
  readonly market?: string;
  /** Default true. */
  readonly one?: boolean;
  readonly tick: number;
  readonly size: bigint;
  readonly tif?: TimeInForce;
  /** Unix seconds; default far in the future. */
  readonly expiry?: number;
}

/** Drives an engine with auto-stamped commands; time starts at ts = 1,000,000 ms (second 1000). */
export class Harness {
  readonly engine: Engine;
  seq = 0;
  ts = 1_000_000;

  /** A new engine of `ladderSize` ticks, or the given one (an engine a start restored, say). */
  constructor(ladderSize: number | Engine = 800, options: Omit<EngineOptions, 'ladderSize'> = {}) {
    this.engine = typeof ladderSize === 'number' ? new Engine({ ...options, ladderSize }) : ladderSize;
  }

  apply(c: CommandInput): readonly EngineEvent[] {
    if (c.ts !== undefined) this.ts = c.ts;
    return this.engine.apply({ ...c, seq: ++this.seq, ts: this.ts } as EngineCommand);
  }

  placeCommand(p: PlaceInput): Omit<PlaceOrderCommand, 'seq' | 'ts'> {
    return {
      type: 'place',
      orderId: p.id,
      account: p.account,
      marketHash: p.market ?? 'M',
      isBettingOutcomeOne: p.one ?? true,
      percentageOdds: this.engine.ladder.odds[p.tick]!,
      totalBetSize: p.size,
      expiry: p.expiry ?? 2_000_000_000,
      timeInForce: p.tif ?? 'GTC',
    };
  }

  place(p: PlaceInput): readonly EngineEvent[] {
    return this.apply(this.placeCommand(p));
  }

  /** Opens markets M and M2 (event E) and M3 (event F) and credits the accounts. */
  static standard(
    accounts: Record<string, bigint> = { A: 10n ** 12n, B: 10n ** 12n, C: 10n ** 12n },
    options: Omit<EngineOptions, 'ladderSize'> = {},
  ): Harness {
    const h = new Harness(800, options);
    h.apply({ type: 'openMarket', marketHash: 'M', eventId: 'E' });
    h.apply({ type: 'openMarket', marketHash: 'M2', eventId: 'E' });
    h.apply({ type: 'openMarket', marketHash: 'M3', eventId: 'F' });
    for (const [account, amount] of Object.entries(accounts)) {
      if (amount > 0n) h.apply({ type: 'credit', account, amount });
    }
    return h;
  }
}

/** One readable line per event, for table-driven expectations. */
export function summarize(events: readonly EngineEvent[]): string[] {
  return events.map((e): string => {
    switch (e.type) {
      case 'orderAccepted':
        return `accepted ${e.orderId}`;
      case 'orderRejected':
        return `rejected ${e.orderId} ${e.code}`;
      case 'orderRested':
        return `rested ${e.orderId} ${e.remainingSize}/${e.totalBetSize}`;
      case 'orderMatched':
        return `match ${e.makerOrderId}<${e.takerOrderId} @${e.tick} ${e.makerStake}+${e.takerStake}`;
      case 'ceRefund':
        return `refund ${e.account} ${e.amount} total=${e.refundedTotal} ${e.maker ? 'maker' : 'taker'} ${e.matchId}`;
      case 'orderDone':
        return `done ${e.orderId} ${e.reason} filled=${e.filledSize} left=${e.remainingSize}`;
      case 'cancelRejected':
        return `cancelRejected ${e.orderId} ${e.code}`;
      case 'commandRejected':
        return `commandRejected ${e.command} ${e.code}`;
      case 'levelChanged':
        return `level ${e.marketHash} ${e.isBettingOutcomeOne ? 'one' : 'two'}@${e.tick}=${e.size}/${e.orders} v${e.version}`;
      case 'balanceChanged':
        return `balance ${e.account} ${e.available}/${e.escrowed}`;
      case 'payout':
        return `payout ${e.account} stake=${e.stake} payout=${e.payout}`;
      case 'marketOpened':
        return `opened ${e.marketHash}`;
      case 'marketClosed':
        return `closed ${e.marketHash}`;
      case 'marketResolved':
        return `resolved ${e.marketHash} ${e.outcome}`;
      default:
        return `unknown ${(e as { type: string }).type}`;
    }
  });
}

/** Only the lines of the given kinds (first word). */
export function only(events: readonly EngineEvent[], ...kinds: string[]): string[] {
  return summarize(events).filter((line) => kinds.includes(line.split(' ')[0]!));
}
