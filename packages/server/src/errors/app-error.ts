import type { ErrorCode } from '@oddsbook/protocol';

/**
 * The one base class for errors the API answers with: a stable code, an HTTP status, and optional extra
 * body fields (e.g. `minimum` for TOTAL_BET_SIZE_TOO_LOW). The error handler renders it in the spec's shape.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode | string;
  readonly statusCode: number;
  /** Replaces the common `{message, error, statusCode}` body when set (spec-specific shapes). */
  readonly body: Record<string, unknown> | undefined;

  constructor(options: {
    code: ErrorCode | string;
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

export const badRequest = (code: ErrorCode | string, message?: string) =>
  new AppError({ code, statusCode: 400, message: message ?? code });
export const notFound = (code: ErrorCode | string, message?: string) =>
  new AppError({ code, statusCode: 404, message: message ?? code });
export const conflict = (code: ErrorCode | string, message?: string) =>
  new AppError({ code, statusCode: 409, message: message ?? code });
export const forbidden = (code: ErrorCode | string, message?: string) =>
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
  constructor(errorCode: string, statusCode = 400) {
    super({ code: errorCode, statusCode, body: { status: 'failure', errorCode } });
  }
}
