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
import {
  type FillRow,
  formatTokenAmount,
  ladderSize,
  MarketQuoter,
  parseTokenAmount,
} from '@oddsbook/client';
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
const quoter = new MarketQuoter(client, orders, market, {
  ticks,
  fair,
  spread,
  levels,
  size,
  onQuote: ({ one, two }, results) => {
    const refused = results.filter((r) => r.status === 'FAILED');
    log(
      'mm',
      `quoting ${formatTokenAmount(size)} USDC a level: ${market.outcomeOneName} ${one.map(pct).join(' ')} | ${market.outcomeTwoName} ${two.map(pct).join(' ')}` +
        (refused.length ? ` (${refused.length} refused: ${refused.map((r) => r.reason).join(', ')})` : ''),
    );
  },
  onError: (error) => log('mm', `quote failed: ${(error as Error).message}`),
});

fills.on((fill: FillRow) => {
  if (!quoter.fill(fill)) return;
  log(
    'mm',
    `filled ${formatTokenAmount(BigInt(fill.fillAmount))} USDC on ${fill.isBettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName} at ${pctOfOdds(fill.fillOdds)}`,
  );
});

onShutdown(async () => {
  log('mm', 'stopping: cancelling every order, disarming the heartbeat');
  await client.cancelAll();
  await alive.stop();
  client.close();
});

await quoter.quote();
