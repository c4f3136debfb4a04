/**
 * A sequencer node in a process of its own, for the process-level takeover test (a SIGKILL of the leader):
 * `node --import tsx sequencer-node-process.ts` with DATABASE_URL, NODE_NAME and LEASE_KEY. It prints one
 * JSON line per event: `standby`, `leading` (then one `ack` per acknowledged input: it credits an account
 * every 20 ms while it leads), `deposed` (then it exits 3).
 */
import { systemClock } from '../../lib/clock.js';
import { openPostgres } from '../../store/postgres/postgres-database.js';
import { SequencerNode } from '../sequencer-node.js';

const say = (event: object) => process.stdout.write(`${JSON.stringify(event)}\n`);
const database = await openPostgres({ url: process.env.DATABASE_URL!, poolSize: 3 });
const node = process.env.NODE_NAME ?? `node-${process.pid}`;

await SequencerNode.start({
  database,
  node,
  ladderSize: 800,
  clock: systemClock,
  leaseKey: process.env.LEASE_KEY!,
  onLeading(leader) {
    say({
      event: 'leading',
      node,
      epoch: leader.epoch,
      lastSeq: leader.lastSeq,
      takeoverMs: leader.takeoverMs,
    });
    const credit = () => {
      leader.sequencer
        .submit({ kind: 'engine', command: { type: 'credit', account: node, amount: 1n } })
        .then((entry) => say({ event: 'ack', node, seq: entry.seq }))
        .catch(() => {});
      setTimeout(credit, 20);
    };
    credit();
  },
  onDeposed(reason) {
    say({ event: 'deposed', node, reason: String(reason) });
    process.exit(3);
  },
});
say({ event: 'standby', node, pid: process.pid });
