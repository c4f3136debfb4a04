import type { Command } from '../command.js';
import { amountOption, COMMON_HELP, clientFor, makeContext, parse, print, UsageError } from '../context.js';
import { decimalOdds, percent, table, usdc } from '../format.js';

const PLACE_USAGE = `Usage: oddsbook-client place --market <hash> --outcome one|two (--tick <k> | --percent <p>) (--stake <USDC> | --size <base units>) [options]

Signs an order with ODDSBOOK_PRIVATE_KEY and posts it (retried safely if the exchange does not answer: the
same signed order cannot be placed twice). Prints the result: SUBMITTED with the outcome, or FAILED with
the reason (exit code 3).

Options:
  --market <hash>         the market
  --outcome one|two       the outcome the order bets on
  --tick <k>              price on the ladder: k/800 implied probability (1..799 at the 0.125 % step)
  --percent <p>           or the implied probability in percent (e.g. 52.5), rounded down onto the ladder
  --stake <USDC>          the stake, e.g. 5 or 2.5; or --size <base units> (5000000 = 5 USDC)
  --tif GTC|IOC|FOK       time in force (default GTC)
  --expires-in <seconds>  default 3600 (later if the market's betting delay asks)
  --client-order-id <id>  a tag to find it by
  --no-wait               answer SUBMITTED at once, without the outcome
${COMMON_HELP}`;

/** "52.5" percent as percentageOdds (x 10^20), in integers. */
function percentToOdds(value: string): bigint {
  const match = /^([0-9]{1,2})(?:\.([0-9]{1,18}))?$/.exec(value);
  if (!match) throw new UsageError('--percent is a probability in percent between 0 and 100, e.g. 52.5');
  const odds = BigInt(match[1]!) * 10n ** 18n + BigInt((match[2] ?? '').padEnd(18, '0') || '0');
  if (odds <= 0n) throw new UsageError('--percent must be above 0');
  return odds;
}

export const placeCommand: Command = {
  name: 'place',
  summary: 'sign and place an order',
  usage: PLACE_USAGE,
  async run(args, io) {
    const { values } = parse(args, {
      market: { type: 'string' },
      outcome: { type: 'string' },
      tick: { type: 'string' },
      percent: { type: 'string' },
      stake: { type: 'string' },
      size: { type: 'string' },
      tif: { type: 'string' },
      'expires-in': { type: 'string' },
      'client-order-id': { type: 'string' },
      'no-wait': { type: 'boolean' },
    });
    if (values.help) {
      io.out(PLACE_USAGE);
      return 0;
    }
    const ctx = makeContext(values, io);
    if (!values.market || !/^0x[0-9a-fA-F]{64}$/.test(values.market))
      throw new UsageError('--market is a market hash');
    if (values.outcome !== 'one' && values.outcome !== 'two') throw new UsageError('--outcome is one or two');
    if ((values.tick === undefined) === (values.percent === undefined))
      throw new UsageError('give the price: --tick <k> or --percent <p>');
    const tif = values.tif ?? 'GTC';
    if (tif !== 'GTC' && tif !== 'IOC' && tif !== 'FOK') throw new UsageError('--tif is GTC, IOC or FOK');
    let expiry: number | undefined;
    if (values['expires-in'] !== undefined) {
      if (!/^[1-9][0-9]{0,8}$/.test(values['expires-in']))
        throw new UsageError('--expires-in is a number of seconds');
      expiry = Math.floor(Date.now() / 1000) + Number(values['expires-in']);
    }
    const totalBetSize = amountOption(values);
    const client = clientFor(ctx, { key: true, sign: true });
    const [result] = await client.placeOrders(
      [
        {
          marketHash: values.market as `0x${string}`,
          isMakerBettingOutcomeOne: values.outcome === 'one',
          ...(values.tick !== undefined
            ? { tick: Number(values.tick) }
            : { percentageOdds: percentToOdds(values.percent!) }),
          totalBetSize,
          timeInForce: tif,
          ...(expiry !== undefined ? { expiry } : {}),
          ...(values['client-order-id'] ? { clientOrderId: values['client-order-id'] } : {}),
        },
      ],
      { waitForOutcome: !values['no-wait'] },
    );
    const r = result!;
    print(ctx, r, () => {
      if (r.status === 'FAILED') return `FAILED ${r.reason}: order ${r.orderId ?? '(no id)'}`;
      const o = r.outcome;
      const state = o
        ? `${o.state}: filled ${usdc(o.fillAmount)} USDC${o.fillAmount !== '0' ? ` at ${percent(o.blendedOdds)} (${decimalOdds(o.blendedOdds)})` : ''}, ${usdc(o.remainingAmount)} USDC left${o.cancelReason ? ` (${o.cancelReason})` : ''}`
        : 'SUBMITTED';
      return `${state}\norder ${r.orderId}${r.clientOrderId ? `  client id ${r.clientOrderId}` : ''}`;
    });
    return r.status === 'FAILED' ? 3 : 0;
  },
};

