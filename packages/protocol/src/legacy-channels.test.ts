import { describe, expect, it } from 'vitest';
import { GLOBAL_CHANNELS, parseChannel } from './channels.js';
import { legacyChannelsOf, parseLegacyChannel } from './legacy-channels.js';

const TOKEN = '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054';
const USER = '0x52908400098527886E0F7030069857D2E4169EE7';
const HASH = `0x${'ab'.repeat(32)}`;

describe('legacy channel names', () => {
  it('parse as their v3 counterparts, for the exchange’s base token only', () => {
    const cases: [string, string][] = [
      [`active_orders_v2:${TOKEN}:${USER}`, `active_orders:${USER}`],
      [`order_book_v2:${TOKEN.toLowerCase()}:${HASH}`, `order_book:market_${HASH}`],
      [`best_odds:${TOKEN}`, GLOBAL_CHANNELS.best_odds],
      ['markets', GLOBAL_CHANNELS.markets],
      ['recent_trades', GLOBAL_CHANNELS.recent_trades],
      ['recent_trades_consolidated', GLOBAL_CHANNELS.recent_trades_consolidated],
      ['main_line', GLOBAL_CHANNELS.main_line],
      ['fixtures:fixture_update', GLOBAL_CHANNELS.fixtures],
      ['markets:parlay', GLOBAL_CHANNELS.parlay_markets],
    ];
    for (const [legacy, v3] of cases)
      expect(parseLegacyChannel(legacy, TOKEN), legacy).toEqual(parseChannel(v3));
    expect(parseLegacyChannel('live_scores:L123', TOKEN)).toEqual({
      kind: 'live_scores',
      namespace: 'fixtures',
    });
    for (const other of [
      `active_orders_v2:${USER}:${USER}`,
      `active_orders_v2:${TOKEN}:${USER.toLowerCase()}`,
      `order_book_v2:${TOKEN}:0x12`,
      'best_odds:nope',
      'live_scores:',
      'markets:global:x',
      'unknown',
    ])
      expect(parseLegacyChannel(other, TOKEN), other).toBeUndefined();
  });

  it('name where a v3 publication is copied', () => {
    expect(legacyChannelsOf(`active_orders:${USER}`, {}, TOKEN)).toEqual([
      `active_orders_v2:${TOKEN}:${USER}`,
    ]);
    expect(legacyChannelsOf(`order_book:market_${HASH}`, {}, TOKEN)).toEqual([
      `order_book_v2:${TOKEN}:${HASH}`,
    ]);
    expect(legacyChannelsOf(GLOBAL_CHANNELS.best_odds, {}, TOKEN)).toEqual([`best_odds:${TOKEN}`]);
    expect(legacyChannelsOf(GLOBAL_CHANNELS.live_scores, { sportXEventId: 'L9' }, TOKEN)).toEqual([
      'live_scores:L9',
    ]);
    expect(legacyChannelsOf(GLOBAL_CHANNELS.main_line, {}, TOKEN)).toEqual(['main_line']);
    expect(legacyChannelsOf(`account:orders_v3_#${USER}`, {}, TOKEN)).toEqual([]);
    expect(legacyChannelsOf(`ce_refunds:${USER}`, {}, TOKEN)).toEqual([]);
  });
});
