import { describe, expect, it } from 'vitest';
import { decodePaginationKey, encodePaginationKey } from './pagination-key.js';

describe('pagination keys', () => {
  it('round-trips a cursor through an opaque URL-safe key', () => {
    const cursor = {
      gameTime: 1_800_000_000,
      eventId: 'L1000007',
      type: 3,
      marketHash: `0x${'ab'.repeat(32)}`,
    };
    const key = encodePaginationKey(cursor);
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePaginationKey(key)).toEqual(cursor);
  });

  it.each([
    ['not-a-key'],
    [''],
    [Buffer.from('[1,2,3]').toString('base64url')],
    [Buffer.from('[1.5,"L1",3,"0x"]').toString('base64url')],
    [Buffer.from('[1,"L1","3","0x"]').toString('base64url')],
    [Buffer.from('{"a":1}').toString('base64url')],
  ])('refuses %s', (key) => {
    expect(decodePaginationKey(key)).toBeNull();
  });
});
