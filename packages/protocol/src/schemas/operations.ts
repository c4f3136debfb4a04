import { type Static, Type } from 'typebox';

/**
 * `GET /health`: liveness (503 when the database does not answer). A cluster node serving the API adds its
 * roles and state, as in `GET /admin/cluster` (503 once one of its roles is deposed).
 */
export const Health = Type.Object({
  healthy: Type.Boolean(),
  network: Type.String(),
  chainId: Type.Integer(),
  uptimeSeconds: Type.Integer(),
  roles: Type.Optional(Type.Array(Type.String())),
  state: Type.Optional(Type.String()),
  epoch: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  lastSeq: Type.Optional(Type.Integer()),
});
export type Health = Static<typeof Health>;
