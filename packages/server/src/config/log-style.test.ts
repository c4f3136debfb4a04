import { describe, expect, it } from 'vitest';
import { prettyLine } from '../lib/pretty-log.js';
import { ConfigError, loadConfig } from './config.js';
import { logStyle } from './log-style.js';

const style = (env: Record<string, string>, tty: boolean) => logStyle(loadConfig([], env), tty);

describe('LOG_FORMAT and LOG_REQUESTS', () => {
  it('by default: readable without request lines on a terminal, JSON with them elsewhere', () => {
    expect(style({}, true)).toEqual({ pretty: true, requests: false });
    expect(style({}, false)).toEqual({ pretty: false, requests: true });
  });
  it('LOG_FORMAT=json keeps JSON on a terminal; LOG_REQUESTS turns request lines on or off', () => {
    expect(style({ LOG_FORMAT: 'json' }, true)).toEqual({ pretty: false, requests: true });
    expect(style({ LOG_FORMAT: 'pretty' }, false)).toEqual({ pretty: true, requests: false });
    expect(style({ LOG_REQUESTS: '1' }, true)).toEqual({ pretty: true, requests: true });
    expect(style({ LOG_REQUESTS: '0' }, false)).toEqual({ pretty: false, requests: false });
  });
  it('refuses other values, naming the setting', () => {
    expect(() => loadConfig([], { LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
    expect(() => loadConfig([], { LOG_FORMAT: 'yaml' })).toThrow(
      /LOG_FORMAT must be one of auto, pretty, json/,
    );
    expect(() => loadConfig([], { LOG_REQUESTS: 'maybe' })).toThrow(/LOG_REQUESTS must be 1 or 0/);
    expect(loadConfig(['--log-format', 'json'], {}).logFormat).toBe('json');
  });
});

describe('the readable log line', () => {
  it('shows time, level, message and fields; errors with their stack; other text as it is', () => {
    const time = new Date(2030, 0, 1, 12, 4, 31).getTime();
    const line = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', msg: 'slow', ms: 12, who: 'a b' });
    expect(prettyLine(line, { colors: false })).toBe('12:04:31 WARN  slow  ms=12 who="a b"\n');
    const error = JSON.stringify({
      level: 50,
      time,
      msg: 'failed',
      err: { message: 'boom', stack: 'Error: boom\n  at x' },
    });
    expect(prettyLine(error, { colors: false })).toBe('12:04:31 ERROR failed\n    Error: boom\n      at x\n');
    expect(prettyLine('not json', { colors: false })).toBe('not json\n');
  });
});
