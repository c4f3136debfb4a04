import { describe, expect, it } from 'vitest';
import type { AppliedEntry } from '../sequencer/inputs.js';
import { RecentEntries } from './recent-entries.js';

const entry = (seq: number): AppliedEntry => ({
  seq,
  ts: seq,
  input: { kind: 'heartbeat', account: '0x1', timeoutSeconds: 0, expiresAt: null },
  events: [],
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));
const seqs = (entries: readonly AppliedEntry[] | null) => entries?.map((e) => e.seq) ?? null;

describe('the recent entries a standby keeps', () => {
  it('answers the entries after a seq while it keeps them all, and null once some are gone', () => {
    const recent = new RecentEntries(5);
    expect(recent.after(0)).toBeNull();
    recent.add(range(1, 3));
    expect(seqs(recent.after(0))).toEqual([1, 2, 3]);
    expect(seqs(recent.after(2))).toEqual([3]);
    expect(seqs(recent.after(3))).toEqual([]);
    recent.add(range(4, 8));
    // 4..8 kept: after 3 is complete, after 2 misses 3.
    expect(seqs(recent.after(3))).toEqual([4, 5, 6, 7, 8]);
    expect(recent.after(2)).toBeNull();
    for (let i = 9; i <= 40; i++) recent.add([entry(i)]);
    expect(seqs(recent.after(35))).toEqual([36, 37, 38, 39, 40]);
    expect(recent.after(34)).toBeNull();
    expect(seqs(recent.after(40))).toEqual([]);
  });
});
