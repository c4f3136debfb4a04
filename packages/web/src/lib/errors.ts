import { ExchangeApiError, OrderCheckError } from '@oddsbook/client';

const REASONS: Record<string, string> = {
  BAD_AUTH: 'The exchange did not accept your credentials: sign in again.',
  MARKET_NOT_FOUND: 'This market does not exist.',
  MARKET_INACTIVE: 'This market is closed for betting.',
  FIXTURE_SUSPENDED: 'Betting on this game is suspended.',
  LIVE_DISABLED: 'This market cannot be bet on while the game is in play.',
  ODDS_NOT_ON_LADDER: 'Those odds are not on the exchange’s odds ladder.',
  TOTAL_BET_SIZE_TOO_LOW: 'The stake is below the market’s minimum.',
  TOTAL_BET_SIZE_TOO_HIGH: 'The stake is above the largest accepted size.',
  INSUFFICIENT_BALANCE: 'Your available balance is too low for this stake.',
  NO_LIQUIDITY: 'Nothing on the other side matched your odds.',
  INVALID_SIGNATURE: 'The order’s signature is not valid.',
  SIGNATURE_MISMATCH: 'The order was not signed by your wallet’s address.',
  ORDER_ALREADY_EXISTS: 'This exact order was already placed.',
  RATE_LIMITED: 'Too many requests: wait a moment and try again.',
  API_KEY_LIMIT: 'This account holds the most API keys it may: revoke one first.',
  PARLAY_LEG_NOT_FOUND: 'this market does not exist.',
  PARLAY_LEG_INACTIVE: 'this market does not take bets now: remove it from the slip.',
  PARLAY_LEGS_SAME_EVENT: 'another leg is of the same game: keep one leg per game.',
  PARLAY_REQUESTER_ONLY: 'Only the bettor who asked for this parlay may take its offers.',
  PARLAY_QUOTE_WINDOW_OPEN: 'The offers on this parlay show when its quote window closes: take one then.',
  PARLAY_QUOTE_WINDOW_CLOSED: 'The quote window of this parlay has closed.',
};

/** The message of an error body: a sentence, a code, or the list of validation messages. */
function bodyText(body: unknown): string {
  const { message, errorCode } = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const text = message ?? errorCode;
  return Array.isArray(text) ? text.join('; ') : typeof text === 'string' ? text : '';
}

/** A failure in plain words for the page: a sentence for its code, or the exchange's own sentence. */
export function plainError(error: unknown): string {
  if (error instanceof ExchangeApiError) {
    // A refused parlay leg: the body names it by its position in the request.
    const legIndex = (error.body as { legIndex?: unknown } | null)?.legIndex;
    if (typeof legIndex === 'number' && REASONS[error.code])
      return `Leg ${legIndex + 1}: ${REASONS[error.code]}`;
    if (error.code === 'RATE_LIMITED') return REASONS.RATE_LIMITED!;
    if (error.code === 'SERVICE_UNAVAILABLE') return 'The exchange is busy or stopping: try again shortly.';
    return REASONS[error.code] ?? (bodyText(error.body) || `The exchange answered ${error.status}.`);
  }
  // Refused by the SDK before posting, with the code the exchange would have answered.
  if (error instanceof OrderCheckError) return REASONS[error.code] ?? error.message;
  if (error && typeof error === 'object' && 'code' in error && (error as { code: unknown }).code === 4001)
    return 'You declined the request in your wallet.';
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The reason of an order the exchange refused or cancelled, in plain words. */
export function plainReason(reason: string | null | undefined): string {
  if (!reason) return '';
  return REASONS[reason] ?? reason.toLowerCase().replaceAll('_', ' ');
}
