import {
  ladderSize,
  ladderStep,
  type Market,
  type Metadata,
  ODDS_SCALE,
  type OrderDomain,
  tickToOdds,
} from '@oddsbook/protocol';
import { OrderCheckError } from './errors.js';
import { type OrderParameters, type SignedOrder, signOrder, type TimeInForce } from './sign-order.js';
import type { Signer } from './signer.js';

/** An order as a bot writes it: the builder fills the defaults, rounds the odds and checks it. */
export type OrderRequest = {
  /** The market's hash (0x + 64 hex digits), as `Market.marketHash` has it. */
  marketHash: string;
  /** Own stake in base units (6 decimals: 5_000_000n is 5 USDC). */
  totalBetSize: bigint;
  isMakerBettingOutcomeOne: boolean;
  /** A tick of the exchange's ladder (1..799 at 0.125 %), or `percentageOdds`. */
  tick?: number;
  /** Implied probability x 10^20 (own frame); rounded onto the ladder by `rounding`. */
  percentageOdds?: bigint;
  /** How off-ladder odds are rounded: `down` (default: never a worse price for the order's owner), `up`, `nearest`. */
  rounding?: 'down' | 'up' | 'nearest';
  /** Default GTC. */
  timeInForce?: TimeInForce;
  /** Unix seconds; default an hour from now (later if the market's betting delay asks). */
  expiry?: number;
  clientOrderId?: string;
  salt?: bigint;
  baseToken?: `0x${string}`;
};

/** The exchange refuses an expiry inside the betting delay + 2 s; one more second covers clock skew. */
const EXPIRY_SLACK_MS = 3_000;
const DEFAULT_LIFETIME_S = 3_600;
/** Market facts (minimum, betting delay) are read again after this long: the delay changes at kick-off. */
export const MARKET_CACHE_MS = 5_000;

export type OrderBuilderDeps = {
  getMetadata: () => Promise<Metadata>;
  findMarkets: (hashes: readonly string[]) => Promise<readonly Market[]>;
  now?: () => number;
  marketCacheMs?: number;
};

/** Rounds `percentageOdds` onto the ladder; null when that leaves the open range (0, 1). */
export function roundToLadder(
  percentageOdds: bigint,
  stepSize: number,
  rounding: 'down' | 'up' | 'nearest' = 'down',
): bigint | null {
  const step = ladderStep(stepSize);
  const below = (percentageOdds / step) * step;
  const rounded =
    below === percentageOdds || rounding === 'down'
      ? below
      : rounding === 'up' || percentageOdds - below >= below + step - percentageOdds
        ? below + step
        : below;
  return rounded > 0n && rounded < ODDS_SCALE ? rounded : null;
}

/**
 * Turns `OrderRequest`s into signed orders the exchange will take: odds on its ladder (from the metadata,
 * read once), the base token, an expiry beyond the market's betting delay, and a stake at least the
 * market's minimum (market facts kept for `marketCacheMs`). A check that fails throws `OrderCheckError`
 * with the code the exchange would answer, before anything is posted.
 */
export class OrderBuilder {
  private readonly markets = new Map<string, { market: Market | null; at: number }>();
  private readonly now: () => number;
  private readonly cacheMs: number;

  constructor(private readonly deps: OrderBuilderDeps) {
    this.now = deps.now ?? Date.now;
    this.cacheMs = deps.marketCacheMs ?? MARKET_CACHE_MS;
  }

  /** The markets of `hashes`, from the cache or in one request per 30; null for an unknown one. */
  async lookUpMarkets(hashes: readonly string[]): Promise<Map<string, Market | null>> {
    const now = this.now();
    const wanted = [...new Set(hashes.map((h) => h.toLowerCase()))];
    const stale = wanted.filter((h) => {
      const hit = this.markets.get(h);
      return !hit || now - hit.at > this.cacheMs;
    });
    for (let i = 0; i < stale.length; i += 30) {
      const chunk = stale.slice(i, i + 30);
      const found = await this.deps.findMarkets(chunk);
      for (const hash of chunk) {
        const market = found.find((m) => m.marketHash.toLowerCase() === hash) ?? null;
        this.markets.set(hash, { market, at: now });
      }
    }
    return new Map(wanted.map((h) => [h, this.markets.get(h)!.market]));
  }

