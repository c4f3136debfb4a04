/**
 * The quoting loop of examples/parlay-quoter.ts, as a function (the browser test runs it in its own
 * process): follows `parlay_markets:global` and, for each request, prices the parlay from its legs' books
 * and posts an offer on the parlay market before the quote window closes.
 */
import {
  type ExchangeClient,
  type FillRow,
  formatTokenAmount,
  type ParlayRequest,
  type ParlayRequests,
  quoteParlay,
} from '@oddsbook/client';

export type ParlayQuoterOptions = {
  /** Added to the parlay's fair probability (percentageOdds scale: 3 % is 3n * 10n ** 18n). */
  margin: bigint;
  /** The most a bettor may stake against one offer (base units); a smaller `requestSize` is used as is. */
  maxStake: bigint;
  /** Seconds an offer lives (the exchange also cancels it when the parlay market closes). */
  expirySeconds: number;
  log: (line: string) => void;
};

export type ParlayQuoter = {
  requests: ParlayRequests;
  /** Offers posted so far. */
  readonly offered: number;
  stop(): Promise<void>;
};

const pct = (odds: bigint) => `${formatTokenAmount(odds, 18).replace(/(\.\d{3})\d+$/, '$1')} %`;
const short = (hash: string) => `${hash.slice(0, 10)}…`;

/** Starts quoting; resolves once subscribed (requests from then on are quoted). */
export async function startParlayQuoter(
  client: ExchangeClient,
  options: ParlayQuoterOptions,
): Promise<ParlayQuoter> {
  const { log } = options;
  const metadata = await client.getMetadata();
  let offered = 0;
  const offers = new Map<string, string>();

  async function quote(request: ParlayRequest): Promise<void> {
    const started = Date.now();
    const asked = request.requestSize !== undefined ? BigInt(request.requestSize) : undefined;
    log(
      `request ${short(request.marketHash)}: ${request.legs.length} legs${asked !== undefined ? `, ${formatTokenAmount(asked)} USDC asked` : ''}`,
    );
    const best = new Map(
      (await client.getBestOdds(request.legs.map((l) => l.marketHash))).map((b) => [b.marketHash, b]),
    );
    const bettorStake =
      asked !== undefined && asked > 0n && asked < options.maxStake ? asked : options.maxStake;
    const quote = quoteParlay({
      legs: request.legs.map((leg) => ({
        best: best.get(leg.marketHash),
        bettingOutcomeOne: leg.bettingOutcomeOne,
      })),
      margin: options.margin,
      bettorStake,
      ladderStepSize: metadata.oddsLadderStepSize,
    });
    if (!quote.ok) {
      log(`skipping ${short(request.marketHash)}: ${quote.reason}`);
      return;
    }
    const [placed] = await client.placeOrders([
      {
        marketHash: request.marketHash,
        percentageOdds: quote.makerOdds,
        totalBetSize: quote.makerStake,
        isMakerBettingOutcomeOne: false,
        expiry: Math.floor(Date.now() / 1000) + options.expirySeconds,
      },
    ]);
    const legs = quote.legProbabilities.map(pct).join(' x ');
    if (placed!.status === 'FAILED') {
      log(`offer on ${short(request.marketHash)} refused: ${placed!.reason}`);
      return;
    }
    offered++;
    offers.set(placed!.orderId!.toLowerCase(), request.marketHash);
    log(
      `offered ${short(request.marketHash)}: ${pct(quote.bettorOdds)} to the bettor (legs ${legs} = ${pct(quote.fair)}, + ${pct(options.margin)} margin), up to ${formatTokenAmount(bettorStake)} USDC, laying ${formatTokenAmount(quote.makerStake)} USDC, ${Date.now() - started} ms after the request`,
    );
  }

  const fills = await client.watchFills({ onError: (e) => log(`fills: ${(e as Error).message}`) });
  fills.on((fill: FillRow) => {
    const parlay = offers.get(fill.orderId.toLowerCase());
    if (!parlay || fill.status !== 'MATCHED') return;
    log(`taken ${short(parlay)}: ${formatTokenAmount(BigInt(fill.fillAmount))} USDC of ours laid`);
  });
  const requests = client.watchParlayRequests({
    baseToken: metadata.activeAsset.baseToken,
    onMissed: () => log('reconnected: requests made meanwhile were missed (the channel keeps no history)'),
    onError: (e) => log(`parlay requests: ${(e as Error).message}`),
  });
  requests.on((request) => {
    quote(request).catch((e: unknown) =>
      log(`quote ${short(request.marketHash)} failed: ${(e as Error).message}`),
    );
  });
  await requests.ready;
  log(
    `listening for parlay requests: margin ${pct(options.margin)}, up to ${formatTokenAmount(options.maxStake)} USDC a bettor`,
  );
  return {
    requests,
    get offered() {
      return offered;
    },
    async stop() {
      requests.close();
      fills.close();
    },
  };
}
