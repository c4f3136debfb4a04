import { Address, Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import type { Exchange } from '../../exchange/exchange.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const SafeInfo = Type.Object({
  safeAddress: Address,
  deployed: Type.Boolean(),
  owners: Type.Array(Address, { description: "Safe's getOwners() order, newest first" }),
  threshold: Type.Integer({ description: '0 until the proxy is deployed' }),
  nonce: Type.Integer(),
});

/** The account's proxy wallet as a multisig: owners, threshold and nonce (what the account page shows). */
export async function multisigStateRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.get(
    '/user/multisig',
    {
      schema: {
        summary: "The owners and threshold of the account's proxy wallet (a Safe)",
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        response: { 200: Envelope(SafeInfo), ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const safeAddress = exchange.chain.proxyAddressFor(request.account);
      const safe = await exchange.chain.getSafe(safeAddress);
      return success({
        safeAddress,
        deployed: safe !== null,
        owners: safe?.owners ?? [],
        threshold: safe?.threshold ?? 0,
        nonce: safe?.nonce ?? 0,
      });
    },
  );
}
