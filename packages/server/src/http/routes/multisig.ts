import { Address, Bytes32, Envelope } from '@oddsbook/protocol';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { badRequest, conflict, forbidden } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { parseAddress } from '../../lib/address.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const security = [{ apiKey: [] }];
const tags = ['multisig'];
const Uint = Type.String({ pattern: '^[0-9]{1,78}$' });

/** SafeTransactionData: accepts additional properties (spec); the known ones are checked. */
const SafeTransactionDataSchema = Type.Object(
  {
    to: Address,
    value: Uint,
    data: Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 10_000 }),
    operation: Type.Integer({ minimum: 0, maximum: 1 }),
    nonce: Type.Integer({ minimum: 0 }),
    safeTxGas: Type.Optional(Uint),
    baseGas: Type.Optional(Uint),
    gasPrice: Type.Optional(Uint),
    gasToken: Type.Optional(Address),
    refundReceiver: Type.Optional(Address),
  },
  { additionalProperties: true },
);

const SafeTxProgress = Type.Object({
  safeTxHash: Bytes32,
  confirmedBy: Type.Array(Address),
  signedCount: Type.Integer(),
  requiredThreshold: Type.Integer(),
  isReadyToExecute: Type.Boolean(),
  isExecuted: Type.Boolean(),
  executionTxHash: Type.Union([Bytes32, Type.Null()]),
});

const Prepared = Type.Object({
  safeTxHash: Bytes32,
  safeTransactionData: Type.Object({}, { additionalProperties: true }),
  typedData: Type.Object({}, { additionalProperties: true, description: 'what eth_signTypedData_v4 takes' }),
});

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
        body: Type.Object(
          {
            safeAddress: Address,
            newSignerAddress: Address,
            threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(Prepared), ...errorResponses(400, 401, 403, 409, 429) },
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
        body: Type.Object(
          {
            safeAddress: Address,
            safeTxHash: Bytes32,
            safeTransactionData: SafeTransactionDataSchema,
            signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
            signerAddress: Address,
          },
          { additionalProperties: false },
        ),
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
