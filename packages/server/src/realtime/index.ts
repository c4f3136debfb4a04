export {
  type ChannelAccess,
  type ChannelAuthorizer,
  type ChannelPolicy,
  type ChannelPolicyOptions,
  createChannelPolicy,
  DEFAULT_STREAM_SETTINGS,
  defaultAuthorize,
} from './channel-policy.js';
export { DISCONNECTS, ERRORS } from './codes.js';
export { HistoryBudget, KEPT_OVERHEAD_BYTES, keptBytes } from './history-budget.js';
export {
  createRealtimeHub,
  type PublishInput,
  type PublishResult,
  type RealtimeHub,
  type RealtimeHubStats,
} from './hub.js';
export type { RealtimeHubOptions, RealtimeLogger, TokenVerifier } from './options.js';
export { defaultMaxHistoryBytes } from './options.js';
export type { RecoveryMode, StreamSettings } from './stream.js';
export {
  createRealtimeToken,
  createRealtimeTokenVerifier,
  type RealtimeIdentity,
  RealtimeTokenError,
  verifyRealtimeToken,
} from './token.js';
