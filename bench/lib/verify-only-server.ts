/**
 * The ceiling of `bench/orders.ts`: a bare Fastify server with one route, `POST /orders-v3`, that only
 * verifies the orders' signatures and answers. Same Node, same verifier pool (same worker count), same body
 * schema and validator settings, same JSON body parsing and response schema as the exchange; no auth, no
 * logger, no admission, no sequencer, no database.
 *
 * Run as a child process: PORT=<port> VERIFY_WORKERS=<n> node --import tsx bench/lib/verify-only-server.ts
 */
import {
  type CreateOrderResult,
  CreateOrderResult as CreateOrderResultSchema,
  CreateOrdersBody,
  Envelope,
} from '@oddsbook/protocol';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { NETWORKS } from '../../packages/server/src/config/config.js';
import { EIP712_DOMAIN_NAME, VERIFY_INLINE_WHEN_IDLE } from '../../packages/server/src/exchange/exchange.js';
import { registerValidation } from '../../packages/server/src/http/plugins/validation.js';
import { createVerifierPool } from '../../packages/server/src/signing/verifier-pool.js';

const port = Number(process.env.PORT ?? 0);
const workers = Number(process.env.VERIFY_WORKERS ?? 1);
const network = NETWORKS.mainnet;
const pool = createVerifierPool({
  domain: {
    name: EIP712_DOMAIN_NAME,
    version: '1',
    chainId: network.chainId,
    verifyingContract: network.verifyingContract,
  },
  size: workers,
  inlineWhenIdle: VERIFY_INLINE_WHEN_IDLE,
});

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
registerValidation(app);
app.removeContentTypeParser('text/plain');
const parseJson = app.getDefaultJsonParser('error', 'error');
app.removeContentTypeParser('application/json');
app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
  if (body === '') return done(null, undefined);
  parseJson(request, body as string, done);
});

app.post(
  '/orders-v3',
  {
    schema: {
      body: CreateOrdersBody,
      response: { 200: Envelope(Type.Object({ orders: Type.Array(CreateOrderResultSchema) })) },
    },
  },
  async (request) => {
    const { orders } = request.body as CreateOrdersBody;
    const verified = await pool.verifyBatch(orders.map((o) => ({ order: o, signature: o.orderSignature })));
    const results: CreateOrderResult[] = verified.map((v, i) =>
      v.ok && v.signer.toLowerCase() === orders[i]!.maker.toLowerCase()
        ? { orderId: v.orderId, status: 'SUBMITTED' }
        : { orderId: v.orderId ?? null, status: 'FAILED', reason: v.ok ? 'SIGNATURE_MISMATCH' : v.code },
    );
    return { status: 'success' as const, data: { orders: results } };
  },
);

const address = await app.listen({ port, host: '127.0.0.1' });
console.log(`listening ${address}`);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.close())
    .then(() => process.exit(0));
});
