import type { FastifyInstance } from 'fastify';

const SHED_BODY = {
  message: 'Too many orders wait for their check and commit; retry shortly',
  statusCode: 503,
} as const;

/**
 * New orders are refused with 503 before their body is even read while the order path is full
 * (MAX_PENDING_ORDERS between signature check and commit; the order path refuses the same way after
 * parsing, for requests that raced in). Reads, cancels and `/health` do not queue behind it.
 */
export function registerLoadShedding(app: FastifyInstance, orders: { readonly saturated: boolean }): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (orders.saturated && request.method === 'POST' && request.routeOptions.url === '/orders-v3') {
      return void reply.status(503).send(SHED_BODY);
    }
    done();
  });
}
