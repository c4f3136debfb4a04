import type pg from 'pg';
import { SequencerLease } from './sequencer-lease.js';

/** The roles that run one node at a time besides the sequencer, each under a lease of its own (ADR 0018). */
export type LeasedRole = 'projector' | 'chain';

/**
 * Their advisory lock keys: 'oddsprj1' and 'oddschn1' read as big-endian int64 (the sequencer's is
 * 'oddsseq1'); advisory locks are per database, like the exchange.
 */
export const ROLE_LEASE_KEYS: Readonly<Record<LeasedRole, string>> = {
  projector: '8026650882851629617',
  chain: '8026650882632871473',
};

/**
 * The lease of the projector or the chain role: the sequencer's pattern (a session advisory lock on a
 * connection of its own, tried every 500 ms, lost with its session), with its epoch in `role_leases`,
 * bumped by each new holder. Only one node of the role works at a time; the others stand by.
 */
export function roleLease(o: { role: LeasedRole; client: pg.Client; node: string; tryEveryMs?: number }) {
  return new SequencerLease({
    client: o.client,
    node: o.node,
    key: ROLE_LEASE_KEYS[o.role],
    role: o.role,
    ...(o.tryEveryMs ? { tryEveryMs: o.tryEveryMs } : {}),
  });
}