const CANCEL_USAGE = `Usage: oddsbook-client cancel <orderId>... [options]

Cancels orders by id (at most 100): answered once the cancels are committed (or after 5 s: unconfirmed).
Exit code 3 when one could not be cancelled (not open, not the account's).
${COMMON_HELP}`;

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel orders by id',
  usage: CANCEL_USAGE,
  async run(args, io) {
    const { values, positionals } = parse(args, {}, true);
    if (values.help) {
      io.out(CANCEL_USAGE);
      return 0;
    }
    if (positionals.length === 0)
      throw new UsageError('name the orders to cancel: oddsbook-client cancel <orderId>...');
    const bad = positionals.find((id) => !/^0x[0-9a-fA-F]{64}$/.test(id));
    if (bad) throw new UsageError(`not an order id: ${bad}`);
    const ctx = makeContext(values, io);
    const result = await clientFor(ctx, { key: true }).cancelOrders(positionals);
    print(ctx, result, () =>
      table(
        ['order', 'result'],
        [
          ...result.cancelled.map((c) => [c.orderId, 'cancelled']),
          ...result.notCancelled.map((c) => [c.orderId, `not cancelled: ${c.reason}`]),
          ...result.unconfirmed.map((c) => [c.orderId, `unconfirmed: ${c.reason}`]),
        ],
      ),
    );
    return result.notCancelled.length + result.unconfirmed.length > 0 ? 3 : 0;
  },
};

const CANCEL_ALL_USAGE = `Usage: oddsbook-client cancel-all [--market <hash> | --event <eventId>] [options]

Cancels every open order of the account (or of one market, or one event). Asynchronous: the cancels are
submitted; the orders leave the book as they are committed.

Options:
  --market <hash>      only this market's orders
  --event <eventId>    only this event's orders
${COMMON_HELP}`;

export const cancelAllCommand: Command = {
  name: 'cancel-all',
  summary: 'cancel every open order (of a market or an event)',
  usage: CANCEL_ALL_USAGE,
  async run(args, io) {
    const { values } = parse(args, { market: { type: 'string' }, event: { type: 'string' } });
    if (values.help) {
      io.out(CANCEL_ALL_USAGE);
      return 0;
    }
    if (values.market && values.event) throw new UsageError('give --market or --event, not both');
    const ctx = makeContext(values, io);
    const client = clientFor(ctx, { key: true });
    let submitted = 0;
    for (;;) {
      const result = values.market
        ? await client.cancelMarket(values.market)
        : values.event
          ? await client.cancelEvent(values.event)
          : await client.cancelAll();
      submitted += result.cancelledSubmitted.length;
      if (!result.hasMore) break;
    }
    print(ctx, { cancelledSubmitted: submitted }, () => `${submitted} orders to cancel submitted.`);
    return 0;
  },
};

const DEPLOY_USAGE = `Usage: oddsbook-client deploy-proxy [options]

Deploys the account's proxy wallet (a Safe its address owns), which must exist before it can trade or be
funded, and waits until the chain has it. Does nothing for a wallet already deployed.
${COMMON_HELP}`;

export const deployProxyCommand: Command = {
  name: 'deploy-proxy',
  summary: "deploy the account's proxy wallet (once, before trading)",
  usage: DEPLOY_USAGE,
  async run(args, io) {
    const { values } = parse(args, {});
    if (values.help) {
      io.out(DEPLOY_USAGE);
      return 0;
    }
    const ctx = makeContext(values, io);
    const client = clientFor(ctx, { key: true });
    let proxy = await client.deployProxy();
    while (proxy.pending && !io.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      proxy = await client.getProxy();
    }
    print(ctx, proxy, () => `proxy wallet ${proxy.proxy}: ${proxy.state}`);
    return proxy.deployed ? 0 : 1;
  },
};
