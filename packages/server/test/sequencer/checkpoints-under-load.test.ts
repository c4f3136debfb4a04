import { ladderSize } from '@oddsbook/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/index.js';
import { openReplayStorage } from '../../src/exchange/exchange-storage.js';
import { checkpointBytes } from '../../src/sequencer/checkpoint.js';
import { exchangeEngineOptions, recoverEngine, replayJournal } from '../../src/sequencer/recovery.js';
import { digestOf, stateHashOf } from '../../src/sequencer/state-hash.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { until } from '../helpers/trading.js';

const LOOPS = 4;
const ACCOUNT = `0x${'c0ffee'.padStart(40, '0')}`;

/**
 * Credits submitted by `LOOPS` loops, each submitting its next as soon as its last is answered: the answers of a
 * batch and the next submissions run in the same event-loop task, so at every timer tick the sequencer has
 * inputs queued (never idle). `busyAtEveryProbe` checks that premise from a timer of its own.
 */
function steadyLoad(t: TestExchange) {
  const { sequencer } = t.exchange.trading;
  let running = true;
  let submitted = 0;
  let idleSeen = false;
  const probe = setInterval(() => {
    if (sequencer.isIdle) idleSeen = true;
  }, 5);
  const loops = Array.from({ length: LOOPS }, async (_, i) => {
    const account = `0x${(0xc0ffee00 + i).toString(16).padStart(40, '0')}`;
    while (running) {
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account, amount: 1_000_000n } });
      submitted += 1;
    }
  });
  return {
    get submitted() {
      return submitted;
    },
    get busyAtEveryProbe() {
      return !idleSeen;
    },
    async stop() {
      running = false;
      clearInterval(probe);
      await Promise.all(loops);
    },
  };
}

describe('checkpoints under load', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) removeDataDir(dir);
  });

  it('a sequencer never idle at the timer still stores checkpoints; a start from one rebuilds the same state from the entries after it', async () => {
    const t = await startTestExchange({ env: { CHECKPOINT_INTERVAL_MS: '100' } });
    dirs.push(t.dataDir);
    const replay = await openReplayStorage(t.config);
    try {
      const { sequencer } = t.exchange.trading;
      const loadFrom = sequencer.lastSeq;
      const load = steadyLoad(t);
      const checkpointSeq = async () => (await replay.journal.latestCheckpoint())?.seq ?? 0;
      // Two checkpoints taken under load: the second begun after the first was stored.
      const first = await until(checkpointSeq, (seq) => seq > loadFrom, 30_000);
      const second = await until(checkpointSeq, (seq) => seq > first, 30_000);
      const submittedAtCheckpoint = load.submitted;
      // Still more inputs after it: they are what a start replays.
      while (load.submitted < submittedAtCheckpoint + 200)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await load.stop();
      expect(load.busyAtEveryProbe).toBe(true);

      // A start with no clean stop: the newest checkpoint, then the journal after it. The running exchange still
      // commits (the chain's receipts for the credits, a block later) and its timer may take one more checkpoint,
      // so each try adds a credit after any checkpoint and reads again until nothing landed while it read.
      const recoverQuiet = async () => {
        for (let attempt = 0; attempt < 20; attempt += 1) {
          await sequencer.submit({
            kind: 'engine',
            command: { type: 'credit', account: ACCOUNT, amount: 1n },
          });
          await t.exchange.trading.idle();
          const lastSeq = sequencer.lastSeq;
          const recovered = await recoverEngine(replay.journal, ladderSize());
          const whole = new Engine({ ...exchangeEngineOptions(replay.journal), ladderSize: ladderSize() });
          await replayJournal(whole, replay.journal, 0);
          const running = {
            state: stateHashOf(sequencer.engine),
            checkpoint: digestOf(sequencer.checkpointNow().bytes),
          };
          const stood = sequencer.lastSeq === lastSeq && recovered.lastSeq === lastSeq;
          if (stood && recovered.checkpointSeq < lastSeq) return { recovered, whole, running };
        }
        throw new Error('the journal never stood still for one read');
      };
      const { recovered, whole, running } = await recoverQuiet();
      expect(recovered.checkpointSeq).toBeGreaterThanOrEqual(second);
      const entriesAfter = async (seq: number) => {
        let n = 0;
        for await (const rows of replay.journal.after(seq)) n += rows.length;
        return n;
      };
      // Only the entries after the checkpoint were replayed (credits, and the chain's receipts: not commands).
      expect(recovered.replayedCommands).toBeGreaterThan(0);
      expect(recovered.replayedCommands).toBeLessThanOrEqual(await entriesAfter(recovered.checkpointSeq));
      // The same state as the running sequencer's, and the whole journal's.
      expect(stateHashOf(recovered.engine)).toBe(running.state);
      expect(stateHashOf(whole)).toBe(running.state);
      expect(digestOf(checkpointBytes(recovered.engine, recovered.admission))).toBe(running.checkpoint);
    } finally {
      await replay.close();
      await t.close();
    }
  }, 60_000);
});
