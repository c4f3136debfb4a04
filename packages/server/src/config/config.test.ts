import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('the legacy API dates', () => {
  it('default to the spec’s: cut-over 26 August 2026 10 AM Eastern, history gone 14 September, legacy WebSocket 1 July', () => {
    const config = loadConfig([], {});
    expect(new Date(config.v2CutoverAt).toISOString()).toBe('2026-08-26T14:00:00.000Z');
    expect(new Date(config.v2HistoryRemovedAt).toISOString()).toBe('2026-09-14T00:00:00.000Z');
    expect(new Date(config.legacyWsShutdownAt).toISOString()).toBe('2026-07-01T00:00:00.000Z');
  });

  it('take ISO 8601 with a zone or unix seconds, from the environment or a flag (the flag wins)', () => {
    const config = loadConfig(['--v2-cutover-at', '1800000000'], {
      V2_CUTOVER_AT: '2030-01-01T00:00:00Z',
      V2_HISTORY_REMOVED_AT: '2030-01-02T01:00:00+01:00',
      LEGACY_WS_SHUTDOWN_AT: '0',
    });
    expect(config.v2CutoverAt).toBe(1_800_000_000_000);
    expect(new Date(config.v2HistoryRemovedAt).toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(config.legacyWsShutdownAt).toBe(0);
  });

  it.each(['2026-08-26', '2026-08-26T14:00:00', 'tomorrow', '1.5', '-1', '2026-13-40T99:00:00Z'])(
    'refuse %s, naming the setting',
    (value) => {
      expect(() => loadConfig([], { V2_CUTOVER_AT: value })).toThrow(ConfigError);
      expect(() => loadConfig([], { V2_CUTOVER_AT: value })).toThrow(/V2_CUTOVER_AT/);
    },
  );
});
