import {
  type CreateOrderResult,
  ERROR_CODES,
  type ErrorCode,
  isErrorCode,
  type OrderRejectReason,
} from '@oddsbook/protocol';

/**
 * The code of a generic answer per HTTP status, when the body names none (the common shape's `message` is
 * often a sentence): what the status alone says.
 */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  // A 401 for a bad credential says BAD_AUTH; the one other 401, a refused sign-in, says why in a sentence.
  401: 'SIGN_IN_FAILED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  500: 'INTERNAL_ERROR',
  502: 'SERVICE_UNAVAILABLE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_UNAVAILABLE',
};

type ErrorBodyLike = { message?: unknown; errorCode?: unknown; code?: unknown } | null;

/**
 * The stable code of an error answer. In order: a `code` field; the legacy `errorCode`; a `message` that is
 * a code (`BAD_AUTH`) or starts with one (`RATE_LIMITED: retry in 2 seconds`); a list of validation
 * messages; else what the status says (a sentence-only 404 is `NOT_FOUND`, "Cannot GET /x" is
 * `ROUTE_NOT_FOUND`).
 */
export function errorCodeOf(status: number, body: unknown): ErrorCode {
  const b = (typeof body === 'object' ? body : null) as ErrorBodyLike;
  if (isErrorCode(b?.code)) return b.code;
  if (isErrorCode(b?.errorCode)) return b.errorCode;
  const message = b?.message;
  if (typeof message === 'string') {
    if (isErrorCode(message)) return message;
    const prefix = /^([A-Z][A-Z0-9_]+):/.exec(message)?.[1];
    if (isErrorCode(prefix)) return prefix;
    if (status === 404 && /^Cannot [A-Z]+ /.test(message)) return 'ROUTE_NOT_FOUND';
  }
  if (Array.isArray(message)) return 'VALIDATION_FAILED';
  return CODE_OF_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

function messageOf(status: number, body: unknown): string {
  const b = (typeof body === 'object' ? body : null) as ErrorBodyLike;
  const message = b?.message ?? b?.errorCode;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' && message ? message : `request failed with status ${status}`;
}

/** The seconds of a Retry-After header (a number or an HTTP date) in ms; undefined without one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Every answer of the exchange that is not a 2xx: the HTTP `status`, the stable `code` (docs/errors.md says
 * what to do about each), the server's `message`, its whole `body`, and the request id of its log.
 */
export class ExchangeApiError extends Error {
  override name = 'ExchangeApiError';
  readonly code: ErrorCode;
  /** How long the server asked to wait before trying again (429, 503 with Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly requestId: string | null,
    options: { retryAfterMs?: number | undefined; method?: string; path?: string } = {},
  ) {
    const code = errorCodeOf(status, body);
    const message = messageOf(status, body);
    const where = options.method && options.path ? ` (${options.method} ${options.path})` : '';
    super(`${status} ${code}${message === code ? '' : `: ${message}`}${where}`);
    this.code = code;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** What the code means and what to do about it. */
  get hint(): { when: string; action: string } {
    const { when, action } = ERROR_CODES[this.code];
    return { when, action };
  }
}

/** No answer: the connection failed, or the request timed out. Whether a write took effect is unknown. */
export class ExchangeNetworkError extends Error {
  override name = 'ExchangeNetworkError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly timedOut: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(
      `${method} ${url}: ${timedOut ? 'no answer in time' : `no answer (${String((options.cause as Error)?.message ?? options.cause)})`}`,
      options,
    );
  }
}

/** A FAILED order of `POST /orders-v3`, as `placeOrder` and `placeOrders({ rejectFailed: true })` throw it. */
export type FailedOrder = {
  /** Its position in the request. */
  index: number;
  orderId: string | null;
  clientOrderId?: string;
  reason: OrderRejectReason | (string & {});
  /** Set when the sequencer refused it (e.g. INSUFFICIENT_BALANCE): the create is in the journal. */
  commandId?: string;
};

/** Some orders of a request were refused (`reason` each); `results` holds every order's result. */
export class OrdersRejectedError extends Error {
  override name = 'OrdersRejectedError';
  constructor(
    readonly failed: readonly FailedOrder[],
    readonly results: readonly CreateOrderResult[],
  ) {
    super(
      `${failed.length} of ${results.length} orders refused: ${failed.map((f) => `#${f.index} ${f.reason}`).join(', ')}`,
    );
  }
  /** The reason of the first refused order. */
  get reason(): string {
    return this.failed[0]!.reason;
  }
}

/**
 * The exchange may or may not hold these orders: every attempt to post them ended without an answer (or
 * with a transient error after one went unanswered). Read them back by id (`getOrder`), or post the same
 * signed orders again (`retry`): a retry can never place one twice.
 */
export class PlacementUnknownError extends Error {
  override name = 'PlacementUnknownError';
  constructor(
    readonly orders: readonly { orderId: `0x${string}`; clientOrderId?: string }[],
    readonly retry: () => Promise<CreateOrderResult[]>,
    options: { cause: unknown },
  ) {
    super(
      `placing ${orders.length} orders: no answer (${String((options.cause as Error)?.message)})`,
      options,
    );
  }
}

/** An order the SDK refuses before posting it: the exchange would refuse it (code as the exchange's). */
export class OrderCheckError extends Error {
  override name = 'OrderCheckError';
  constructor(
    readonly code: ErrorCode | OrderRejectReason,
    message: string,
    readonly details: Record<string, string | number> = {},
  ) {
    super(`${code}: ${message}`);
  }
}
