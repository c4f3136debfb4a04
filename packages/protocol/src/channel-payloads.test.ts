import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ACCOUNT_FILLS_CHANNEL,
  type ChannelKind,
  channels,
  GLOBAL_CHANNELS,
  orderBookMarketChannel,
  parseChannel,
} from './channels.js';
import {
  type AccountOrderUpdate,
  type ActiveOrderUpdate,
  type BookUpdate,
  type CeRefundUpdate,
  CHANNEL_PAYLOADS,
  type ChannelPayload,
  type FillUpdate,
  type LiveScoreUpdate,
  type MarketUpdate,
} from './schemas/realtime.js';

const ALICE = '0x52908400098527886E0F7030069857D2E4169EE7';
const HASH = `0x${'ab'.repeat(32)}`;

describe('the channel-to-payload map', () => {
  it('types each builder’s channel with its payload', () => {
    const book = channels.orderBookMarket(HASH);
    expectTypeOf<ChannelPayload<typeof book>>().toEqualTypeOf<BookUpdate>();
    const event = channels.orderBookEvent('L1');
    expectTypeOf<ChannelPayload<typeof event>>().toEqualTypeOf<BookUpdate>();
    const orders = channels.accountOrders(ALICE);
    expectTypeOf<ChannelPayload<typeof orders>>().toEqualTypeOf<AccountOrderUpdate>();
    const active = channels.activeOrders(ALICE);
    expectTypeOf<ChannelPayload<typeof active>>().toEqualTypeOf<ActiveOrderUpdate>();
    const refunds = channels.ceRefunds(ALICE);
    expectTypeOf<ChannelPayload<typeof refunds>>().toEqualTypeOf<CeRefundUpdate>();
    expectTypeOf<ChannelPayload<typeof ACCOUNT_FILLS_CHANNEL>>().toEqualTypeOf<FillUpdate>();
    expectTypeOf<ChannelPayload<typeof GLOBAL_CHANNELS.live_scores>>().toEqualTypeOf<LiveScoreUpdate>();
    expectTypeOf<ChannelPayload<'markets:global'>>().toEqualTypeOf<MarketUpdate>();
    const fills = channels.accountFills();
    expectTypeOf<ChannelPayload<typeof fills>>().toEqualTypeOf<FillUpdate>();
    const scores = channels.global('live_scores');
    expectTypeOf<ChannelPayload<typeof scores>>().toEqualTypeOf<LiveScoreUpdate>();
    // The typed builders name the same channels as the string ones.
    expect(book).toBe(orderBookMarketChannel(HASH));
  });

  it('has a payload schema for every kind the parser reports, and names parse to their kind', () => {
    const kinds: Record<ChannelKind, true> = {
      account_orders: true,
      account_trades: true,
      account_fills: true,
      active_orders: true,
      order_book_market: true,
      order_book_event: true,
      ce_refunds: true,
      best_odds: true,
      markets: true,
      parlay_markets: true,
      recent_trades: true,
      recent_trades_consolidated: true,
      main_line: true,
      fixtures: true,
      live_scores: true,
    };
    expect(Object.keys(CHANNEL_PAYLOADS).sort()).toEqual(Object.keys(kinds).sort());
    expect(parseChannel(orderBookMarketChannel(HASH))?.kind).toBe('order_book_market');
    expect(parseChannel(GLOBAL_CHANNELS.live_scores)?.kind).toBe('live_scores');
  });
});
