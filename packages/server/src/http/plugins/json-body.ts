import { ErrorCode } from '@oddsbook/protocol';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../errors/app-error.js';

/**
 * Request body bounds. Every route takes at most `default` bytes; the order routes (10 orders to create,
 * 100 ids to cancel: a few KB) set `orders` as their route `bodyLimit`. Past it: 413 before the body is
 * read to the end. No request body of the API nests deeper than a handful of levels.
 */
export const BODY_LIMITS = { default: 16 * 1024, orders: 32 * 1024 } as const;
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Whether JSON text nests arrays and objects deeper than `max` (one linear pass, strings skipped). */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/**
 * The JSON body parser. A body nested deeper than MAX_JSON_DEPTH is a 400 before `JSON.parse` builds it
 * (and before validation walks it). Bodyless DELETEs often still say application/json: an empty body is
 * no body, not malformed JSON. Anything but application/json in a body is 415, not a string to validate.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    if (jsonNestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      return done(
        badRequest(
          ErrorCode.MALFORMED_JSON,
          `${ErrorCode.MALFORMED_JSON}: the body nests deeper than ${MAX_JSON_DEPTH} levels`,
        ),
        undefined,
      );
    }
    parseJson(request, body as string, done);
  });
}
