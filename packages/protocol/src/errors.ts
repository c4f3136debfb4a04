/**
 * Error body shapes of the API and the stable codes the server answers with: request-level codes
 * (`ErrorCode`, the failure of a whole request) and the reasons of single orders (`OrderRejectReason` of a
 * FAILED `POST /orders-v3` result, `OrderInactiveReason` of an order row that left the book,
 * `CancelFailureReason` of an id `DELETE /orders-v3` could not cancel). Codes are SCREAMING_SNAKE and never
 * renamed or reused. docs/errors.md lists every one with what to do about it, from the tables below.
 */

/**
 * Most errors: `message` is a code, a sentence, or a list of validation messages; `code` is the stable
 * code a program branches on (an `ErrorCode`).
 */
export type ErrorBody = { message: string | string[]; error: string; statusCode: number; code: ErrorCode };

/** 503 Service Unavailable has no `error` field. */
export type UnavailableBody = { message: string; statusCode: 503 };

/** 400 on POST /orders-v3 when a stake is below the market minimum. */
export type BetSizeTooLowBody = { message: 'TOTAL_BET_SIZE_TOO_LOW'; marketHash: string; minimum: string };

/** Legacy (v2) routes. */
export type LegacyFailureBody = { status: 'failure'; message?: string; errorCode: string };

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

export function errorBody(statusCode: number, message: string | string[], code: ErrorCode): ErrorBody {
  return { message, error: HTTP_ERROR_NAMES[statusCode] ?? 'Error', statusCode, code };
}

/** What a code means and what a client should do about it. */
export type CodeInfo = {
  /** The HTTP statuses it comes with (a reason: the status of the answer that carries it). */
  readonly status: readonly number[];
  readonly when: string;
  readonly action: string;
};

const RETRY = 'Transient: retry after a pause (the SDK does, with backoff).';
const FIX_REQUEST = 'Fix the request; sending it again unchanged fails again.';

