import { ladderSize, type OrderDomain } from '@oddsbook/protocol';
import { createExchangeClient } from '../../client.js';
import { signOrder } from '../../sign-order.js';
import type { Command } from '../command.js';
import { DEFAULT_URL, parse, signerFromEnv } from '../context.js';

const USAGE = `Usage: oddsbook-client sign-order [options]

Signs an order with EIP-712 over the exchange's domain and prints the JSON that POST /orders-v3 takes
in "orders". The private key is read from the ODDSBOOK_PRIVATE_KEY environment variable.

Options:
  --url <base url>        exchange base url, to read the domain and base token (default: the
                          ODDSBOOK_URL environment variable, else ${DEFAULT_URL})
  --market <hash>         marketHash
  --outcome one|two       the outcome the order bets on
  --tick <1..799>         price on the exchange's ladder (k/800 at its 0.125 % step), or --odds <percentageOdds x 10^20>
  --size <base units>     stake, e.g. 5000000 for 5 USDC
  --tif GTC|IOC|FOK       time in force (default GTC)
  --expires-in <seconds>  default 3600
  --client-order-id <id>  optional tag
  --help                  this text`;

export const signOrderCommand: Command = {
  name: 'sign-order',
  summary: 'sign an order and print it as POST /orders-v3 takes it (no request is made but the metadata)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parse(args, {
      market: { type: 'string' },
      outcome: { type: 'string' },
      tick: { type: 'string' },
      odds: { type: 'string' },
      size: { type: 'string' },
      tif: { type: 'string', default: 'GTC' },
      'expires-in': { type: 'string', default: '3600' },
      'client-order-id': { type: 'string' },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const url = values.url || io.env.ODDSBOOK_URL || DEFAULT_URL;
    const account = signerFromEnv(io.env);
    if (!values.market || !values.size || !values.outcome || (!values.tick && !values.odds)) {
      throw new Error('--market, --outcome, --size and --tick (or --odds) are required');
    }
    if (values.outcome !== 'one' && values.outcome !== 'two') throw new Error('--outcome is one or two');
    if (!['GTC', 'IOC', 'FOK'].includes(values.tif!)) throw new Error('--tif is GTC, IOC or FOK');
    if (!/^[1-9][0-9]*$/.test(values.size)) throw new Error('--size is a whole number of base units above 0');
    const client = createExchangeClient({ baseUrl: url });
    const metadata = await client.getMetadata().catch((error: unknown) => {
      throw new Error(`cannot read the exchange's metadata at ${url}: ${(error as Error).message}`);
    });
    let price: { percentageOdds: bigint } | { tick: number };
    if (values.odds) {
      if (!/^[1-9][0-9]*$/.test(values.odds))
        throw new Error('--odds is a whole number (percentageOdds x 10^20)');
      price = { percentageOdds: BigInt(values.odds) };
    } else {
      const ticks = ladderSize(metadata.oddsLadderStepSize);
      const tick = Number(values.tick);
      if (!Number.isInteger(tick) || tick < 1 || tick >= ticks)
        throw new Error(`--tick is a whole number from 1 to ${ticks - 1} on this exchange's ladder`);
      price = { tick };
    }
    const order = await signOrder(
      account,
      metadata.domain as OrderDomain,
      {
        marketHash: values.market as `0x${string}`,
        baseToken: metadata.activeAsset.baseToken as `0x${string}`,
        totalBetSize: BigInt(values.size),
        ...price,
        isMakerBettingOutcomeOne: values.outcome === 'one',
        timeInForce: values.tif as 'GTC' | 'IOC' | 'FOK',
        expiry: Math.floor(Date.now() / 1000) + Number(values['expires-in']),
        ...(values['client-order-id'] ? { clientOrderId: values['client-order-id'] } : {}),
      },
      metadata.oddsLadderStepSize,
    );
    io.out(JSON.stringify(order));
    return 0;
  },
};
