import { afterEach, describe, expect, it } from 'vitest';
import { BOOK, connectedRawClient, pubsOf, startHub, type TestHub, until } from './helpers.js';

let t: TestHub | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('frame coalescing', () => {
  it('sends the publications of one event-loop turn in one frame per client, newline-delimited', async () => {
    t = await startHub();
    const a = await connectedRawClient(t.url);
    const b = await connectedRawClient(t.url);
    for (const raw of [a, b]) {
      raw.send(
        { id: 2, subscribe: { channel: BOOK, positioned: true, recoverable: true } },
        { id: 3, subscribe: { channel: 'markets:global' } },
      );
      await raw.reply(3);
    }
    const framesBefore = [a.frames.length, b.frames.length];
    const statsBefore = t.hub.stats();

    for (let i = 1; i <= 5; i++) t.hub.publish(BOOK, { i });
    t.hub.publishMany([
      { channel: 'markets:global', data: { m: 1 } },
      { channel: BOOK, data: { i: 6 } },
    ]);

    await until(() => pubsOf(a, BOOK).length === 6 && pubsOf(b, BOOK).length === 6, 5000, 'publications');
    for (const [index, raw] of [a, b].entries()) {
      const frames = raw.frames.slice(framesBefore[index]);
      expect(frames).toHaveLength(1);
      const frame = frames[0]!;
      expect(frame.split('\n')).toHaveLength(7);
      expect(frame).not.toMatch(/\n\n|^\n|\n$/);
      expect(pubsOf(raw, BOOK).map((p) => p.offset)).toEqual([1, 2, 3, 4, 5, 6]);
    }
    // The two clients got identical output: one frame each, 7 messages each.
    const stats = t.hub.stats();
    expect(stats.frames - statsBefore.frames).toBe(2);
    expect(stats.messages - statsBefore.messages).toBe(14);
    a.ws.close();
    b.ws.close();
  });
});
