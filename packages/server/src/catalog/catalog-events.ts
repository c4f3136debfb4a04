import type { FixtureView, LiveScoreRecord, MarketView } from '../store/repositories.js';

/**
 * What changed in the catalog, emitted after the write has committed. The realtime layer maps these to
 * `fixtures:global`, `markets:global`, `fixtures:live_scores` and `main_line:global`.
 */
export type CatalogEvent =
  | { type: 'fixture'; fixture: FixtureView }
  | { type: 'market'; market: MarketView }
  | { type: 'liveScore'; fixture: FixtureView; liveScore: LiveScoreRecord }
  | { type: 'mainLine'; eventId: string; marketType: number; marketHash: `0x${string}` };

export type CatalogListener = (event: CatalogEvent) => void;

/** A tiny synchronous emitter: a throwing listener is reported, never allowed to break the write path. */
export class CatalogEvents {
  readonly #listeners = new Set<CatalogListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: CatalogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: CatalogEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
