import { type Static, Type } from 'typebox';

/** `GET /health`: liveness (503 when the database does not answer). */
export const Health = Type.Object({
  healthy: Type.Boolean(),
  network: Type.String(),
  chainId: Type.Integer(),
  uptimeSeconds: Type.Integer(),
});
export type Health = Static<typeof Health>;
