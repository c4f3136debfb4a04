import type { ErrorCode } from '@oddsbook/protocol';

/**
 * The one base class for errors the API answers with: a stable code, an HTTP status, and optional extra
 * body fields (e.g. `minimum` for TOTAL_BET_SIZE_TOO_LOW). The error handler renders it in the spec's shape.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Replaces the common `{message, error, statusCode}` body when set (spec-specific shapes). */
  readonly body: Record<string, unknown> | undefined;

  constructor(options: {
    code: ErrorCode;
    statusCode: number;
    message?: string;
    body?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message ?? options.code, { cause: options.cause });
    this.code = options.code;
    this.statusCode = options.statusCode;
    this.body = options.body;
  }
}

export const badRequest = (code: ErrorCode, message?: string) =>
  new AppError({ code, statusCode: 400, message: message ?? code });
export const notFound = (code: ErrorCode, message?: string) =>
  new AppError({ code, statusCode: 404, message: message ?? code });
export const conflict = (code: ErrorCode, message?: string) =>
  new AppError({ code, statusCode: 409, message: message ?? code });
export const forbidden = (code: ErrorCode, message?: string) =>
  new AppError({ code, statusCode: 403, message: message ?? code });
export const unavailable = (message = 'Service Unavailable', cause?: unknown) =>
  new AppError({
    code: 'SERVICE_UNAVAILABLE',
    statusCode: 503,
    message,
    body: { message, statusCode: 503 },
    cause,
  });

/** The legacy (v2) failure shape `{status: 'failure', errorCode}`. */
export class LegacyError extends AppError {
  override name = 'LegacyError';
  /** The legacy route's own code (the spec's legacy list), beside the API's code of its status. */
  readonly errorCode: string;

  constructor(errorCode: string, statusCode = 400, message?: string) {
    super({
      code: LEGACY_STATUS_CODES[statusCode] ?? 'BAD_REQUEST',
      statusCode,
      body:
        message === undefined ? { status: 'failure', errorCode } : { status: 'failure', message, errorCode },
      ...(message === undefined ? {} : { message }),
    });
    this.errorCode = errorCode;
  }
}

const LEGACY_STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  401: 'BAD_AUTH',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
};
