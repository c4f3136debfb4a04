import { type Static, type TSchema, Type } from 'typebox';

/** A 20-byte hex address (any case on input; the server answers with the checksummed form). */
export const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '20-byte hex address' });

/** A 32-byte hex value, such as a marketHash or an orderId. */
export const Bytes32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: '32-byte hex string' });

/** An unsigned integer as a decimal string (money and odds are never JSON numbers). */
export const UintString = Type.String({
  pattern: '^(0|[1-9][0-9]{0,77})$',
  description: 'uint256 as a decimal string',
});

/** A string that is one of `values`; typed as their union. */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Every successful response: `{status: "success", data}`. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal('success'), data }, { additionalProperties: false });

/** The common error shape `{message, error, statusCode}` (every 4xx but the two below). */
export const ErrorBodySchema = Type.Object(
  {
    message: Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'a code (BAD_AUTH), a sentence, or the list of validation messages',
    }),
    error: Type.String({ description: 'the HTTP reason phrase: Bad Request, Unauthorized, ...' }),
    statusCode: Type.Integer(),
    code: Type.String({
      description: 'the stable code a program branches on (docs/errors.md lists every one)',
    }),
  },
  { title: 'ErrorBody', description: 'Common error shape' },
);

/** 503 Service Unavailable: no `error` field. */
export const UnavailableBodySchema = Type.Object(
  { message: Type.String(), statusCode: Type.Literal(503) },
  { title: 'UnavailableBody', description: '503 error shape' },
);

/** 400 on `POST /orders-v3` when a stake is below the market minimum. */
export const BetSizeTooLowBodySchema = Type.Object(
  {
    message: Type.Literal('TOTAL_BET_SIZE_TOO_LOW'),
    marketHash: Bytes32,
    minimum: Type.String({ description: 'the market minimum in base units, a decimal string' }),
  },
  { title: 'BetSizeTooLowBody' },
);

/** Legacy (v2) routes: `{status: "failure", errorCode}`. */
export const LegacyFailureBodySchema = Type.Object(
  {
    status: Type.Literal('failure'),
    message: Type.Optional(
      Type.String({ description: 'after V2_CUTOVER_AT: "OrderBook V2 is no longer supported"' }),
    ),
    errorCode: Type.String(),
  },
  { title: 'LegacyFailureBody' },
);

export type Address = Static<typeof Address>;
