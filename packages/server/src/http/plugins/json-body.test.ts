import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan } from './json-body.js';

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ s: '[[[[[{{{{{', t: 'q\\"[[[[' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan('[[],[],[[]]]', 3)).toBe(false);
    expect(jsonNestsDeeperThan('[[],[],[[[]]]]', 3)).toBe(true);
  });

  it('is a linear pass over a deep body', () => {
    const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    expect(jsonNestsDeeperThan(deep, 32)).toBe(true);
    expect(jsonNestsDeeperThan(deep, 500_000)).toBe(false);
  });
});
