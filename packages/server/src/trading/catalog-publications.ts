import { GLOBAL_CHANNELS, type MainLineUpdate } from '@oddsbook/protocol';
import type { CatalogEvent } from '../catalog/catalog-events.js';
import { fixtureToWire, liveScoreToWire, marketToWire } from '../catalog/wire.js';
import type { Publication } from '../realtime/publication.js';

/**
 * A catalog change as its publication, in the REST record shape. Catalog writes have no journal seq, so
 * the hub draws the messageId (a replay from history still carries the same one).
 */
export function catalogPublications(event: CatalogEvent): Publication[] {
  switch (event.type) {
    case 'fixture':
      return [{ channel: GLOBAL_CHANNELS.fixtures, data: fixtureToWire(event.fixture) }];
    case 'market':
      return [{ channel: GLOBAL_CHANNELS.markets, data: marketToWire(event.market) }];
    case 'liveScore':
      return [
        { channel: GLOBAL_CHANNELS.live_scores, data: liveScoreToWire(event.liveScore, event.fixture) },
      ];
    case 'mainLine': {
      const data: Omit<MainLineUpdate, 'messageId'> = {
        marketHash: event.marketHash,
        marketType: event.marketType,
        sportXEventId: event.eventId,
      };
      return [{ channel: GLOBAL_CHANNELS.main_line, data }];
    }
  }
}