  /** A market's record (cached), or null when the exchange does not know it. */
  async market(marketHash: string): Promise<Market | null> {
    return (await this.lookUpMarkets([marketHash])).get(marketHash.toLowerCase()) ?? null;
  }

  /** Fills the defaults and checks every order; throws `OrderCheckError` for the first that fails. */
  async prepare(requests: readonly OrderRequest[]): Promise<OrderParameters[]> {
    const metadata = await this.deps.getMetadata();
    const markets = await this.lookUpMarkets(requests.map((r) => r.marketHash));
    const nowMs = this.now();
    const stepSize = metadata.oddsLadderStepSize;
    const ticks = ladderSize(stepSize);
    const minimumSize = BigInt(metadata.limits.orderSizeMinimumBaseUnits);
    return requests.map((r, index) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(r.marketHash))
        throw new TypeError(`order ${index}: marketHash is not a 32-byte hex hash: ${r.marketHash}`);
      const where = { index, marketHash: r.marketHash };
      const market = markets.get(r.marketHash.toLowerCase()) ?? null;
      let percentageOdds: bigint | null;
      if (r.tick !== undefined) {
        if (!Number.isInteger(r.tick) || r.tick < 1 || r.tick >= ticks)
          throw new OrderCheckError('ODDS_NOT_ON_LADDER', `tick must be 1..${ticks - 1}`, {
            ...where,
            tick: r.tick,
          });
        percentageOdds = tickToOdds(r.tick, stepSize);
      } else if (r.percentageOdds !== undefined) {
        percentageOdds = roundToLadder(r.percentageOdds, stepSize, r.rounding);
        if (percentageOdds === null)
          throw new OrderCheckError('ODDS_NOT_ON_LADDER', 'the odds round to 0 or 1', {
            ...where,
            percentageOdds: r.percentageOdds.toString(),
          });
      } else throw new TypeError('an order needs tick or percentageOdds');
      if (r.totalBetSize < minimumSize)
        throw new OrderCheckError('INVALID_SIZE', `stake below the exchange minimum of ${minimumSize}`, {
          ...where,
          minimum: minimumSize.toString(),
        });
      if (market && r.totalBetSize < BigInt(market.minBetSize))
        throw new OrderCheckError(
          'TOTAL_BET_SIZE_TOO_LOW',
          `stake below the market minimum of ${market.minBetSize}`,
          {
            ...where,
            minimum: market.minBetSize,
          },
        );
      const delayMs = Math.ceil((market?.bettingDelay ?? 0) * 1000);
      const earliest = nowMs + delayMs + EXPIRY_SLACK_MS;
      const expiry = r.expiry ?? Math.ceil(Math.max(nowMs / 1000 + DEFAULT_LIFETIME_S, earliest / 1000 + 60));
      if (expiry * 1000 <= nowMs)
        throw new OrderCheckError('INVALID_EXPIRY', 'expiry is in the past', { ...where, expiry });
      if (expiry * 1000 <= earliest)
        throw new OrderCheckError(
          'EXPIRY_INSIDE_BETTING_DELAY',
          `expiry must be later than now + the betting delay (${delayMs} ms) + 2 s`,
          { ...where, expiry, bettingDelayMs: delayMs },
        );
      return {
        marketHash: r.marketHash.toLowerCase() as `0x${string}`,
        baseToken: r.baseToken ?? (metadata.activeAsset.baseToken as `0x${string}`),
        totalBetSize: r.totalBetSize,
        percentageOdds,
        isMakerBettingOutcomeOne: r.isMakerBettingOutcomeOne,
        timeInForce: r.timeInForce ?? 'GTC',
        expiry,
        ...(r.salt !== undefined ? { salt: r.salt } : {}),
        ...(r.clientOrderId !== undefined ? { clientOrderId: r.clientOrderId } : {}),
      };
    });
  }

  /** Prepares and signs the orders with `signer`. */
  async sign(signer: Signer, requests: readonly OrderRequest[]): Promise<SignedOrder[]> {
    const prepared = await this.prepare(requests);
    const metadata = await this.deps.getMetadata();
    return Promise.all(
      prepared.map((p) => signOrder(signer, metadata.domain as OrderDomain, p, metadata.oddsLadderStepSize)),
    );
  }
}
