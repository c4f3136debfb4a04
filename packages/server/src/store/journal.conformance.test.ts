import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppliedEntry, SequencerInput } from '../sequencer/inputs.js';
import type { JournalRow } from '../sequencer/journal.js';
import { decodeInput } from '../sequencer/journal-codec.js';
import { type PortsUnderTest, storesUnderTest } from './test-support/stores-under-test.js';

const credit = (seq: number, amount = BigInt(seq) * 1_000_000n): AppliedEntry => ({
  seq,
  ts: 1_700_000_000_000 + seq,
  input: { kind: 'engine', command: { type: 'credit', account: `0xacc${seq % 7}`, amount } },
  events: [],
});
const batch = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => credit(from + i));

async function rowsAfter(ports: PortsUnderTest, seq: number): Promise<JournalRow[][]> {
  const pages: JournalRow[][] = [];
  for await (const page of ports.journal.after(seq)) pages.push([...page]);
  return pages;
}

describe.each(await storesUnderTest())('the journal on $name', (store) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await store.open();
  });
  afterEach(() => ports.close());

  it('begins empty, with every rule from its first seq', async () => {
    expect(await ports.journal.last()).toEqual({ seq: 0, ts: 0 });
    expect(await rowsAfter(ports, 0)).toEqual([]);
    expect(await ports.journal.latestCheckpoint()).toBeNull();
    expect(ports.journal.features).toEqual({ capitalEfficiency: 1, honestLiquidity: 1, chainSettlement: 1 });
  });

  it('appends batches in order, tells when each is written, and gives them back a page at a time', async () => {
    const written: number[] = [];
    for (let from = 1; from <= 4_500; from += 500) {
      const appended = ports.journal.append(batch(from, from + 499), () => written.push(from));
      await appended;
      expect(written.at(-1)).toBe(from);
    }
    expect(await ports.journal.last()).toEqual({ seq: 4_500, ts: 1_700_000_004_500 });
    const pages = await rowsAfter(ports, 0);
    expect(pages.map((p) => p.length)).toEqual([2_000, 2_000, 500]);
    const rows = pages.flat();
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 4_500 }, (_, i) => i + 1));
    expect(rows[41]).toEqual({ seq: 42, ts: 1_700_000_000_042, payload: expect.any(String) });
    expect(decodeInput(rows[41]!.payload)).toEqual(credit(42).input);
    expect((await rowsAfter(ports, 3_999)).map((p) => p.length)).toEqual([501]);
    expect(await rowsAfter(ports, 4_500)).toEqual([]);

    // Durable: a restart reads the same journal.
    ports = await ports.reopen();
    expect(await ports.journal.last()).toEqual({ seq: 4_500, ts: 1_700_000_004_500 });
    expect((await rowsAfter(ports, 4_498)).flat().map((r) => r.seq)).toEqual([4_499, 4_500]);
  });

  it('keeps every input kind as it was given', async () => {
    const inputs: SequencerInput[] = [
      {
        kind: 'admit',
        order: {
          type: 'place',
          orderId: '0xo1',
          account: '0xa',
          marketHash: '0xm',
          isBettingOutcomeOne: true,
          percentageOdds: 50_000_000_000_000_000_000n,
          totalBetSize: 123_456_789_012_345_678_901_234_567_890n,
          expiry: 2_000_000_000,
          timeInForce: 'GTC',
        },
        meta: {
          commandId: 'c',
          eventId: 'L1',
          clientOrderId: 'é"\\',
          salt: '0x1',
          baseToken: '0xb',
          signature: '0x',
        },
        activateAt: 5,
      },
      { kind: 'withdraw', orderIds: ['0xo1'], reason: 'USER_REQUESTED' },
      { kind: 'heartbeat', account: '0xa', timeoutSeconds: 10, expiresAt: null },
      { kind: 'settlement', block: 3, txs: [{ firstSeq: 1, lastSeq: 2, notLanded: [], landed: [] }] },
    ];
    await ports.journal.append(inputs.map((input, i) => ({ seq: i + 1, ts: 7, input, events: [] })));
    const rows = (await rowsAfter(ports, 0)).flat();
    expect(rows.map((r) => decodeInput(r.payload))).toEqual(inputs);
    expect(await ports.count('journal')).toBe(4);
  });

  it('refuses a second writer: a batch with a seq already written is not written at all', async () => {
    await ports.journal.append(batch(1, 3));
    const second = await ports.secondJournal();
    try {
      await expect(second.append(batch(3, 5))).rejects.toThrow();
      await ports.journal.append(batch(4, 4));
      expect((await rowsAfter(ports, 0)).flat().map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      await second.close();
    }
  });

  it('keeps the two newest engine checkpoints, their bytes exact', async () => {
    const bytes = (n: number) => Uint8Array.from({ length: 300 }, (_, i) => (i * n) % 256);
    await ports.journal.saveCheckpoint(10, 'aa', bytes(1), 1);
    await ports.journal.saveCheckpoint(30, 'cc', bytes(3), 3);
    await ports.journal.saveCheckpoint(20, 'bb', bytes(2), 2);
    expect(await ports.count('engine_checkpoints')).toBe(2);
    const latest = await ports.journal.latestCheckpoint();
    expect({ ...latest, snapshot: [...latest!.snapshot] }).toEqual({
      seq: 30,
      digest: 'cc',
      snapshot: [...bytes(3)],
    });
    // The newest at or before a consumer's cursor (a start that must hand on the entries after it).
    expect((await ports.journal.latestCheckpoint(29))?.digest).toBe('bb');
    expect((await ports.journal.latestCheckpoint(30))?.digest).toBe('cc');
    expect(await ports.journal.latestCheckpoint(19)).toBeNull();
    // The same seq again replaces it.
    await ports.journal.saveCheckpoint(30, 'dd', bytes(4), 4);
    ports = await ports.reopen();
    const again = await ports.journal.latestCheckpoint();
    expect([again!.seq, again!.digest, [...again!.snapshot]]).toEqual([30, 'dd', [...bytes(4)]]);
    expect(await ports.count('engine_checkpoints')).toBe(2);
  });

  it('records the rules of a journal begun before them from the seq after its last, once', async () => {
    await ports.journal.append(batch(1, 7));
    await ports.forgetJournalFeatures();
    ports = await ports.reopen();
    expect(ports.journal.features).toEqual({ capitalEfficiency: 8, honestLiquidity: 8, chainSettlement: 8 });
    await ports.journal.append(batch(8, 9));
    ports = await ports.reopen();
    expect(ports.journal.features).toEqual({ capitalEfficiency: 8, honestLiquidity: 8, chainSettlement: 8 });
  });
});
