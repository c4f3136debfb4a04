/**
 * A market maker: two-sided quotes around a fair price, re-quoted after each fill (skewed by what it holds),
 * kept alive by the heartbeat (if this process dies, the exchange cancels its orders within the timeout),
 * and every order cancelled on a clean exit (Ctrl-C).
 *
 *   ODDSBOOK_ADMIN_TOKEN=$(cat data/admin-token) npx tsx examples/market-maker.ts     # against `npm start`
 *   npx oddsbook-client example market-maker --market 0x…                              # from the SDK's tarball
 *
 * Options: --market <hash> (default: the first active market), --fair <percent> (outcome one's
 * probability, default 50), --spread <ticks> (default 8: 1 %), --levels <n> (default 3), --size <USDC>
 * per order (default 10), --heartbeat <seconds> (default 5).
 */
import { parseArgs } from 'node:util';
import { type FillRow, formatTokenAmount, ladderSize, parseTokenAmount } from '@oddsbook/client';
import { connect, log, onShutdown, pickMarket } from './connect.js';

const { values } = parseArgs({
  options: {
    market: { type: 'string' },
    fair: { type: 'string', default: '50' },
    spread: { type: 'string', default: '8' },
    levels: { type: 'string', default: '3' },
    size: { type: 'string', default: '10' },
    heartbeat: { type: 'string', default: '5' },
  },
});

const client = await connect('mm');
const market = await pickMarket(client, values.market);
const metadata = await client.getMetadata();
const ticks = ladderSize(metadata.oddsLadderStepSize);
const fair = Math.round((Number(values.fair) / 100) * ticks);
const spread = Number(values.spread);
const levels = Math.min(Number(values.levels), metadata.limits.maxCreateOrders / 2);
const size = parseTokenAmount(values.size!);
const pct = (tick: number) => `${((tick / ticks) * 100).toFixed(3).replace(/\.?0+$/, '')}%`;
const pctOfOdds = (odds: string) => `${Number(BigInt(odds) / 10n ** 15n) / 1000}%`;
log('mm', `market ${market.marketHash}: ${market.outcomeOneName} / ${market.outcomeTwoName}`);

// The dead-man switch: refreshed every timeout/3 while this process runs.
const alive = client.keepAlive({
  timeoutSeconds: Number(values.heartbeat),
  onError: (error) => log('mm', `heartbeat refresh failed: ${(error as Error).message}`),
});
await alive.armed;
log('mm', `heartbeat armed: ${values.heartbeat} s`);

const orders = await client.watchOrders();
const fills = await client.watchFills();
/** Net stake on outcome one minus outcome two from this run's fills: the quotes lean away from it. */
let inventory = 0n;
/** The ids of the ladder posted last (the watched orders may not show them yet). */
let current: string[] = [];

/**
 * Posts a fresh ladder on both outcomes around the (skewed) fair price, then cancels the one it replaces:
 * the book is never left empty between the two (for a moment both rest: keep funds for twice the ladder).
 */
async function quote(): Promise<void> {
  const resting = orders.orders.filter((o) => o.marketHash === market.marketHash).map((o) => o.id);
  const previous = new Set([...current, ...resting]);
  const skew = Math.max(-spread, Math.min(spread, Number(inventory / size)));
  const center = fair - skew;
  const one = Array.from({ length: levels }, (_, i) => center - spread / 2 - i * 2);
  const two = Array.from({ length: levels }, (_, i) => ticks - center - spread / 2 - i * 2);
  const results = await client.placeOrders([
    ...one.map((tick) => ({
      marketHash: market.marketHash,
      tick,
      totalBetSize: size,
      isMakerBettingOutcomeOne: true,
    })),
    ...two.map((tick) => ({
      marketHash: market.marketHash,
      tick,
      totalBetSize: size,
      isMakerBettingOutcomeOne: false,
    })),
  ]);
  current = results.flatMap((r) => (r.status === 'SUBMITTED' && r.orderId ? [r.orderId] : []));
  const replaced = [...previous].filter((id) => !current.includes(id));
  if (replaced.length > 0) await client.cancelOrders(replaced);
  const refused = results.filter((r) => r.status === 'FAILED');
  log(
    'mm',
    `quoting ${formatTokenAmount(size)} USDC a level: ${market.outcomeOneName} ${one.map(pct).join(' ')} | ${market.outcomeTwoName} ${two.map(pct).join(' ')}` +
      (refused.length ? ` (${refused.length} refused: ${refused.map((r) => r.reason).join(', ')})` : ''),
  );
}

// Re-quote after fills, one at a time: fills that come while a re-quote runs are covered by the next.
let requoting: Promise<void> | null = null;
let again = false;
function requote(): void {
  if (requoting) {
    again = true;
    return;
  }
  requoting = quote()
    .catch((error: unknown) => log('mm', `quote failed: ${(error as Error).message}`))
    .finally(() => {
      requoting = null;
      if (again) {
        again = false;
        requote();
      }
    });
}

fills.on((fill: FillRow) => {
  if (fill.status !== 'MATCHED' || fill.marketHash !== market.marketHash) return;
  const stake = BigInt(fill.fillAmount);
  inventory += fill.isBettingOutcomeOne ? stake : -stake;
  log(
    'mm',
    `filled ${formatTokenAmount(stake)} USDC on ${fill.isBettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName} at ${pctOfOdds(fill.fillOdds)}`,
  );
  requote();
});

onShutdown(async () => {
  log('mm', 'stopping: cancelling every order, disarming the heartbeat');
  await client.cancelAll();
  await alive.stop();
  client.close();
});

await quote();
