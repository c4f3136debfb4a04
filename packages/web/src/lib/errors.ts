import { ExchangeApiError } from '@oddsbook/client';

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
};

/** A failure in plain words for the page: the exchange's own sentence, or a sentence for its code. */
export function plainError(error: unknown): string {
  if (error instanceof ExchangeApiError) {
    const body = error.body as { message?: unknown; errorCode?: unknown } | null;
    const message = body?.message ?? body?.errorCode;
    const text = Array.isArray(message) ? message.join('; ') : String(message ?? '');
    if (error.status === 429) return REASONS.RATE_LIMITED!;
    if (error.status === 503) return 'The exchange is busy or stopping: try again shortly.';
    if (REASONS[text]) return REASONS[text]!;
    return text || `The exchange answered ${error.status}.`;
  }
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
