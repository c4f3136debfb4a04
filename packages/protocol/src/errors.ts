/** Error body shapes of the API and the stable codes the server answers with. */

/** Most errors: `message` is a code, a sentence, or a list of validation messages. */
export type ErrorBody = { message: string | string[]; error: string; statusCode: number };

/** 503 Service Unavailable has no `error` field. */
export type UnavailableBody = { message: string; statusCode: 503 };

/** 400 on POST /orders-v3 when a stake is below the market minimum. */
export type BetSizeTooLowBody = { message: 'TOTAL_BET_SIZE_TOO_LOW'; marketHash: string; minimum: string };

/** Legacy (v2) routes. */
export type LegacyFailureBody = { status: 'failure'; errorCode: string };

/** HTTP reason phrases used in `error`. */
export const HTTP_ERROR_NAMES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return { message, error: HTTP_ERROR_NAMES[statusCode] ?? 'Error', statusCode };
}

/** Stable request-level error codes (SCREAMING_SNAKE; never renamed or reused). */
export const ErrorCode = {
  BAD_AUTH: 'BAD_AUTH',
  BAD_ADMIN_TOKEN: 'BAD_ADMIN_TOKEN',
  NOT_FOUND: 'NOT_FOUND',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  MALFORMED_JSON: 'MALFORMED_JSON',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  MISSING_HOST: 'MISSING_HOST',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  BAD_MARKET_HASHES: 'BAD_MARKET_HASHES',
  TOTAL_BET_SIZE_TOO_LOW: 'TOTAL_BET_SIZE_TOO_LOW',
  PROXY_NOT_DEPLOYED: 'PROXY_NOT_DEPLOYED',
  ACCOUNT_NOT_FOUND: 'ACCOUNT_NOT_FOUND',
  LEAGUE_NOT_FOUND: 'LEAGUE_NOT_FOUND',
  FIXTURE_NOT_FOUND: 'FIXTURE_NOT_FOUND',
  MARKET_NOT_FOUND: 'MARKET_NOT_FOUND',
  MARKET_EXISTS: 'MARKET_EXISTS',
  SPORT_NOT_FOUND: 'SPORT_NOT_FOUND',
  API_KEY_NOT_FOUND: 'API_KEY_NOT_FOUND',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
