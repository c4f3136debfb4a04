import { describe, expect, it } from 'vitest';
import { type CatalogEvent, CatalogEvents } from './catalog-events.js';

const EVENT: CatalogEvent = {
  type: 'mainLine',
  eventId: 'L1',
  marketType: 3,
  marketHash: `0x${'00'.repeat(32)}`,
};

describe('CatalogEvents', () => {
  it('delivers to every listener; a throwing listener is reported and does not stop the others', () => {
    const errors: unknown[] = [];
    const events = new CatalogEvents((error) => errors.push(error));
    const seen: string[] = [];
    events.on(() => {
      throw new Error('boom');
    });
    const off = events.on((event) => seen.push(event.type));
    events.emit(EVENT);
    off();
    events.emit(EVENT);
    expect(seen).toEqual(['mainLine']);
    expect(errors).toHaveLength(2);
  });
});
