import type { FillRow, Market } from '@oddsbook/protocol';
import type { ExchangeClient } from './client.js';
import type { PlacedOrder } from './place-orders.js';
import type { LiveOrders } from './watch/live-orders.js';

/** How a market is quoted: ticks on the exchange's ladder (`ladderSize(oddsLadderStepSize)` of them). */
export type QuoteParameters = {
  /** The ladder's size: 100 % is this many ticks. */
  ticks: number;
  /** Outcome one's fair probability, in ticks. */
  fair: number;
  /** The gap between the best bids of the two outcomes, in ticks. */
  spread: number;
  /** Orders a side, two ticks apart. */
  levels: number;
  /** Each order's stake, in base units. */
  size: bigint;
};

/** Ticks of outcome one's and outcome two's orders, best first. */
export type QuoteLadder = { one: number[]; two: number[] };

/**
 * The ladder around the fair price, leaning away from `inventory` (net stake on outcome one minus outcome
 * two): holding outcome one lowers both of its bids, so the next fill is likelier on outcome two. Ticks
 * off the ladder (at or below 0, at or above `ticks`) are left out.
 */
export function quoteLadder(p: QuoteParameters, inventory = 0n): QuoteLadder {
  const skew = Math.max(-p.spread, Math.min(p.spread, Number(inventory / p.size)));
  const center = p.fair - skew;
  const onLadder = (tick: number) => tick > 0 && tick < p.ticks;
  const side = (best: number) => Array.from({ length: p.levels }, (_, i) => best - i * 2).filter(onLadder);
  return {
    one: side(Math.floor(center - p.spread / 2)),
    two: side(Math.floor(p.ticks - center - p.spread / 2)),
  };
}

export type MarketQuoterOptions = QuoteParameters & {
  /** After each quote: the ladder posted and the exchange's answers. */
  onQuote?: (ladder: QuoteLadder, results: PlacedOrder[]) => void;
  onError?: (error: unknown) => void;
};

/**
 * Two-sided quotes on one market, kept there: `quote` posts a fresh ladder, then cancels the one it
 * replaces (the book is never left empty between the two: for a moment both rest, so keep funds for
 * twice the ladder); `fill` counts a fill into the inventory and re-quotes; `stop` cancels the market's
 * orders and quotes no more. Re-quotes run one at a time: fills that come during one are covered by the next.
 */
export class MarketQuoter {
  /** Net stake on outcome one minus outcome two from this quoter's fills. */
  inventory = 0n;
  /** The ids of the ladder posted last (the watched orders may not show them yet). */
  private current: string[] = [];
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly client: Pick<ExchangeClient, 'placeOrders' | 'cancelOrders'>,
    private readonly orders: Pick<LiveOrders, 'orders'>,
    readonly market: Pick<Market, 'marketHash'>,
    private readonly options: MarketQuoterOptions,
  ) {}

  /** The ids of the account's orders on this market, as watched, and as posted last. */
  private restingIds(): Set<string> {
    const watched = this.orders.orders.filter((o) => o.marketHash === this.market.marketHash);
    return new Set([...this.current, ...watched.map((o) => o.id)]);
  }

  /** Posts a fresh ladder and cancels the previous one. */
  async quote(): Promise<PlacedOrder[]> {
    const previous = this.restingIds();
    const ladder = quoteLadder(this.options, this.inventory);
    const { marketHash } = this.market;
    const { size } = this.options;
    const results = await this.client.placeOrders([
      ...ladder.one.map((tick) => ({ marketHash, tick, totalBetSize: size, isMakerBettingOutcomeOne: true })),
      ...ladder.two.map((tick) => ({
        marketHash,
        tick,
        totalBetSize: size,
        isMakerBettingOutcomeOne: false,
      })),
    ]);
    this.current = results.flatMap((r) => (r.status === 'SUBMITTED' && r.orderId ? [r.orderId] : []));
    const replaced = [...previous].filter((id) => !this.current.includes(id));
    if (replaced.length > 0) await this.client.cancelOrders(replaced);
    this.options.onQuote?.(ladder, results);
    return results;
  }

  /** Quotes again, after the re-quote running now if there is one. */
  requote(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.quote()
      .then(() => undefined)
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.requote();
        }
      });
  }

  /** A fill of the account: counted when it is this market's and matched, then the market is re-quoted. */
  fill(fill: FillRow): boolean {
    if (fill.status !== 'MATCHED' || fill.marketHash !== this.market.marketHash) return false;
    const stake = BigInt(fill.fillAmount);
    this.inventory += fill.isBettingOutcomeOne ? stake : -stake;
    this.requote();
    return true;
  }

  /** Quotes no more, waits for a re-quote under way, and cancels the market's orders. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.again = false;
    await this.running;
    const ids = [...this.restingIds()];
    this.current = [];
    if (ids.length > 0) await this.client.cancelOrders(ids);
  }
}
