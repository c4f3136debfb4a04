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

export const ErrorBodySchema = Type.Object(
  {
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.String(),
    statusCode: Type.Integer(),
  },
  { description: 'Common error shape' },
);

export type Address = Static<typeof Address>;
