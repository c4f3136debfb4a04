/**
 * Centrifugo client-protocol error and disconnect codes, exactly as the centrifuge Go library
 * (errors.go, disconnect.go) defines them. The centrifuge-js client decides from these whether to
 * retry, reconnect or stop, so they must not drift.
 */

export type ProtocolError = { readonly code: number; readonly message: string; readonly temporary?: true };

/** Reply errors (`{"id":N,"error":{...}}`). */
export const ERRORS = {
  internal: { code: 100, message: 'internal server error', temporary: true },
  unauthorized: { code: 101, message: 'unauthorized' },
  unknownChannel: { code: 102, message: 'unknown channel' },
  permissionDenied: { code: 103, message: 'permission denied' },
  methodNotFound: { code: 104, message: 'method not found' },
  alreadySubscribed: { code: 105, message: 'already subscribed' },
  limitExceeded: { code: 106, message: 'limit exceeded' },
  badRequest: { code: 107, message: 'bad request' },
  notAvailable: { code: 108, message: 'not available' },
  tokenExpired: { code: 109, message: 'token expired' },
  expired: { code: 110, message: 'expired' },
  tooManyRequests: { code: 111, message: 'too many requests', temporary: true },
  unrecoverablePosition: { code: 112, message: 'unrecoverable position' },
} as const satisfies Record<string, ProtocolError>;

export type Disconnect = { readonly code: number; readonly reason: string };

/**
 * Server-side unsubscribe codes (centrifuge's unsubscribe.go). 2500 and above make the client subscribe
 * again at once, recovering from its position when the channel is recoverable.
 */
export const UNSUBSCRIBES = {
  insufficientState: { code: 2500, reason: 'insufficient state' },
} as const satisfies Record<string, Disconnect>;

/**
 * WebSocket close codes. The client reconnects after 3000-3499 and stops after 3500-3999; it reads the
 * reason only if one is sent, so every close carries its reason.
 */
export const DISCONNECTS = {
  shutdown: { code: 3001, reason: 'shutdown' },
  internal: { code: 3004, reason: 'internal server error' },
  expired: { code: 3005, reason: 'connection expired' },
  slow: { code: 3008, reason: 'slow' },
  writeError: { code: 3009, reason: 'write error' },
  insufficientState: { code: 3010, reason: 'insufficient state' },
  noPong: { code: 3012, reason: 'no pong' },
  invalidToken: { code: 3500, reason: 'invalid token' },
  badRequest: { code: 3501, reason: 'bad request' },
  stale: { code: 3502, reason: 'stale' },
  forceDisconnect: { code: 3503, reason: 'force disconnect' },
  channelLimit: { code: 3505, reason: 'channel limit' },
  notAvailable: { code: 3508, reason: 'not available' },
} as const satisfies Record<string, Disconnect>;
