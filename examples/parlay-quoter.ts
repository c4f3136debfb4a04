/**
 * A parlay quoter: follows the parlay requests (`parlay_markets:global`) and offers on each within its quote
 * window: the product of the legs' fair probabilities (from the best odds of each leg's book) plus a margin
 * is the price the bettor gets, and the quoter lays it (an ordinary signed order betting outcome two on the
 * parlay market). Every open order is cancelled on a clean exit (Ctrl-C).
 *
 *   ODDSBOOK_ADMIN_TOKEN=$(cat data/admin-token) npx tsx examples/parlay-quoter.ts    # against `npm start`
 *   npx oddsbook-client example parlay-quoter --margin 2                               # from the SDK's tarball
 *
 * Options: --margin <percent> added to the fair probability (default 3), --size <USDC> the most a bettor
 * may stake on one offer (default 10; a smaller requestSize is offered as asked), --expiry <seconds> an
 * offer lives (default 120; the exchange cancels it anyway when the parlay closes).
 *
 * The request channel keeps no history: requests made while the quoter is disconnected are missed (it says
 * so when it reconnects).
 */
import { parseArgs } from 'node:util';
import { parseTokenAmount } from '@oddsbook/client';
import { connect, log, onShutdown } from './connect.js';
import { startParlayQuoter } from './parlay-quoting.js';

const { values } = parseArgs({
  options: {
    margin: { type: 'string', default: '3' },
    size: { type: 'string', default: '10' },
    expiry: { type: 'string', default: '120' },
  },
});

const client = await connect('quoter');
const quoter = await startParlayQuoter(client, {
  // A percentage with up to 18 decimals is percentageOdds (probability x 10^20) as is.
  margin: parseTokenAmount(values.margin!, 18),
  maxStake: parseTokenAmount(values.size!),
  expirySeconds: Number(values.expiry),
  log: (line) => log('quoter', line),
});

onShutdown(async () => {
  log('quoter', `stopping after ${quoter.offered} offers: cancelling every open order`);
  await quoter.stop();
  await client.cancelAll();
  client.close();
});