/** Every request-level code the server answers with, by group (docs/errors.md follows this order). */
export const ERROR_CODES = {
  // ---------------------------------------------------------------- any route
  BAD_AUTH: {
    status: [401],
    when: 'The API key (x-svc-api-key), the session token (Authorization: Bearer) or the operator token (x-admin-token) is missing, unknown, expired or revoked.',
    action: 'Check the credential; a revoked key or an ended session needs a new one. Never retried.',
  },
  BAD_ADMIN_TOKEN: {
    status: [401],
    when: 'Reserved: a wrong operator token answers BAD_AUTH.',
    action: 'As BAD_AUTH.',
  },
  BAD_REQUEST: {
    status: [400],
    when: 'Generic code of a 400 whose body names no code (its `message` says what is wrong).',
    action: FIX_REQUEST,
  },
  FORBIDDEN: {
    status: [403],
    when: 'Generic code of a 403 whose body names no code.',
    action: 'The credential may not do this; read `message`.',
  },
  CONFLICT: {
    status: [409],
    when: 'Generic code of a 409 whose body names no code.',
    action: 'The resource is not in a state that allows it; read `message`.',
  },
  NOT_FOUND: {
    status: [404],
    when: 'The resource does not exist (generic code of a 404 that names no other).',
    action: 'Check the id or path.',
  },
  ROUTE_NOT_FOUND: {
    status: [404],
    when: 'No route has this method and path ("Cannot GET /x").',
    action: 'Check the method and path against docs/api.md (a client of another version?).',
  },
  VALIDATION_FAILED: {
    status: [400],
    when: 'The body, query or path parameters do not match the route schema; `message` lists every problem.',
    action: FIX_REQUEST,
  },
  MALFORMED_JSON: {
    status: [400],
    when: 'The body is not valid JSON, or nests deeper than the parser takes.',
    action: FIX_REQUEST,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: [415],
    when: 'A body that is not application/json.',
    action: 'Send JSON with content-type application/json.',
  },
  PAYLOAD_TOO_LARGE: {
    status: [413],
    when: 'The body is larger than the route takes.',
    action: 'Send less per request (at most 10 orders per POST /orders-v3, 100 ids per cancel).',
  },
  MISSING_HOST: {
    status: [400],
    when: 'An HTTP/1.1 request without a Host header.',
    action: 'Send a Host header (every HTTP client does).',
  },
  REQUEST_TIMEOUT: {
    status: [408],
    when: 'The request was not received in time (a stalled upload): it was not processed.',
    action: 'Send it again (the SDK does, on every route).',
  },
  HEADERS_TOO_LARGE: {
    status: [431],
    when: 'The request headers are larger than the server takes.',
    action: 'Send fewer or smaller headers.',
  },
  RATE_LIMITED: {
    status: [429],
    when: "Over one of the account's request limits (or the client address's, without credentials).",
    action: 'Wait the Retry-After header\u2019s seconds, then retry (the SDK does). Spread requests out.',
  },
  SERVICE_UNAVAILABLE: {
    status: [503],
    when: 'The exchange is busy (too many orders waiting for their check), catching up, stopping, or its database does not answer.',
    action: `${RETRY} Orders: the SDK sends the same signed orders again, so a retry cannot place twice.`,
  },
  CANCEL_NOT_PUBLISHED: {
    status: [500],
    when: 'DELETE /orders-v3/market: the cancel commands could not be published to the order book (the exchange is overloaded or stopping); nothing was cancelled.',
    action: 'Retry; read GET /orders-v3?marketHash= to see what is still open.',
  },
  INTERNAL_ERROR: {
    status: [500],
    when: 'A fault in the exchange; the request id (x-request-id) is in its log.',
    action: 'Report it with the request id. Whether a write took effect is unknown: read it back.',
  },

  // ---------------------------------------------------------------- orders
  TOTAL_BET_SIZE_TOO_LOW: {
    status: [400],
    when: 'An order stakes less than its market minimum (body: {message, marketHash, minimum}); the whole request is refused.',
    action:
      'Stake at least `minimum` base units (the market\u2019s `minBetSize`; the SDK order builder checks it first).',
  },
  INVALID_EXPIRY: {
    status: [400],
    when: 'An order\u2019s expiry is 0, in the past, or so far ahead it must be milliseconds (a v2 order: its apiExpiry, or a signed expiry other than 2209006800).',
    action: 'Send a future time in unix seconds.',
  },
  EXPIRY_INSIDE_BETTING_DELAY: {
    status: [400],
    when: 'An order would expire before its market\u2019s betting delay + 2 s have passed.',
    action:
      'Expire later than now + the market\u2019s `bettingDelay` + 2 s (the SDK order builder checks it).',
  },
  ORDERS_MUST_SHARE_ONE_MAKER: {
    status: [400],
    when: 'The orders of one request name different makers.',
    action: 'Post each maker\u2019s orders in its own request, with its own API key.',
  },
  MAKER_NOT_AUTHENTICATED: {
    status: [400],
    when: 'The orders\u2019 maker is not the account of the API key.',
    action: 'Sign with the key of the account the API key belongs to.',
  },
  PROXY_NOT_DEPLOYED: {
    status: [400, 409],
    when: 'The account\u2019s proxy wallet is not deployed yet (orders: 400; faucet and multisig: 409).',
    action: 'POST /user/deploy-proxy, wait until GET /user/proxy says deployed, then retry.',
  },
  TOO_MANY_ORDERS: {
    status: [400],
    when: 'More unique order ids in one cancel than `limits.maxCancelOrders` (100).',
    action: 'Cancel in chunks of at most 100 ids.',
  },
  ORDER_NOT_FOUND: {
    status: [404],
    when: 'No order of this account has that id or client order id.',
    action: 'Check the id; another account\u2019s orders are not found either.',
  },
  BAD_MARKET_HASHES: {
    status: [400],
    when: 'marketHashes is empty, malformed or lists too many hashes (legacy shape on /markets/find).',
    action: 'Send 1 to 30 (markets/find) or 100 (odds/best) comma-separated 32-byte hashes.',
  },

  // ---------------------------------------------------------------- parlays
  PARLAY_LEG_NOT_FOUND: {
    status: [400],
    when: 'POST /parlays-v3: no market has a leg\u2019s marketHash (the body names the leg: marketHash, legIndex).',
    action: 'Pick each leg from GET /markets/active.',
  },
  PARLAY_LEG_INACTIVE: {
    status: [400],
    when: 'POST /parlays-v3: a leg\u2019s market does not take bets now (inactive, closed, resolved, in-play without live betting, its fixture suspended), or is itself a parlay market (the body names the leg).',
    action: 'Drop or replace that leg; pick legs from GET /markets/active.',
  },
  PARLAY_LEGS_SAME_EVENT: {
    status: [400],
    when: 'POST /parlays-v3: two legs are markets of one event (the body names the second).',
    action: 'Take at most one leg per event.',
  },
  PARLAY_BAD_BASE_TOKEN: {
    status: [400],
    when: 'POST /parlays-v3: baseToken is not this exchange\u2019s (GET /metadata/obv3 activeAsset.baseToken).',
    action: 'Send the metadata\u2019s base token.',
  },
  PARLAY_MARKET: {
    status: [409],
    when: 'Operator: a parlay market is settled by its legs\u2019 results, not resolved itself.',
    action: 'Resolve its leg markets.',
  },
  PARLAY_NOT_FOUND: {
    status: [404],
    when: 'GET /parlays-v3/{marketHash}: no parlay market has that hash.',
    action: 'Use the marketHash POST /parlays-v3 answered (or that parlay_markets:global published).',
  },

  // ---------------------------------------------------------------- listings
  INVALID_DATE_RANGE: {
    status: [400],
    when: 'endDate is earlier than startDate.',
    action: FIX_REQUEST,
  },
  INVALID_STATUS: {
    status: [400],
    when: 'A trade status filter that is not MATCHED, LOCKED, SETTLED or FAILED.',
    action: FIX_REQUEST,
  },
  BAD_NEXT_KEY: {
    status: [400],
    when: 'nextKey is not one this listing handed out (or of another sort order).',
    action: 'Pass the previous page\u2019s nextKey unchanged, with the same filters and sort.',
  },
  BAD_PAGINATION_KEY: {
    status: [400],
    when: 'paginationKey of /markets/active is not one it handed out.',
    action: 'Pass the previous page\u2019s nextKey unchanged.',
  },
  BAD_EVENT_IDS: {
    status: [400],
    when: 'An event id list with an empty or over-long id.',
    action: FIX_REQUEST,
  },
  TOO_MANY_EVENT_IDS: {
    status: [400],
    when: 'More event ids than the route takes in one call.',
    action: 'Ask in smaller groups.',
  },

  // ---------------------------------------------------------------- catalog
  MARKET_NOT_FOUND: {
    status: [404],
    when: 'No market with that hash.',
    action: 'Check the hash (lowercase 0x + 64 hex); list markets with GET /markets/active.',
  },
  FIXTURE_NOT_FOUND: { status: [404], when: 'No fixture with that event id.', action: 'Check the event id.' },
  LEAGUE_NOT_FOUND: { status: [404], when: 'No league with that id.', action: 'Check the league id.' },
  SPORT_NOT_FOUND: {
    status: [404],
    when: 'No sport with that id.',
    action: 'Check the sport id (GET /sports).',
  },
  ACCOUNT_NOT_FOUND: {
    status: [404],
    when: 'Reserved: no route answers it today.',
    action: 'Check the address.',
  },
  MARKET_EXISTS: {
    status: [409],
    when: 'Operator: a market of that event, type and line exists already.',
    action: 'Use the existing market (its hash is derived from the same fields).',
  },
  LEAGUE_EXISTS: {
    status: [409],
    when: 'Operator: a league with that label exists in the sport.',
    action: 'Use the existing league.',
  },
  FIXTURE_CLOSED: {
    status: [409],
    when: 'Operator: the fixture is finished, cancelled or postponed, or its closed markets took orders and cannot reopen.',
    action: 'Create a new fixture.',
  },
  QUARTER_LINE_MARKET: {
    status: [409],
    when: 'Operator: a quarter-line market is settled by its two legs, not resolved itself.',
    action: 'Resolve its leg markets.',
  },
  QUARTER_LINE_LEG_CLOSED: {
    status: [409],
    when: 'Operator: a leg of the quarter-line market exists only closed or resolved.',
    action: 'No quarter-line market on that line for this event.',
  },
  MARKET_ALREADY_RESOLVED: {
    status: [409],
    when: 'Operator: the market has a result already.',
    action: 'Nothing to do; GET /markets/find shows its outcome.',
  },
  UNKNOWN_MARKET_TYPE: {
    status: [400],
    when: 'Operator: a market type id the exchange does not know.',
    action: FIX_REQUEST,
  },
  SAME_TEAMS: {
    status: [400],
    when: 'Operator: both teams of a fixture have one name.',
    action: FIX_REQUEST,
  },
  SAME_OUTCOMES: {
    status: [400],
    when: 'Operator: both outcomes of a market have one name.',
    action: FIX_REQUEST,
  },
  LINE_REQUIRED: { status: [400], when: 'Operator: the market type needs a line.', action: FIX_REQUEST },
  LINE_NOT_ALLOWED: { status: [400], when: 'Operator: the market type has no line.', action: FIX_REQUEST },
  BAD_LINE: {
    status: [400],
    when: 'Operator: a line that is not a multiple of 0.25 in range.',
    action: FIX_REQUEST,
  },
  BAD_LEAGUE_LABEL: {
    status: [400],
    when: 'Operator: an empty or malformed league label.',
    action: FIX_REQUEST,
  },
  BAD_TEAM_NAME: { status: [400], when: 'Operator: an empty or malformed team name.', action: FIX_REQUEST },
  BAD_OUTCOME_NAME: {
    status: [400],
    when: 'Operator: an empty or malformed outcome name.',
    action: FIX_REQUEST,
  },
  BAD_MIN_BET_SIZE: { status: [400], when: 'Operator: a market minimum out of range.', action: FIX_REQUEST },

  // ---------------------------------------------------------------- keys and sign-in
  API_KEY_NOT_FOUND: {
    status: [404],
    when: 'No active API key with that id on this account (or at all, for the operator).',
    action: 'List the keys (GET /account/api-keys) for their ids.',
  },
  API_KEY_LIMIT: {
    status: [409],
    when: 'The account holds the most active API keys it may (10).',
    action: 'Revoke one first.',
  },
  SIGN_IN_FAILED: {
    status: [401],
    when: 'The EIP-4361 sign-in message or its signature was refused (`message` says why: unknown or used nonce, wrong domain or chain, expired, not signed by its address).',
    action:
      'Ask a new nonce (POST /auth/siwe/nonce) and sign a fresh message for this exchange\u2019s origin and chain.',
  },

  // ---------------------------------------------------------------- wallets and operator
  INVALID_ADDRESS: {
    status: [400],
    when: 'A field that must be an address is not one.',
    action: FIX_REQUEST,
  },
  INVALID_AMOUNT: {
    status: [400],
    when: 'Operator faucet: an amount of 0 or beyond 10^18 base units.',
    action: FIX_REQUEST,
  },
  INVALID_TRANSACTION: {
    status: [400],
    when: 'Operator: a chain transaction that is not one the chain knows.',
    action: FIX_REQUEST,
  },
  INVALID_SAFE_TRANSACTION: {
    status: [400],
    when: 'A Safe transaction that cannot be encoded.',
    action: FIX_REQUEST,
  },
  INVALID_SETTLEMENT: { status: [400], when: 'Chain: a malformed settlement batch.', action: FIX_REQUEST },
  SETTLEMENT_OUT_OF_ORDER: {
    status: [409],
    when: 'Chain: a settlement batch out of journal order.',
    action: 'Submit the batches in order.',
  },
  FAULTS_UNSUPPORTED: {
    status: [409],
    when: 'Operator: this chain has no fault injection.',
    action: 'Only the embedded chain injects faults.',
  },
  NO_FAULT: { status: [400], when: 'Operator: POST /admin/faults named no fault.', action: FIX_REQUEST },
  INVALID_FAULT: { status: [400], when: 'Operator: a fault the chain does not know.', action: FIX_REQUEST },

  // ---------------------------------------------------------------- multisig (add a signer)
  SAFE_NOT_ON_ACCOUNT: {
    status: [403],
    when: 'The Safe is neither the account\u2019s proxy wallet nor one it is an owner of.',
    action:
      'Use the account\u2019s own proxy (GET /user/multisig) or sign in as one of the Safe\u2019s owners.',
  },
  SIGNER_NOT_AUTHENTICATED: {
    status: [400],
    when: 'signerAddress is not the account of the API key.',
    action: 'Each owner confirms with its own API key.',
  },
  INVALID_REQUEST: {
    status: [400],
    when: 'A malformed address, hash, threshold or transaction.',
    action: FIX_REQUEST,
  },
  SAFE_NOT_DEPLOYED: {
    status: [409],
    when: 'The Safe is not deployed yet.',
    action: 'Deploy the proxy wallet first.',
  },
  INVALID_NEW_SIGNER: {
    status: [400],
    when: 'The new signer is the zero address, the sentinel 0x\u202601, or the Safe itself.',
    action: FIX_REQUEST,
  },
  SIGNER_ALREADY_OWNER: {
    status: [400],
    when: 'The new signer is an owner already.',
    action: 'Nothing to add.',
  },
  INVALID_THRESHOLD: {
    status: [400],
    when: 'The threshold is outside 1..owners + 1.',
    action: FIX_REQUEST,
  },
  NONCE_IN_FLIGHT: {
    status: [409],
    when: 'A transaction at the Safe\u2019s nonce is submitted and has not landed.',
    action: 'Wait for it (a block or two), then prepare again.',
  },
  NOT_ADD_SIGNER: {
    status: [400],
    when: 'The signed transaction is not an add-signer of this Safe.',
    action: 'Sign the typedData that prepare returned, unchanged.',
  },
  SAFE_TX_HASH_MISMATCH: {
    status: [400],
    when: 'safeTransactionData does not hash to safeTxHash for this Safe and chain.',
    action: 'Send the safeTransactionData of the same prepare, unchanged.',
  },
  SAFE_TX_NOT_FOUND: {
    status: [400],
    when: 'No prepare produced this safeTxHash.',
    action: 'Prepare again.',
  },
  SAFE_TX_REPLACED: {
    status: [409],
    when: 'A later prepare or another transaction used the Safe\u2019s nonce.',
    action: 'Prepare again and sign the new transaction.',
  },
  SAFE_TX_FAILED: {
    status: [409],
    when: 'The transaction landed and reverted; its nonce is unused.',
    action: 'Prepare again.',
  },
  SAFE_TX_ALREADY_EXECUTED: {
    status: [409],
    when: 'The transaction already executed without this owner\u2019s confirmation.',
    action: 'Nothing to do: read GET /user/multisig.',
  },
  INVALID_SIGNATURE: {
    status: [400],
    when: 'Not a 65-byte signature, or nothing recovers from it.',
    action: 'Sign the typedData as it is (eth_signTypedData_v4).',
  },
  SIGNER_MISMATCH: {
    status: [400],
    when: 'The signature recovers to someone other than signerAddress.',
    action: 'Sign with signerAddress\u2019s key.',
  },
  SIGNER_NOT_OWNER: {
    status: [403],
    when: 'The signature recovers to an address that is not a current owner.',
    action: 'Only current owners confirm.',
  },

  // ---------------------------------------------------------------- legacy refunds (GET /trades/portfolio/refunds)
  BETTOR_MISMATCH: {
    status: [403],
    when: 'bettor is not the account of the API key (legacy shape).',
    action: 'Ask for the key\u2019s own refunds (the SDK fills bettor in).',
  },
  BAD_BETTOR: {
    status: [400],
    when: 'bettor is missing or not an address (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_MARKET_HASH: {
    status: [400],
    when: 'marketHash is not a 32-byte hash (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_BASE_TOKEN: {
    status: [400],
    when: 'baseToken is not an address, or (v2 orders and fills) not the exchange\u2019s base token (legacy shape).',
    action: 'Send `activeAsset.baseToken` of GET /metadata/obv3.',
  },
  BAD_FILL_ORDER_HASH: {
    status: [400],
    when: 'fillOrderHash is malformed (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_MAKER: { status: [400], when: 'maker is not a boolean (legacy shape).', action: FIX_REQUEST },
  BAD_SORT_ASC: { status: [400], when: 'sortAsc is not a boolean (legacy shape).', action: FIX_REQUEST },
  BAD_PAGE: {
    status: [400],
    when: 'page is not a whole number in range (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_PER_PAGE: { status: [400], when: 'perPage is not 1..500 (legacy shape).', action: FIX_REQUEST },
  BAD_EVENTS_PAGE: {
    status: [400],
    when: 'eventsPage is not a whole number in range (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_EVENTS_PER_PAGE: {
    status: [400],
    when: 'eventsPerPage is not 1..500, or perPage \u00d7 eventsPerPage is over 5,000 (legacy shape).',
    action: FIX_REQUEST,
  },
  BAD_QUERY: {
    status: [400],
    when: 'Another malformed query parameter (legacy shape).',
    action: FIX_REQUEST,
  },

  // ---------------------------------------------------------------- legacy v2 API (docs/legacy.md), legacy shape
  V2_NO_LONGER_SUPPORTED: {
    status: [400],
    when: 'A v2 order route (/orders/new, /orders/fill/v2, the v2 cancels, GET /orders, GET /orders/odds/best, GET /metadata) from V2_CUTOVER_AT on; `message` is "OrderBook V2 is no longer supported".',
    action: 'Move to the v3 API: POST /orders-v3 makes and takes (docs/legacy.md, "Moving to v3").',
  },
  BAD_BODY: {
    status: [400],
    when: 'A v2 body, query or field that does not match the route (a missing field, a malformed hash, address or amount).',
    action: FIX_REQUEST,
  },
  TOO_MANY_DIFFERENT_MARKETS: {
    status: [400],
    when: 'POST /orders/new: the orders are on more than 3 markets.',
    action: 'Post at most 3 markets\u2019 orders per request.',
  },
  INVALID_EXECUTOR: {
    status: [400],
    when: 'A v2 order whose executor is not GET /metadata `executorAddress`.',
    action: 'Sign with the executor of GET /metadata.',
  },
  ODDS_NOT_ON_LADDER: {
    status: [400],
    when: 'A v2 order whose percentageOdds is not on the odds ladder.',
    action: 'Round to a multiple of oddsLadderStepSize.',
  },
  MAKER_SIGNATURE_MISMATCH: {
    status: [400],
    when: 'A v2 order or cancel whose signature does not recover to its maker.',
    action: 'Sign as docs/legacy.md shows (personal_sign of the order hash; EIP-712 for cancels).',
  },
  INVALID_ODDS: {
    status: [400],
    when: 'POST /orders/fill/v2: desiredOdds is not below 10^20 (or is 0).',
    action: 'Send the worst taker implied probability x 10^20 you accept.',
  },
  INVALID_ODDS_SLIPPAGE: {
    status: [400],
    when: 'POST /orders/fill/v2: oddsSlippage is not an integer 0 to 100.',
    action: FIX_REQUEST,
  },
  TAKER_SIGNATURE_MISMATCH: {
    status: [400],
    when: 'POST /orders/fill/v2: takerSig does not recover to taker over the fill\u2019s EIP-712 Details.',
    action: 'Sign the Details/FillObject typed data of docs/legacy.md with the taker\u2019s key.',
  },
  PROXY_ACCOUNT_INVALID: {
    status: [400],
    when: 'A v2 maker or taker whose proxy wallet is not deployed.',
    action: 'POST /user/deploy-proxy (with an API key) and fund the proxy first.',
  },
  TAKER_AMOUNT_TOO_LOW: {
    status: [400],
    when: 'POST /orders/fill/v2: stakeWei is below the market\u2019s minimum stake.',
    action: 'Stake at least the market\u2019s `minBetSize`.',
  },
  MATCH_STATE_INVALID: {
    status: [400],
    when: 'POST /orders/fill/v2: the market is unknown, closed or not trading.',
    action: 'Check the market (GET /markets/find).',
  },
  META_TX_RATE_LIMIT_REACHED: {
    status: [400],
    when: 'POST /orders/fill/v2: the taker has 10 fills in flight already.',
    action: 'Wait for a fill to answer before sending another.',
  },
  FILL_ALREADY_SUBMITTED: {
    status: [400],
    when: 'POST /orders/fill/v2: a fill with this taker and fillSalt was sent before.',
    action: 'Use a new random fillSalt for every fill.',
  },
  INSUFFICIENT_SPACE: {
    status: [400],
    when: 'POST /orders/fill/v2: nothing could be filled within desiredOdds and oddsSlippage once the betting delay passed (or the taker\u2019s balance covers none of it).',
    action: 'Read GET /orders/odds/best, widen oddsSlippage, or fund the proxy wallet.',
  },
  CANCEL_REQUEST_ALREADY_PROCESSED: {
    status: [400],
    when: 'A v2 cancel with a salt this maker has used before.',
    action: 'Sign every cancel with a new random salt.',
  },
  STALE_CANCEL_TIMESTAMP: {
    status: [400],
    when: 'A v2 cancel whose signed timestamp is more than 10 minutes away from the exchange\u2019s clock.',
    action: 'Sign the cancel with the current unix time in seconds.',
  },
  MARKET_HASHES_OR_MAKER_REQUIRED: {
    status: [400],
    when: 'GET /orders without marketHashes, maker or orderHashes.',
    action: 'Name the markets, the maker or the orders.',
  },
  RATE_LIMIT_ORDER_REQUEST_MARKET_COUNT: {
    status: [400],
    when: 'GET /orders with more than 1,000 marketHashes.',
    action: 'Ask in groups of at most 1,000.',
  },
  BOTH_SPORTXEVENTID_MARKETHASHES_PRESENT: {
    status: [400],
    when: 'GET /orders with both marketHashes and sportXeventId.',
    action: 'Send one of them.',
  },
  TRADES_FILTER_REQUIRED: {
    status: [400],
    when: 'GET /trades without any of bettor, marketHashes, sportXeventId, startDate.',
    action: 'Send at least one of them.',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

const codeMap = <T extends Record<string, unknown>>(table: T) =>
  Object.freeze(Object.fromEntries(Object.keys(table).map((code) => [code, code]))) as {
    readonly [K in keyof T]: K;
  };

/** `ErrorCode.BAD_AUTH === 'BAD_AUTH'`: every request-level code by name. */
export const ErrorCode = codeMap(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** Why `POST /orders-v3` answered an order FAILED (`reason`); the other orders of the request are not affected. */
export const ORDER_REJECT_REASONS = {
  MARKET_NOT_FOUND: { status: [200], when: 'No market with that hash.', action: 'Check the marketHash.' },
  MARKET_INACTIVE: {
    status: [200],
    when: 'The market is not open for betting (not active, resolved, or a quarter-line leg no longer trades).',
    action: 'Pick an active market (GET /markets/active).',
  },
  FIXTURE_SUSPENDED: {
    status: [200],
    when: 'Betting on the fixture is suspended (interrupted, abandoned, coverage lost).',
    action: 'Wait for the fixture to resume (fixtures:global).',
  },
  LIVE_DISABLED: {
    status: [200],
    when: 'The game is in play and the market takes no in-play bets.',
    action: 'None until the next game; in-play markets have `liveEnabled`.',
  },
  MARKET_CLOSED: {
    status: [200],
    when: 'The market closed between admission and matching (sequencer).',
    action: 'Pick an active market.',
  },
  MARKET_RESOLVED: { status: [200], when: 'The market has a result.', action: 'Pick an active market.' },
  BAD_BASE_TOKEN: {
    status: [200],
    when: 'baseToken is not this exchange\u2019s (GET /metadata/obv3 activeAsset.baseToken).',
    action: 'Sign with the metadata\u2019s base token.',
  },
  ODDS_NOT_ON_LADDER: {
    status: [200],
    when: 'percentageOdds is not a multiple of the ladder step (0.125 %), or not strictly between 0 and 1.',
    action: 'Round to the ladder (the SDK order builder does: `tick`, or percentageOdds rounded).',
  },
  INVALID_TICK: { status: [200], when: 'The odds are at 0 on the ladder.', action: 'Send odds above 0.' },
  TOTAL_BET_SIZE_TOO_HIGH: {
    status: [200],
    when: 'The stake is above the largest order the exchange takes.',
    action: 'Split the stake over several orders.',
  },
  INVALID_SIZE: {
    status: [200],
    when: 'The stake is below the smallest order (limits.orderSizeMinimumBaseUnits) or above the largest.',
    action: 'Stake between the metadata\u2019s limits.',
  },
  INVALID_EXPIRY: {
    status: [200],
    when: 'The expiry is out of range.',
    action: 'Send a future time in unix seconds.',
  },
  ORDER_EXPIRED: {
    status: [200],
    when: 'The order had expired by the time it reached the sequencer.',
    action: 'Sign it again with a later expiry.',
  },
  INVALID_SIGNATURE: {
    status: [200],
    when: 'The signature is malformed or recovers to nothing.',
    action: 'Sign the EIP-712 order over GET /metadata/obv3 `domain` (the SDK does).',
  },
  MALLEABLE_SIGNATURE: {
    status: [200],
    when: 'The signature has a high s value (a malleated copy).',
    action: 'Sign again with a standard signer (low s).',
  },
  MALFORMED_ORDER: {
    status: [200],
    when: 'A signed field cannot be encoded (not hex of the right size, not a uint256).',
    action: 'Fix the order\u2019s fields.',
  },
  SIGNATURE_MISMATCH: {
    status: [200],
    when: 'The signature recovers to someone other than the maker.',
    action: 'Sign with the maker\u2019s key, over this exchange\u2019s domain and chain.',
  },
  ORDER_ALREADY_EXISTS: {
    status: [200],
    when: 'An order with this id (the same signed order) was placed before, or is in flight.',
    action: 'Nothing was placed twice. The SDK, on a retry, reads the order back and answers it SUBMITTED.',
  },
  DUPLICATE_ORDER_ID: {
    status: [200],
    when: 'The sequencer already holds an order with this id.',
    action: 'As ORDER_ALREADY_EXISTS.',
  },
  DUPLICATE_CLIENT_ORDER_ID: {
    status: [200],
    when: 'The account used this clientOrderId before.',
    action: 'Tag each order with a new clientOrderId.',
  },
  PARLAY_REQUESTER_ONLY: {
    status: [200],
    when: 'A parlay market until its takeUntil: only the requester may bet the parlay (outcome one); others may only offer (outcome two).',
    action: 'Quote by betting outcome two; to bet a parlay, request your own (POST /parlays-v3).',
  },
  PARLAY_QUOTE_WINDOW_OPEN: {
    status: [200],
    when: 'The requester ordered on its parlay market before the quote window closed: the offers are sealed until quoteWindowEndsAt.',
    action:
      'Wait until quoteWindowEndsAt, read the offers (GET /parlays-v3/{marketHash} or the book), then take one.',
  },
  PARLAY_QUOTE_WINDOW_CLOSED: {
    status: [200],
    when: 'An offer on a parlay market after its quote window closed: the requester would never see it.',
    action: 'Quote within the window (quoteWindowEndsAt); follow parlay_markets:global for new requests.',
  },
  INSUFFICIENT_BALANCE: {
    status: [200],
    when: 'The available balance (less what resting orders promise, and what the account owes) does not cover the stake; refused by the sequencer (the result carries its commandId).',
    action: 'Stake less, cancel resting orders, or fund the proxy wallet (GET /user/balance-v3).',
  },
} as const satisfies Record<string, CodeInfo>;

export type OrderRejectReason = keyof typeof ORDER_REJECT_REASONS;
export const OrderRejectReason = codeMap(ORDER_REJECT_REASONS);

/** Why an order left the book: its row's `inactiveReason` (and an outcome's `cancelReason`). */
export const ORDER_INACTIVE_REASONS = {
  FILLED: { status: [200], when: 'Fully matched.', action: 'None.' },
  USER_REQUESTED: { status: [200], when: 'Cancelled by its account.', action: 'None.' },
  EXPIRED: { status: [200], when: 'Its expiry passed.', action: 'Place a new order to keep quoting.' },
  NO_LIQUIDITY: {
    status: [200],
    when: 'An IOC or FOK order found nothing (or not enough, for FOK) to match at its odds.',
    action: 'Take at worse odds, or rest a GTC order.',
  },
  INSUFFICIENT_BALANCE: {
    status: [200],
    when: 'The balance fell below what the resting orders promise (a taker spent it, a settlement failed): the newest orders go first.',
    action: 'Fund the proxy wallet or quote less.',
  },
  EVENT_LIFECYCLE: {
    status: [200],
    when: 'The market closed or was resolved, or its fixture was suspended.',
    action: 'Quote again once the market reopens (markets:global, fixtures:global).',
  },
  HEARTBEAT_TIMEOUT: {
    status: [200],
    when: 'The account\u2019s heartbeat was armed and not refreshed in time: every open order was cancelled.',
    action: 'Refresh it more often than its timeout (the SDK keepAlive does).',
  },
  SYSTEM: { status: [200], when: 'Withdrawn by the exchange (operator action).', action: 'Place it again.' },
  V2_CUTOVER: {
    status: [200],
    when: 'A v2 order (POST /orders/new or /orders/fill/v2) still open at V2_CUTOVER_AT: the exchange cancelled every one.',
    action: 'Quote again through POST /orders-v3 (docs/legacy.md, "Moving to v3").',
  },
} as const satisfies Record<string, CodeInfo>;

export type OrderInactiveReason = keyof typeof ORDER_INACTIVE_REASONS;

/** Why `DELETE /orders-v3` did not cancel an id (`notCancelled[].reason`, `unconfirmed[].reason`). */
export const CANCEL_FAILURE_REASONS = {
  NOT_FOUND: {
    status: [200],
    when: 'Not an open order of the account: unknown, another account\u2019s, filled, expired or cancelled already.',
    action: 'None: it is not open.',
  },
  CONFIRMATION_TIMEOUT: {
    status: [200],
    when: 'The cancel was submitted and not committed within 5 s.',
    action: 'Read the order back (GET /orders-v3/{orderId}); cancelling again is safe.',
  },
} as const satisfies Record<string, CodeInfo>;

export type CancelFailureReason = keyof typeof CANCEL_FAILURE_REASONS;
