import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_FILLS_CHANNEL,
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  ceRefundsChannel,
  channelOwner,
  GLOBAL_CHANNELS,
  isPerUserChannel,
  orderBookEventChannel,
  orderBookMarketChannel,
  parseChannel,
} from './channels.js';

const USER = '0x52908400098527886E0F7030069857D2E4169EE7';
const HASH = `0x${'ab'.repeat(32)}`;

describe('channel builders', () => {
  it('build the spec names with checksummed addresses and a literal #', () => {
    expect(accountOrdersChannel(USER.toLowerCase())).toBe(`account:orders_v3_#${USER}`);
    expect(accountTradesChannel(USER)).toBe(`account:trades_v3_#${USER}`);
    expect(activeOrdersChannel(USER)).toBe(`active_orders:${USER}`);
    expect(ceRefundsChannel(USER)).toBe(`ce_refunds:${USER}`);
    expect(orderBookMarketChannel(HASH.toUpperCase().replace('0X', '0x'))).toBe(`order_book:market_${HASH}`);
    expect(orderBookEventChannel('L7178624')).toBe('order_book:event_L7178624');
    expect(ACCOUNT_FILLS_CHANNEL).toBe('account:fills_v3');
  });

  it('reject parameters that are not addresses, hashes or event ids', () => {
    expect(() => accountOrdersChannel('0x123')).toThrow(TypeError);
    expect(() => orderBookMarketChannel('0x12')).toThrow(TypeError);
    expect(() => orderBookEventChannel('a:b')).toThrow(TypeError);
  });
});

describe('parseChannel', () => {
  it('classifies every current channel into its namespace and parameter', () => {
    expect(parseChannel(accountOrdersChannel(USER))).toEqual({
      kind: 'account_orders',
      namespace: 'account',
      user: USER,
    });
    expect(parseChannel(accountTradesChannel(USER))).toEqual({
      kind: 'account_trades',
      namespace: 'account',
      user: USER,
    });
    expect(parseChannel('account:fills_v3')).toEqual({ kind: 'account_fills', namespace: 'account' });
    expect(parseChannel(`active_orders:${USER}`)).toEqual({
      kind: 'active_orders',
      namespace: 'active_orders',
      maker: USER,
    });
    expect(parseChannel(`order_book:market_${HASH}`)).toEqual({
      kind: 'order_book_market',
      namespace: 'order_book',
      marketHash: HASH,
    });
    expect(parseChannel('order_book:event_L1')).toEqual({
      kind: 'order_book_event',
      namespace: 'order_book',
      eventId: 'L1',
    });
    expect(parseChannel(`ce_refunds:${USER}`)).toEqual({
      kind: 'ce_refunds',
      namespace: 'ce_refunds',
      bettor: USER,
    });
    expect(parseChannel('fixtures:live_scores')).toEqual({ kind: 'live_scores', namespace: 'fixtures' });
    for (const [kind, name] of Object.entries(GLOBAL_CHANNELS)) {
      expect(parseChannel(name)?.kind).toBe(kind);
      expect(parseChannel(name)?.namespace).toBe(name.split(':')[0]);
    }
  });

  it('treats legacy names as unknown', () => {
    for (const legacy of [
      `active_orders_v2:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054:${USER}`,
      `order_book_v2:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054:${HASH}`,
      'best_odds:0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054',
      'markets',
      'recent_trades',
      'recent_trades_consolidated',
      'main_line',
      'fixtures:fixture_update',
      'live_scores:L1',
      'markets:parlay',
    ]) {
      expect(parseChannel(legacy), legacy).toBeUndefined();
    }
  });

  it('accepts only the canonical spelling of a parameter', () => {
    expect(parseChannel(`account:orders_v3_#${USER.toLowerCase()}`)).toBeUndefined();
    expect(parseChannel(`account:orders_v3_${USER}`)).toBeUndefined();
    expect(parseChannel(`order_book:market_${HASH.toUpperCase()}`)).toBeUndefined();
    expect(parseChannel('order_book:event_')).toBeUndefined();
    expect(parseChannel('account:fills_v3_x')).toBeUndefined();
    expect(parseChannel('')).toBeUndefined();
  });

  it('names the owner of user-bound channels and marks the per-user fills channel', () => {
    expect(channelOwner(parseChannel(accountOrdersChannel(USER))!)).toBe(USER);
    expect(channelOwner(parseChannel(activeOrdersChannel(USER))!)).toBe(USER);
    expect(channelOwner(parseChannel(ceRefundsChannel(USER))!)).toBe(USER);
    expect(channelOwner(parseChannel('markets:global')!)).toBeUndefined();
    expect(channelOwner(parseChannel(ACCOUNT_FILLS_CHANNEL)!)).toBeUndefined();
    expect(isPerUserChannel(parseChannel(ACCOUNT_FILLS_CHANNEL)!)).toBe(true);
    expect(isPerUserChannel(parseChannel(accountTradesChannel(USER))!)).toBe(false);
  });
});
