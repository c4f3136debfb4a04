import {
  AddSignerExecuteBody,
  AddSignerPrepareBody,
  Envelope,
  PreparedSafeTx,
  SafeTxProgress,
} from '@oddsbook/protocol';
import type { FastifyRequest } from 'fastify';
import { badRequest, conflict, forbidden } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { parseAddress } from '../../lib/address.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const security = [{ apiKey: [] }];
const tags = ['multisig'];
/**
 * Safe-style multisig: add a signer to the caller's proxy wallet. A Safe belongs to the caller's account
 * when it is the account's own proxy or the caller is one of its current owners (so a second owner can
 * confirm). Checks run in the spec's order: signer (400), ownership (403), deployment (409), then the
 * transaction and the signature (400).
 */
export async function multisigRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const { chain, multisig, wallets } = exchange;

  async function ownedSafe(request: FastifyRequest, safeAddress: string): Promise<`0x${string}`> {
    const safe = parseAddress(safeAddress, 'safeAddress');
    const ownProxy = wallets.proxyAddress(request.account) === safe;
    const state = await chain.getSafe(safe);
    if (!ownProxy && !state?.owners.includes(request.account)) {
      throw forbidden('SAFE_NOT_ON_ACCOUNT', 'the multisig wallet does not belong to this account');
    }
    if (!state) throw conflict('PROXY_NOT_DEPLOYED', 'the proxy wallet is not deployed yet');
    return safe;
  }

  app.post(
    '/user/multisig/add-signer/prepare',
    {
      schema: {
        summary: 'Prepare a Safe transaction adding a signer',
        description:
          'Returns the safeTxHash, the transaction data and the typedData to sign. 403 for a wallet not on the account, 409 before the proxy is deployed.',
        tags,
        security,
        body: AddSignerPrepareBody,
        response: { 200: Envelope(PreparedSafeTx), ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      const safeAddress = await ownedSafe(request, body.safeAddress);
      const prepared = await multisig.prepare({ ...body, safeAddress });
      request.log.info({ safe: safeAddress, safeTxHash: prepared.safeTxHash }, 'add-signer prepared');
      return success(prepared);
    },
  );

  app.post(
    '/user/multisig/add-signer/execute',
    {
      schema: {
        summary: 'Add a signature to a prepared Safe transaction',
        description: 'Idempotent: posting the same body again returns the current progress.',
        tags,
        security,
        body: AddSignerExecuteBody,
        response: { 200: Envelope(SafeTxProgress), ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      if (parseAddress(body.signerAddress, 'signerAddress') !== request.account) {
        throw badRequest(
          'SIGNER_NOT_AUTHENTICATED',
          'signerAddress must be the address of the API key’s account',
        );
      }
      const safeAddress = await ownedSafe(request, body.safeAddress);
      const progress = await multisig.confirm({ ...body, safeAddress });
      request.log.info(
        { safe: safeAddress, safeTxHash: body.safeTxHash, signedCount: progress.signedCount },
        'add-signer confirmed',
      );
      return success(progress);
    },
  );
}
