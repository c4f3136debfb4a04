import { ACCOUNT_FILLS_CHANNEL, accountOrdersChannel, GLOBAL_CHANNELS } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { createChannelPolicy } from './channel-policy.js';
import type { Publication } from './publication.js';
import { PublicationStamper } from './publication-stamper.js';

const ALICE = '0x52908400098527886E0F7030069857D2E4169EE7';
const BOB = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const TAPE = GLOBAL_CHANNELS.recent_trades;
const policy = createChannelPolicy();
const stamper = (leaderEpoch = 1, maxChannels?: number) =>
  new PublicationStamper({ leaderEpoch, channelPolicy: policy, ...(maxChannels ? { maxChannels } : {}) });

/** A random mix of channels, per-user ones for two users among them. */
function randomPublications(count: number, seed: number): Publication[] {
  let x = seed;
  const next = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    // The high bits: an LCG's low bits repeat with a short period.
    return x >>> 16;
  };
  const out: Publication[] = [];
  for (let i = 0; i < count; i++) {
    const user = next() % 2 === 0 ? ALICE : BOB;
    const kind = next() % 4;
    if (kind === 0) out.push({ channel: TAPE, data: { i }, messageId: `m${i}` });
    else if (kind === 1) out.push({ channel: ACCOUNT_FILLS_CHANNEL, user, data: { i }, messageId: `m${i}` });
    else if (kind === 2) out.push({ channel: accountOrdersChannel(user), data: { i }, messageId: `m${i}` });
    else out.push({ channel: GLOBAL_CHANNELS.best_odds, data: { i }, messageId: `m${i}` });
  }
  return out;
}

describe('PublicationStamper', () => {
  it('numbers each channel (each user of a per-user channel) contiguously from 1, the same for the same publications', () => {
    const list = randomPublications(2_000, 7);
    const a = stamper();
    const b = stamper();
    // The same publications in other list boundaries: the same stamps.
    const first = [...a.stamp(list.slice(0, 700)), ...a.stamp(list.slice(700))];
    const second = list.flatMap((p) => b.stamp([p]));
    expect(second).toEqual(first);
    const byKey = new Map<string, number[]>();
    const epochs = new Map<string, Set<string>>();
    for (const [i, s] of first.entries()) {
      expect(s.messageId).toBe(`m${i}`);
      expect(JSON.parse(s.dataJson)).toEqual({ messageId: `m${i}`, i });
      if (s.channel === GLOBAL_CHANNELS.best_odds) {
        // No history, no numbering.
        expect([s.offset, s.epoch]).toEqual([0, '']);
        continue;
      }
      const key = s.channel === ACCOUNT_FILLS_CHANNEL ? `${s.channel}#${s.user}` : s.channel;
      byKey.set(key, [...(byKey.get(key) ?? []), s.offset]);
      epochs.set(key, (epochs.get(key) ?? new Set()).add(s.epoch));
    }
    expect(byKey.size).toBe(5);
    for (const [key, offsets] of byKey) {
      expect(offsets, key).toEqual(offsets.map((_, i) => i + 1));
      expect(epochs.get(key)!.size, key).toBe(1);
    }
    // Every channel its own epoch, each from this leader's.
    const all = [...epochs.values()].map((set) => [...set][0]!);
    expect(new Set(all).size).toBe(5);
    for (const epoch of all) expect(epoch.startsWith('1-')).toBe(true);
  });

  it('a new leader numbers every channel under new epochs', () => {
    const list = randomPublications(50, 3);
    const one = stamper(1).stamp(list);
    const two = stamper(2).stamp(list);
    const epochsOf = (stamps: typeof one) => new Set(stamps.map((s) => s.epoch).filter((e) => e !== ''));
    for (const epoch of epochsOf(two)) expect(epochsOf(one).has(epoch)).toBe(false);
  });

  it('remembers maxChannels channels at most; one forgotten begins a new epoch when it publishes again, never reusing an offset', () => {
    const s = stamper(4, 100);
    const tape = s.stamp([
      { channel: TAPE, data: {} },
      { channel: TAPE, data: {} },
    ]);
    expect(tape.map((p) => p.offset)).toEqual([1, 2]);
    const flood: Publication[] = [];
    for (let i = 0; i < 10_000; i++)
      flood.push({
        channel: accountOrdersChannel(`0x${(i + 1).toString(16).padStart(40, '0')}`),
        data: { i },
      });
    s.stamp(flood);
    expect(s.counts).toEqual({ channels: 100, forgotten: 9_901 });
    const again = s.stamp([{ channel: TAPE, data: {} }])[0]!;
    expect(again.offset).toBe(1);
    expect(again.epoch).not.toBe(tape[0]!.epoch);
    // A channel that keeps publishing is the last to be forgotten.
    const busy = stamper(5, 10);
    for (let i = 0; i < 100; i++) {
      busy.stamp([
        { channel: TAPE, data: {} },
        { channel: accountOrdersChannel(`0x${(i + 1).toString(16).padStart(40, '0')}`), data: {} },
      ]);
    }
    const last = busy.stamp([{ channel: TAPE, data: {} }])[0]!;
    expect(last.offset).toBe(101);
  });

  it('stamps nothing of a list with a channel the policy refuses', () => {
    const s = stamper();
    expect(() =>
      s.stamp([
        { channel: TAPE, data: {} },
        { channel: 'no such channel', data: {} },
      ]),
    ).toThrow(TypeError);
    expect(s.stamp([{ channel: TAPE, data: {} }])[0]!.offset).toBe(1);
  });
});
