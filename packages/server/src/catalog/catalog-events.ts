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

/**
 * `origin` is `elsewhere` for a change another node of a cluster made (this node only hears of it: what a
 * change sets in motion, like closing its markets in the engine, is the other node's).
 */
export type CatalogListener = (event: CatalogEvent, origin: 'here' | 'elsewhere') => void;

/** A tiny synchronous emitter: a throwing listener is reported, never allowed to break the write path. */
export class CatalogEvents {
  readonly #listeners = new Set<CatalogListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribes; returns the unsubscribe function. */
  on(listener: CatalogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: CatalogEvent, origin: 'here' | 'elsewhere' = 'here'): void {
    for (const listener of this.#listeners) {
      try {
        listener(event, origin);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
