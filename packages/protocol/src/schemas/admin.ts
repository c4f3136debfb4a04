import { type Static, Type } from 'typebox';
import { FixtureStatusValue } from './catalog.js';
import { Address, Bytes32, UintString } from './common.js';

/** The operator API (`x-admin-token`): API keys, the sports catalog, results, the faucet, the chain. */

const DateTime = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 100 });
/** Seconds; fractions allowed (millisecond precision). */
const DelaySeconds = Type.Number({ minimum: 0, maximum: 300 });
/** Latest game time accepted: 2100-01-01; a millisecond timestamp by mistake is refused. */
const MAX_GAME_TIME = 4_102_444_800;
export const EventIdParam = Type.String({ minLength: 1, maxLength: 64 });

export const AdminCreateApiKeyBody = Type.Object(
  { address: Address, label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);
export type AdminCreateApiKeyBody = Static<typeof AdminCreateApiKeyBody>;

export const AdminCreatedApiKey = Type.Object({
  apiKey: Type.String(),
  keyId: Type.String(),
  address: Address,
});
export type AdminCreatedApiKey = Static<typeof AdminCreatedApiKey>;

export const AdminApiKey = Type.Object({
  keyId: Type.String(),
  address: Address,
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  revokedAt: Type.Union([DateTime, Type.Null()]),
});
export type AdminApiKey = Static<typeof AdminApiKey>;

export const AdminApiKeysQuery = Type.Object({ address: Address });
export const AdminApiKeyList = Type.Object({ keys: Type.Array(AdminApiKey) });
export type AdminApiKeyList = Static<typeof AdminApiKeyList>;

export const AdminRevokedApiKey = Type.Object({ keyId: Type.String(), revokedAt: Type.String() });
export type AdminRevokedApiKey = Static<typeof AdminRevokedApiKey>;

export const CreateLeagueBody = Type.Object(
  { sportId: Type.Integer({ minimum: 1 }), label: Name, liveDelaySeconds: Type.Optional(DelaySeconds) },
  { additionalProperties: false },
);
export type CreateLeagueBody = Static<typeof CreateLeagueBody>;
export const CreatedLeague = Type.Object({ leagueId: Type.Integer() });

export const CreateFixtureBody = Type.Object(
  {
    leagueId: Type.Integer({ minimum: 1 }),
    teamOneName: Name,
    teamTwoName: Name,
    gameTime: Type.Integer({ minimum: 0, maximum: MAX_GAME_TIME, description: 'unix seconds' }),
  },
  { additionalProperties: false },
);
export type CreateFixtureBody = Static<typeof CreateFixtureBody>;
export const CreatedFixture = Type.Object({ eventId: Type.String() });

export const CreateMarketBody = Type.Object(
  {
    eventId: EventIdParam,
    type: Type.Integer({ minimum: 1 }),
    outcomeOneName: Name,
    outcomeTwoName: Name,
    line: Type.Optional(
      Type.Union([Type.Number(), Type.String({ pattern: '^-?[0-9]{1,6}(\\.[0-9]{1,4})?$' })]),
    ),
    minBetSize: Type.Optional(UintString),
    bettingDelay: Type.Optional(DelaySeconds),
    mainLine: Type.Optional(Type.Boolean()),
    liveEnabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateMarketBody = Static<typeof CreateMarketBody>;
export const CreatedMarket = Type.Object({
  marketHash: Bytes32,
  quarterLineLegs: Type.Union([Type.Tuple([Bytes32, Bytes32]), Type.Null()]),
});
export type CreatedMarket = Static<typeof CreatedMarket>;

export const EventIdParams = Type.Object({ eventId: EventIdParam });

export const RecordScoreBody = Type.Object(
  {
    teamOneScore: Type.Integer({ minimum: 0, maximum: 100_000 }),
    teamTwoScore: Type.Integer({ minimum: 0, maximum: 100_000 }),
    currentPeriod: Type.Optional(Type.String({ maxLength: 50 })),
    periodTime: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
  },
  { additionalProperties: false },
);
export type RecordScoreBody = Static<typeof RecordScoreBody>;

export const FixtureStatusBody = Type.Object({ status: FixtureStatusValue }, { additionalProperties: false });

export const MarketHashParams = Type.Object({ marketHash: Bytes32 });

export const ResolveMarketBody = Type.Object(
  {
    outcome: Type.Integer({ minimum: 0, maximum: 2, description: '0 void, 1 outcome one, 2 outcome two' }),
  },
  { additionalProperties: false },
);

const Units = Type.String({
  pattern: '^-?[0-9]+$',
  description: 'base units (negative: the chain holds less)',
});

export const ReconcileDifference = Type.Object(
  {
    kind: Type.Union([Type.Literal('wallet'), Type.Literal('pool'), Type.Literal('unknownWallet')]),
    account: Type.Optional(Type.String()),
    wallet: Type.Optional(Type.String()),
    engine: Type.Optional(Units),
    chain: Units,
    pending: Type.Optional(Units),
    difference: Units,
    items: Type.Optional(Type.Array(Type.String(), { description: 'pending items touching the wallet' })),
  },
  {
    description: 'chain + pending - engine, per wallet, for the escrow pool, or for a wallet no account has',
  },
);

/** `GET /admin/reconcile`: an empty `differences` means the chain holds exactly what the engine says. */
export const ReconcileReport = Type.Object({
  at: DateTime,
  accounts: Type.Integer(),
  differences: Type.Array(ReconcileDifference),
  totals: Type.Object({ engine: Units, chain: Units }),
  differenceUnits: Units,
});
export type ReconcileReport = Static<typeof ReconcileReport>;

/** `GET /admin/cluster`: one node of the cluster (the single process answers itself). */
export const ClusterNodeInfo = Type.Object({
  node: Type.String({ description: 'the node id: host:pid' }),
  roles: Type.Array(Type.String(), {
    description: 'all, or some of sequencer, api, projector, realtime, chain',
  }),
  pid: Type.Integer(),
  address: Type.Union([Type.String(), Type.Null()], {
    description: 'host:port of its HTTP server (/health, /metrics), null without one',
  }),
  state: Type.String({
    description:
      'starting, standby, taking-over, leader (a sequencer, or the projector and chain leases); serving (api and realtime alone); a node whose leased roles differ names each: chain:standby,projector:leader',
  }),
  epoch: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the leader epoch it appends under; null when it does not lead',
  }),
  lastSeq: Type.Integer({ description: 'the last journal seq its state is at' }),
  startedAt: DateTime,
  seenAt: Type.String({ format: 'date-time', description: 'its last refresh (every second)' }),
  alive: Type.Boolean({ description: 'seen within the last 5 s; a node gone silent is removed after 1 min' }),
});
export type ClusterNodeInfo = Static<typeof ClusterNodeInfo>;

export const FaultState = Type.Object({
  failNextDeployment: Type.Boolean(),
  failSettlementItems: Type.Object({
    escrow: Type.Integer(),
    release: Type.Integer(),
    payout: Type.Integer(),
    deposit: Type.Integer(),
  }),
  blocksPaused: Type.Boolean(),
  dropNextBlockAnnouncement: Type.Boolean(),
});
export type FaultState = Static<typeof FaultState>;

const Count = Type.Integer({ minimum: 0, maximum: 10_000 });

export const FaultsBody = Type.Object(
  {
    deployProxy: Type.Optional(Type.Literal('fail-next')),
    failNext: Type.Optional(
      Type.Object(
        {
          escrow: Type.Optional(Count),
          release: Type.Optional(Count),
          payout: Type.Optional(Count),
          deposit: Type.Optional(Count),
        },
        { additionalProperties: false },
      ),
    ),
    blocks: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume')])),
    dropNextReceipt: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
export type FaultsBody = Static<typeof FaultsBody>;

export const FaucetBody = Type.Object(
  { address: Address, amount: UintString },
  { additionalProperties: false },
);
export type FaucetBody = Static<typeof FaucetBody>;
export const FaucetResult = Type.Object({ availableAmount: UintString });
export type FaucetResult = Static<typeof FaucetResult>;
