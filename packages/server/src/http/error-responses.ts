import { ErrorBodySchema, UnavailableBodySchema } from '@oddsbook/protocol';
import type { TSchema } from 'typebox';

/** The error statuses a route may declare. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503;

const WHEN: Record<ErrorStatus, string> = {
  400: 'Bad Request: the input failed validation or a rule of the route',
  401: 'Unauthorized (BAD_AUTH): the API key or operator token header is missing, unknown or revoked',
  403: 'Forbidden: the credential is good but may not act on this resource',
  404: 'Not Found: no such resource for this caller',
  409: 'Conflict: the resource is not in a state that allows this',
  413: 'Payload Too Large: the body is over the route’s limit',
  415: 'Unsupported Media Type: bodies are application/json only',
  429: 'Too Many Requests: over a rate limit; retry after the Retry-After header’s seconds',
  500: 'Internal Server Error: the request could not be carried out (its code says which step failed)',
  503: 'Service Unavailable: the exchange is overloaded or stopping; retry later',
};

const RETRY_AFTER = { type: 'integer', description: 'seconds until the limit lets the request through' };

/**
 * One error response for a route's `schema.response`, in the common error shape (503 in its own), or in
 * `body` where the route answers a shape of its own (e.g. the legacy `{status, errorCode}`). Documentation
 * only: the error handler writes every error body itself (see error-handler.ts).
 */
export function errorResponse(status: ErrorStatus, body?: TSchema): TSchema {
  const schema = body ?? (status === 503 ? UnavailableBodySchema : ErrorBodySchema);
  return status === 429
    ? { ...schema, description: WHEN[status], headers: { 'Retry-After': RETRY_AFTER } }
    : { ...schema, description: WHEN[status] };
}

/**
 * The error responses a route can answer, for its OpenAPI document:
 * `response: { 200: Envelope(Thing), ...errorResponses(400, 401, 429) }`.
 */
export function errorResponses(...statuses: ErrorStatus[]): Partial<Record<ErrorStatus, TSchema>> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)]));
}
