import type { FastifyInstance } from 'fastify';

const SHED_BODY = {
  message: 'Too many orders wait for a signature check; retry shortly',
  statusCode: 503,
} as const;

/**
 * New orders are refused with 503 before their body is even read while the signature checks are full
 * (the order path refuses the same way after parsing, for requests that raced in). Reads, cancels and
 * `/health` do not queue behind signature checks and go on answering.
 */
export function registerLoadShedding(app: FastifyInstance, verifier: { readonly saturated: boolean }): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (verifier.saturated && request.method === 'POST' && request.routeOptions.url === '/orders-v3') {
      return void reply.status(503).send(SHED_BODY);
    }
    done();
  });
}
