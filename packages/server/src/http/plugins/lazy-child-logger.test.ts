import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { LazyChildLogger } from './lazy-child-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const root = pino({ level, base: null, timestamp: false }, stream);
  const parent = root.child({ reqId: 'r1' }) as unknown as FastifyBaseLogger;
  return { lines, parent };
}

describe('LazyChildLogger', () => {
  it('writes what an eager child writes, bindings included', () => {
    const eager = capture('info');
    const lazy = capture('info');
    const a = eager.parent.child({ account: '0xA' });
    const b = new LazyChildLogger(lazy.parent, { account: '0xA' });
    for (const log of [a, b]) {
      log.info({ n: 1 }, 'one');
      log.warn('two %s', 'x');
      log.error({ err: new Error('boom') }, 'three');
      log.debug('not written');
      log.child({ extra: true }).info('four');
    }
    expect(lazy.lines).toEqual(eager.lines);
    expect(lazy.lines.map((l) => l.msg)).toEqual(['one', 'two x', 'three', 'four']);
    expect(lazy.lines.every((l) => l.account === '0xA' && l.reqId === 'r1')).toBe(true);
    expect(b.level).toBe('info');
  });

  it('creates no child while nothing is logged at an enabled level', () => {
    const { lines, parent } = capture('warn');
    const child = vi.spyOn(parent, 'child');
    const log = new LazyChildLogger(parent, { account: '0xB' });
    log.info('dropped');
    log.debug('dropped');
    expect(log.level).toBe('warn');
    expect(child).not.toHaveBeenCalled();
    log.error('kept');
    expect(child).toHaveBeenCalledTimes(1);
    log.warn('kept too');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.msg, l.account])).toEqual([
      ['kept', '0xB'],
      ['kept too', '0xB'],
    ]);
  });

  it('a level set on it applies to its child', () => {
    const { lines, parent } = capture('warn');
    const log = new LazyChildLogger(parent, { account: '0xC' });
    log.level = 'debug';
    log.debug('now written');
    expect(parent.level).toBe('warn');
    expect(lines.map((l) => l.msg)).toEqual(['now written']);
  });
});
