/**
 * Parlays (docs/parlays.md): a bettor asks for quotes on a combination of legs, the exchange makes a market
 * for that request and broadcasts it on `parlay_markets:global`, makers post ordinary v3 orders on it during
 * the quote window, and the requester alone may take one until `takeUntil`. The legs' results settle it.
 */
import { type Static, Type } from 'typebox';
import { MarketLeg } from './catalog.js';
import { Address, Bytes32, UintString } from './common.js';

const DateTime = Type.String({ format: 'date-time' });

/** The most legs a parlay takes, and the fewest. */
export const PARLAY_MAX_LEGS = 10;
export const PARLAY_MIN_LEGS = 2;

/** One leg of a request: a market and the outcome the bettor picks on it. */
export const ParlayLegInput = Type.Object(
  {
    marketHash: Bytes32,
    /** True: the bettor needs the leg's outcome one; false: its outcome two. */
    bettingOutcomeOne: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ParlayLegInput = Static<typeof ParlayLegInput>;

/**
 * `POST /parlays-v3`: 2 to 10 legs, each an active market of a different event (not a parlay market).
 * `requestSize` (base units) tells makers the stake the bettor has in mind; it does not cap their offers.
 */
export const ParlayRequestBody = Type.Object(
  {
    baseToken: Address,
    legs: Type.Array(ParlayLegInput, { minItems: PARLAY_MIN_LEGS, maxItems: PARLAY_MAX_LEGS }),
    requestSize: Type.Optional(UintString),
  },
  { additionalProperties: false },
);
export type ParlayRequestBody = Static<typeof ParlayRequestBody>;

/**
 * The answer of `POST /parlays-v3`: the market made for the request. Makers quote on it until
 * `quoteWindowEndsAt`; the requester sees the offers from then on and may take one until `takeUntil`, when
 * the market closes (resting offers cancelled, `EVENT_LIFECYCLE`).
 */
export const ParlayRequestResult = Type.Object({
  marketHash: Bytes32,
  legs: Type.Array(Type.Object({ marketHash: Bytes32, bettingOutcomeOne: Type.Boolean() })),
  quoteWindowEndsAt: DateTime,
  takeUntil: DateTime,
});
export type ParlayRequestResult = Static<typeof ParlayRequestResult>;

export const PARLAY_STATES = ['QUOTING', 'TAKING', 'CLOSED', 'SETTLED'] as const;

/**
 * A maker's offer on a parlay market: an ordinary resting order (maker frame: `percentageOdds` is the
 * maker's implied probability, `remainingSize` the maker's stake still open). An order betting outcome two
 * lays the parlay; the requester takes it by betting outcome one.
 */
export const ParlayOffer = Type.Object({
  orderId: Bytes32,
  isMakerBettingOutcomeOne: Type.Boolean(),
  percentageOdds: UintString,
  totalBetSize: UintString,
  remainingSize: UintString,
  expiry: DateTime,
  createdAt: DateTime,
});
export type ParlayOffer = Static<typeof ParlayOffer>;

/** One leg of a parlay as `GET /parlays-v3/{marketHash}` shows it: the pick and the leg market's record. */
export const ParlayLeg = Type.Object({
  marketHash: Bytes32,
  bettingOutcomeOne: Type.Boolean(),
  market: MarketLeg,
});
export type ParlayLeg = Static<typeof ParlayLeg>;

/**
 * `GET /parlays-v3/{marketHash}` (API key): the request and the offers the caller may see. The requester
 * sees, once the quote window has closed, the open offers posted within it (never before, never later
 * ones); anyone else sees its own open offers only.
 */
export const ParlayDetail = Type.Object({
  marketHash: Bytes32,
  requester: Address,
  baseToken: Address,
  /** Absent when the request named none. */
  requestSize: Type.Optional(UintString),
  legs: Type.Array(ParlayLeg),
  createdAt: DateTime,
  quoteWindowEndsAt: DateTime,
  takeUntil: DateTime,
  /** QUOTING until `quoteWindowEndsAt`, TAKING until `takeUntil`, then CLOSED, SETTLED once its legs decide it. */
  state: Type.Unsafe<(typeof PARLAY_STATES)[number]>({ type: 'string', enum: [...PARLAY_STATES] }),
  /** 0 void, 1 every leg won, 2 a leg lost; present once settled. */
  outcome: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 })),
  offers: Type.Array(ParlayOffer),
});
export type ParlayDetail = Static<typeof ParlayDetail>;

/**
 * 400 on `POST /parlays-v3` for a refused leg: the common error shape plus the leg it names (`marketHash`
 * and its position `legIndex` in the request).
 */
export const ParlayLegRefusedBody = Type.Object(
  {
    message: Type.String(),
    error: Type.String(),
    statusCode: Type.Literal(400),
    code: Type.String(),
    marketHash: Type.String(),
    legIndex: Type.Integer({ minimum: 0 }),
  },
  { title: 'ParlayLegRefusedBody' },
);
export type ParlayLegRefusedBody = Static<typeof ParlayLegRefusedBody>;

/**
 * `GET /admin/fees` (operator): the exchange's fee account, which parlay fees are credited to at
 * settlement. `collectedAmount` is its balance on the exchange.
 */
export const FeeAccountState = Type.Object({
  address: Address,
  parlayFeeBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
  collectedAmount: UintString,
});
export type FeeAccountState = Static<typeof FeeAccountState>;
