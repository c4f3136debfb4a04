import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { isAddress } from 'viem';
import type { Chain } from '../../chain/chain.js';
import { errorResponses } from '../error-responses.js';
import { BODY_LIMITS } from '../plugins/json-body.js';

/*
 * `POST /rpc`: the JSON-RPC 2.0 endpoint of the exchange's chain, with the read methods a wallet calls to
 * add the network and show it (wallet_addEthereumChain's rpcUrls). Gas is free on this chain and its
 * native currency is nominal: every balance and the gas price are 0 (USDC is a token of the chain).
 */

/** Requests in one batch at most; a bigger batch is refused whole. */
export const MAX_RPC_BATCH = 20;

export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
} as const;

type RpcId = string | number | null;
type RpcAnswer =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string } };

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const failure = (id: RpcId, code: number, message: string): RpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** What the methods read: the chain's id and its height. */
export type RpcChain = Pick<Chain, 'chainId' | 'blockNumber'>;

async function answerOne(chain: RpcChain, request: unknown): Promise<RpcAnswer | null> {
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
  const idOk = (id: unknown): id is RpcId =>
    id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (
    typeof r !== 'object' ||
    r === null ||
    Array.isArray(r) ||
    r.jsonrpc !== '2.0' ||
    typeof r.method !== 'string'
  )
    return failure(idOk(r?.id) ? r.id : null, RPC_ERRORS.invalidRequest, 'not a JSON-RPC 2.0 request');
  if (r.id !== undefined && !idOk(r.id))
    return failure(null, RPC_ERRORS.invalidRequest, 'id must be a string, a number or null');
  // A notification (no id) is answered with nothing.
  const id = r.id ?? null;
  const notification = r.id === undefined;
  const params = r.params === undefined ? [] : r.params;
  if (!Array.isArray(params)) return failure(id, RPC_ERRORS.invalidParams, 'params must be an array');
  let result: unknown;
  switch (r.method) {
    case 'eth_chainId':
      result = hex(chain.chainId);
      break;
    case 'net_version':
      result = String(chain.chainId);
      break;
    case 'eth_blockNumber':
      result = hex(await chain.blockNumber());
      break;
    case 'eth_gasPrice':
      result = '0x0';
      break;
    case 'eth_getBalance':
      if (typeof params[0] !== 'string' || !isAddress(params[0], { strict: false }))
        return failure(id, RPC_ERRORS.invalidParams, 'eth_getBalance takes [address, block]');
      result = '0x0';
      break;
    default:
      return failure(
        id,
        RPC_ERRORS.methodNotFound,
        `method not found: this endpoint answers eth_chainId, net_version, eth_blockNumber, eth_getBalance and eth_gasPrice`,
      );
  }
  return notification ? null : { jsonrpc: '2.0', id, result };
}

/** The answer to a request body: one answer, a batch's answers, or null (notifications only). */
export async function answerJsonRpc(chain: RpcChain, body: string): Promise<RpcAnswer | RpcAnswer[] | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return failure(null, RPC_ERRORS.parse, 'parse error: the body is not JSON');
  }
  if (!Array.isArray(parsed)) return answerOne(chain, parsed);
  if (parsed.length === 0) return failure(null, RPC_ERRORS.invalidRequest, 'empty batch');
  if (parsed.length > MAX_RPC_BATCH)
    return failure(null, RPC_ERRORS.invalidRequest, `a batch holds at most ${MAX_RPC_BATCH} requests`);
  const answers: RpcAnswer[] = [];
  for (const request of parsed) {
    const answer = await answerOne(chain, request);
    if (answer) answers.push(answer);
  }
  return answers.length > 0 ? answers : null;
}

/** Registers `POST /rpc` in a scope of its own: it reads the body as text, so bad JSON is a JSON-RPC error. */
export async function jsonRpcRoutes(app: FastifyInstance, chain: RpcChain): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: BODY_LIMITS.default },
    (_request, body, done) => done(null, body),
  );
  app.post(
    '/rpc',
    {
      schema: {
        // A wallet's endpoint, not the exchange's API (as /metrics): out of the OpenAPI document and the SDK.
        hide: true,
        summary: "JSON-RPC of the exchange's chain, for wallets",
        description:
          'JSON-RPC 2.0 (single or batch of at most 20): eth_chainId, net_version, eth_blockNumber, eth_getBalance ' +
          '(always 0x0: gas is free, the native currency nominal) and eth_gasPrice (0x0); any other method is ' +
          'answered with error -32601, a body that is not JSON with -32700. The RPC URL of wallet_addEthereumChain.',
        tags: ['metadata'],
        response: {
          200: Type.Unknown({ description: 'a JSON-RPC answer, or the answers of a batch' }),
          204: Type.Null({ description: 'notifications only: nothing to answer' }),
          ...errorResponses(413, 429),
        },
      },
    },
    async (request, reply) => {
      const answer = await answerJsonRpc(chain, typeof request.body === 'string' ? request.body : '');
      if (answer === null) return reply.code(204).send();
      return reply.type('application/json').send(JSON.stringify(answer));
    },
  );
}
