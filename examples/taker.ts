/**
 * A taker: follows a market's book live and, every interval, takes the best offer on one outcome, then the
 * other (IOC orders at the offered odds), printing what it got; stops after --rounds.
 *
 *   ODDSBOOK_ADMIN_TOKEN=$(cat data/admin-token) npx tsx examples/taker.ts            # against `npm start`
 *   npx oddsbook-client example taker --market 0x…                                    # from the SDK's tarball
 *
 * Options: --market <hash> (default: the first active market), --stake <USDC> per take (default 2),
 * --rounds <n> (default 6), --interval <ms> (default 1000).
 */
import { parseArgs } from 'node:util';
import { formatTokenAmount, parseTokenAmount } from '@oddsbook/client';
import { connect, log, pickMarket } from './connect.js';

const { values } = parseArgs({
  options: {
    market: { type: 'string' },
    stake: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '6' },
    interval: { type: 'string', default: '1000' },
  },
});

const client = await connect('taker');
const market = await pickMarket(client, values.market);
const stake = parseTokenAmount(values.stake!);
const pct = (odds: string) => `${(Number(BigInt(odds) / 10n ** 15n) / 1000).toString()}%`;
const book = await client.watchBook(market.marketHash);
log('taker', `market ${market.marketHash}: ${market.outcomeOneName} / ${market.outcomeTwoName}`);

let taken = 0n;
for (let round = 0; round < Number(values.rounds); round++) {
  await new Promise((resolve) => setTimeout(resolve, Number(values.interval)));
  const one = round % 2 === 0;
  const name = one ? market.outcomeOneName : market.outcomeTwoName;
  // The taker frame: what a bet on each outcome can get, best odds first.
  const best = (one ? book.taker?.outcomeOne : book.taker?.outcomeTwo)?.[0];
  if (!best) {
    log('taker', `nothing offered on ${name}`);
    continue;
  }
  const amount = BigInt(best.size) < stake ? BigInt(best.size) : stake;
  const [result] = await client.placeOrders(
    [
      {
        marketHash: market.marketHash,
        percentageOdds: BigInt(best.percentageOdds),
        totalBetSize: amount,
        isMakerBettingOutcomeOne: one,
        timeInForce: 'IOC',
      },
    ],
    { waitForOutcome: true },
  );
  if (result!.status === 'FAILED') {
    log('taker', `refused on ${name}: ${result!.reason}`);
    continue;
  }
  const filled = BigInt(result!.outcome?.fillAmount ?? '0');
  taken += filled;
  log(
    'taker',
    filled > 0n
      ? `took ${formatTokenAmount(filled)} USDC on ${name} at ${pct(result!.outcome!.blendedOdds)}`
      : `${name} at ${pct(best.percentageOdds)} was gone (${result!.outcome?.cancelReason ?? result!.outcome?.state})`,
  );
}
log('taker', `done: ${formatTokenAmount(taken)} USDC taken`);
client.close();
