import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * The pages' Content-Security-Policy. The built pages (packages/web/dist) load one script and one style
 * sheet from their own origin, no inline script or style, no image, font, frame or plugin; they call the
 * API and open the realtime WebSocket on the same origin. CSP Level 3 has `'self'` match `ws:`/`wss:` on
 * the page's own host and port (the browser test opens the realtime connection under this policy).
 * Nothing may frame them: the session token and an API key sit in their `sessionStorage`.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
  formAction: ["'self'"],
};

/** The header values helmet builds from `middleware` (none of them depends on the request). */
function headersOf(middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void) {
  const headers: Record<string, string> = {};
  const capture = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  middleware({} as IncomingMessage, capture as unknown as ServerResponse, () => {});
  return Object.freeze(headers);
}

/**
 * The headers of every answer: helmet's set with the pages' policy, `X-Frame-Options: DENY` for browsers
 * older than `frame-ancestors`, `Referrer-Policy: no-referrer`. No `Strict-Transport-Security`: this
 * server speaks plain HTTP, where browsers ignore it, and behind a TLS proxy how long and how wide the
 * policy holds is the operator's call, set on the proxy.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = headersOf(
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: false,
  }),
);

/**
 * Adds SECURITY_HEADERS to every answer that leaves through Fastify: pages, API answers, errors, 404s,
 * and the 429s and 503s of the `onRequest` hooks (an `onSend` hook runs for all of them, whichever hook
 * or handler answered). The answers Node writes itself are app.ts's (`clientError`, a missing Host).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(SECURITY_HEADERS);
    done(null, payload);
  });
}
