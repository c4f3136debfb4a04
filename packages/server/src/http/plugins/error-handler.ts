import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.js';

type ValidationIssue = { instancePath?: string; message?: string; params?: Record<string, unknown> };

/** Renders ajv issues as readable messages: "body/orders must NOT have fewer than 1 items". */
function validationMessages(context: string | undefined, issues: readonly ValidationIssue[]): string[] {
  return issues.map((issue) => {
    const path = `${context ?? 'request'}${issue.instancePath ?? ''}`;
    const extra = issue.params?.additionalProperty ? ` '${String(issue.params.additionalProperty)}'` : '';
    return `${path} ${issue.message ?? 'is invalid'}${extra}`;
  });
}

/**
 * Writes an error body as it is. A route's error response schemas (error-responses.ts) document the
 * shapes; serializing through them would drop the fields a shape of its own carries (`minimum`) or fail
 * on one without `error` (503).
 */
function sendError(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.status(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** The code of an error Fastify raised itself (a framework check), by its status. */
function codeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return ErrorCode.BAD_AUTH;
    case 403:
      return ErrorCode.FORBIDDEN;
    case 404:
      return ErrorCode.NOT_FOUND;
    case 408:
      return ErrorCode.REQUEST_TIMEOUT;
    case 409:
      return ErrorCode.CONFLICT;
    case 413:
      return ErrorCode.PAYLOAD_TOO_LARGE;
    case 415:
      return ErrorCode.UNSUPPORTED_MEDIA_TYPE;
    case 431:
      return ErrorCode.HEADERS_TOO_LARGE;
    default:
      return ErrorCode.BAD_REQUEST;
  }
}

/**
 * One error handler for the whole API. Every failure leaves in one of the spec's shapes; a 5xx never
 * carries internals (they go to the log with the request id).
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(
        reply,
        error.statusCode,
        error.body ?? errorBody(error.statusCode, error.message, error.code),
      );
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      return sendError(
        reply,
        400,
        errorBody(
          400,
          validationMessages(fastifyError.validationContext, fastifyError.validation),
          ErrorCode.VALIDATION_FAILED,
        ),
      );
    }
    const status = fastifyError.statusCode ?? 500;
    if (status === 429) {
      return sendError(reply, 429, errorBody(429, ErrorCode.RATE_LIMITED, ErrorCode.RATE_LIMITED));
    }
    // The rest of a body too large is not read (Node would read it to the end to reuse the connection).
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') reply.header('connection', 'close');
    if (status >= 400 && status < 500) {
      if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
        const message = `${ErrorCode.MALFORMED_JSON}: the body is not valid JSON`;
        return sendError(reply, status, errorBody(status, message, ErrorCode.MALFORMED_JSON));
      }
      if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        const message = `${ErrorCode.PAYLOAD_TOO_LARGE}: the body is larger than this route takes`;
        return sendError(reply, status, errorBody(status, message, ErrorCode.PAYLOAD_TOO_LARGE));
      }
      return sendError(reply, status, errorBody(status, fastifyError.message, codeOfStatus(status)));
    }
    request.log.error({ err: error }, 'unhandled error');
    if (status === 503) return sendError(reply, 503, { message: 'Service Unavailable', statusCode: 503 });
    return sendError(reply, 500, errorBody(500, 'Internal Server Error', ErrorCode.INTERNAL_ERROR));
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      404,
      errorBody(404, `Cannot ${request.method} ${request.url.split('?')[0]}`, ErrorCode.ROUTE_NOT_FOUND),
    );
  });
}
