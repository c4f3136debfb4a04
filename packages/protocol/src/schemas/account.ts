import { type Static, Type } from 'typebox';
import { Address } from './common.js';

/** Sign-In with Ethereum, browser sessions, self-service API keys and realtime tokens. */

const DateTime = Type.String({ format: 'date-time' });

/** `POST /auth/siwe/nonce`: a single-use nonce for the EIP-4361 message. */
export const SiweNonce = Type.Object({ nonce: Type.String(), expiresAt: DateTime, chainId: Type.Integer() });
export type SiweNonce = Static<typeof SiweNonce>;

/** The longest sign-in message the exchange reads. */
export const MAX_SIWE_MESSAGE_CHARS = 4096;

export const SiweVerifyBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: MAX_SIWE_MESSAGE_CHARS }),
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
  },
  { additionalProperties: false },
);
export type SiweVerifyBody = Static<typeof SiweVerifyBody>;

/** `GET /auth/session`: the signed-in account and when its session ends. */
export const SessionInfo = Type.Object({ address: Address, expiresAt: DateTime });
export type SessionInfo = Static<typeof SessionInfo>;

/** `POST /auth/siwe/verify`: the session token goes in `Authorization: Bearer`. */
export const SignedInSession = Type.Object({ sessionToken: Type.String(), ...SessionInfo.properties });
export type SignedInSession = Static<typeof SignedInSession>;

export const SignOutResult = Type.Object({ ended: Type.Boolean() });
export type SignOutResult = Static<typeof SignOutResult>;

/** One of the signed-in account's API keys (never the key itself). */
export const AccountApiKey = Type.Object({
  keyId: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  revokedAt: Type.Union([DateTime, Type.Null()]),
});
export type AccountApiKey = Static<typeof AccountApiKey>;

export const AccountApiKeyList = Type.Object({
  keys: Type.Array(AccountApiKey),
  maxActiveKeys: Type.Integer(),
});
export type AccountApiKeyList = Static<typeof AccountApiKeyList>;

export const CreateApiKeyBody = Type.Object(
  { label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

/** The new key, shown once. */
export const CreatedApiKey = Type.Object({ apiKey: Type.String(), ...AccountApiKey.properties });
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ApiKeyIdParams = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) });

export const RevokedApiKey = Type.Object({ keyId: Type.String(), revokedAt: DateTime });
export type RevokedApiKey = Static<typeof RevokedApiKey>;

/** `GET /user/realtime-token-v3/api-key` (and the legacy route, bare). */
export const RealtimeToken = Type.Object({ token: Type.String() });
export type RealtimeToken = Static<typeof RealtimeToken>;
