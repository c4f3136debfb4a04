import { Address, Envelope, UintString } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { badRequest, conflict } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { parseAddress } from '../../lib/address.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const security = [{ apiKey: [] }];
const tags = ['wallets'];
const Hash = Type.Union([Type.String(), Type.Null()]);
/** A faucet credit above this is almost certainly a units mistake (10^12 USDC). */
const MAX_FAUCET_AMOUNT = 10n ** 18n;

const ProxyState = Type.Object({
  proxy: Address,
  deployed: Type.Boolean(),
  pending: Type.Boolean(),
  state: Type.String({ description: 'none | pending | deployed | failed' }),
  txHash: Hash,
});

/** Proxy wallets: deployment and its state (spec: proxy deployment state table). */
export async function walletRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { chain } = exchange;
  const status = async (account: `0x${string}`) => {
    const p = await chain.getProxy(account);
    return { proxy: p.address, deployed: p.deployed, pending: p.pending, state: p.state, txHash: p.txHash };
  };

  app.post(
    '/user/deploy-proxy',
    {
      schema: {
        summary: 'Deploy the account’s proxy wallet',
        description:
          'Asynchronous: read GET /user/proxy until `pending` is false, then `deployed` tells the outcome.',
        tags,
        security,
        response: { 200: Envelope(ProxyState), ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const result = await chain.deployProxy(request.account);
      if (result.submitted)
        request.log.info({ proxy: result.safe, txHash: result.txHash }, 'proxy deployment submitted');
      return success(await status(request.account));
    },
  );
  app.get(
    '/user/pending-deploy-proxy',
    {
      schema: {
        summary: 'Whether a proxy deployment is in flight',
        tags,
        security,
        response: { 200: Envelope(Type.Object({ pending: Type.Boolean() })), ...errorResponses(401, 429) },
      },
    },
    async (request) => success({ pending: (await chain.getProxy(request.account)).pending }),
  );
  app.get(
    '/user/proxy',
    {
      schema: {
        summary: 'The account’s proxy wallet and its deployment state',
        tags,
        security,
        response: { 200: Envelope(ProxyState), ...errorResponses(401, 429) },
      },
    },
    async (request) => success(await status(request.account)),
  );
}

/** Operator: the faucet (credits a deployed proxy). */
export async function adminWalletRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.post(
    '/admin/faucet',
    {
      schema: {
        summary: 'Credit a deployed proxy wallet (test funds)',
        security: [{ adminToken: [] }],
        tags: ['admin'],
        body: Type.Object({ address: Address, amount: UintString }, { additionalProperties: false }),
        response: {
          200: Envelope(Type.Object({ availableAmount: UintString })),
          ...errorResponses(400, 401, 409, 429, 503),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const account = parseAddress(body.address);
      const amount = BigInt(body.amount);
      if (amount <= 0n || amount > MAX_FAUCET_AMOUNT) {
        throw badRequest('INVALID_AMOUNT', `amount must be between 1 and ${MAX_FAUCET_AMOUNT} base units`);
      }
      if (!(await exchange.wallets.isDeployed(account))) {
        throw conflict('PROXY_NOT_DEPLOYED', 'the account has no deployed proxy wallet');
      }
      // The chain's mint follows the committed credit (the chain link's outbox).
      await exchange.trading.deposit(account, amount);
      request.log.info({ account, amount: body.amount }, 'faucet credit');
      return success({ availableAmount: exchange.trading.sequencer.money(account).available.toString() });
    },
  );
}
