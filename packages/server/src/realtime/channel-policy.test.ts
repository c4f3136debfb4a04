import { accountOrdersChannel, activeOrdersChannel } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { createChannelPolicy, DEFAULT_STREAM_SETTINGS } from './channel-policy.js';

const ALICE = '0x52908400098527886E0F7030069857D2E4169EE7';
const BOB = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

describe('default channel policy', () => {
  const policy = createChannelPolicy();

  it('lets only the owner use user-bound channels', () => {
    expect(policy.resolve(ALICE, accountOrdersChannel(ALICE)).type).toBe('ok');
    expect(policy.resolve(BOB, accountOrdersChannel(ALICE)).type).toBe('denied');
    expect(policy.resolve('', accountOrdersChannel(ALICE)).type).toBe('denied');
    expect(policy.resolve(BOB, activeOrdersChannel(ALICE)).type).toBe('denied');
    expect(policy.resolve(BOB, `ce_refunds:${ALICE}`).type).toBe('denied');
  });

  it('keys account:fills_v3 per user and refuses it to anonymous connections', () => {
    const a = policy.resolve(ALICE, 'account:fills_v3');
    const b = policy.resolve(BOB, 'account:fills_v3');
    expect(a.type === 'ok' && a.target).toMatchObject({
      channel: 'account:fills_v3',
      key: `account:fills_v3#${ALICE}`,
    });
    expect(b.type === 'ok' && b.target.key).toBe(`account:fills_v3#${BOB}`);
    expect(policy.resolve('', 'account:fills_v3').type).toBe('denied');
    expect(policy.publishTarget('account:fills_v3', ALICE.toLowerCase()).key).toBe(
      `account:fills_v3#${ALICE}`,
    );
  });

  it('remembers publish targets without mixing users, and still refuses what it refused', () => {
    const book = `order_book:market_0x${'cd'.repeat(32)}`;
    expect(policy.publishTarget(book)).toBe(policy.publishTarget(book));
    const alice = policy.publishTarget('account:fills_v3', ALICE);
    expect(policy.publishTarget('account:fills_v3', ALICE)).toBe(alice);
    expect(policy.publishTarget('account:fills_v3', BOB.toLowerCase()).key).toBe(`account:fills_v3#${BOB}`);
    expect(() => policy.publishTarget('account:fills_v3')).toThrow(/needs the user/);
    expect(() => policy.publishTarget('account:fills_v3', '0x1234')).toThrow();
    expect(() => policy.publishTarget(`account:orders_v3_#${ALICE.toLowerCase()}`)).toThrow(TypeError);
    expect(() => policy.publishTarget(`account:orders_v3_#${ALICE.toLowerCase()}`)).toThrow(TypeError);
  });

  it('makes public channels public and unknown names unknown', () => {
    expect(policy.resolve('', 'markets:global').type).toBe('ok');
    expect(policy.resolve(ALICE, 'markets').type).toBe('unknown');
    expect(() => policy.publishTarget('markets')).toThrow(TypeError);
  });

  it('uses the production history sizes, cache recovery for books, none for best_odds and parlay_markets', () => {
    const settings = (channel: string) => policy.publishTarget(channel, ALICE).settings;
    expect(settings(`order_book:market_0x${'ab'.repeat(32)}`)).toEqual({
      historySize: 1000,
      historyBytes: 8 * 1_048_576,
      historyTtlMs: 300_000,
      recoverable: true,
      recovery: 'cache',
    });
    expect(settings('order_book:event_L1-E1').recovery).toBe('cache');
    expect(settings('recent_trades:global')).toMatchObject({
      historySize: 2000,
      historyBytes: 4 * 1_048_576,
      recovery: 'stream',
    });
    expect(settings(`ce_refunds:${ALICE}`).historySize).toBe(1000);
    expect(settings('best_odds:global')).toEqual({
      historySize: 0,
      historyBytes: 0,
      historyTtlMs: 0,
      recoverable: false,
      recovery: 'stream',
    });
    expect(settings('parlay_markets:global').recoverable).toBe(false);
  });

  it('takes a custom authorizer and per-namespace settings', () => {
    const custom = createChannelPolicy({
      authorize: (user) => (user === ALICE ? 'ok' : 'denied'),
      streams: { markets: { ...DEFAULT_STREAM_SETTINGS.markets, historySize: 7 } },
    });
    expect(custom.resolve(BOB, 'markets:global').type).toBe('denied');
    const ok = custom.resolve(ALICE, 'markets:global');
    expect(ok.type === 'ok' && ok.target.settings.historySize).toBe(7);
    expect(custom.resolve(ALICE, 'legacy').type).toBe('unknown');
  });
});
