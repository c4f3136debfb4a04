import type { BookLevels, EngineEvent, LevelView } from '../engine/index.js';

type Book = { eventId: string; version: number; sides: [Map<number, LevelView>, Map<number, LevelView>] };

/**
 * The books as the published batches leave them, followed from their `levelChanged` events (each gives a
 * level's absolute size), so a batch's book publications never depend on how far the engine has gone
 * since: it may already be applying the next batches.
 */
export class BookView {
  readonly #books = new Map<string, Book>();

  /** A market's book as it stands when the view starts following it. */
  seed(levels: BookLevels): void {
    const side = (list: readonly LevelView[]) => new Map(list.map((l) => [l.tick, l] as const));
    this.#books.set(levels.marketHash, {
      eventId: levels.eventId,
      version: levels.version,
      sides: [side(levels.outcomeOne), side(levels.outcomeTwo)],
    });
  }

  apply(event: EngineEvent): void {
    if (event.type === 'marketOpened') {
      this.#books.set(event.marketHash, {
        eventId: event.eventId,
        version: 0,
        sides: [new Map(), new Map()],
      });
    } else if (event.type === 'levelChanged') {
      const book = this.#books.get(event.marketHash);
      if (!book) return;
      book.version = event.version;
      const side = book.sides[event.isBettingOutcomeOne ? 0 : 1];
      if (event.orders === 0) side.delete(event.tick);
      else
        side.set(event.tick, {
          tick: event.tick,
          percentageOdds: event.percentageOdds,
          size: event.size,
          orders: event.orders,
        });
    }
  }

  /** Stops following a market (resolved: it changes no more). */
  forget(marketHash: string): void {
    this.#books.delete(marketHash);
  }

  /** Both sides, best (highest tick) first. */
  levels(marketHash: string): BookLevels | undefined {
    const book = this.#books.get(marketHash);
    if (!book) return undefined;
    const sorted = (side: Map<number, LevelView>) => [...side.values()].sort((a, b) => b.tick - a.tick);
    return {
      marketHash,
      eventId: book.eventId,
      outcomeOne: sorted(book.sides[0]),
      outcomeTwo: sorted(book.sides[1]),
      version: book.version,
    };
  }
}
