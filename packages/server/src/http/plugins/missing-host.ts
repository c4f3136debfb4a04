import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyInstance } from 'fastify';

/** The Node server option that lets a request without `Host` reach Fastify (app.ts). */
export const ACCEPT_MISSING_HOST = { requireHostHeader: false } as const;

/**
 * HTTP/1.1 requires a `Host` header. Node refuses a request without one itself, with a bare 400 and no
 * body, unless told not to (ACCEPT_MISSING_HOST); then this hook answers it: 400 in the common error
 * shape, with the security headers, and the connection closed as Node would. Registered after the rate
 * limits, so such requests count too. HTTP/1.0 has no such rule.
 */
export function refuseMissingHost(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      reply.header('connection', 'close');
      return void reply
        .status(400)
        .send(
          errorBody(
            400,
            `${ErrorCode.MISSING_HOST}: an HTTP/1.1 request needs a Host header`,
            ErrorCode.MISSING_HOST,
          ),
        );
    }
    done();
  });
}
