import { type BookSnapshot, channels } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { useEffect, useRef, useState } from 'preact/hooks';
import { isNewerBook } from './book.js';
import { follow } from './realtime.js';
import { publicClient } from './session.js';

/** Without a realtime connection (no API key yet) the book is polled at this interval. */
const POLL_MS = 2000;

/**
 * A market's book, maker frame, kept live: from the REST snapshot, then the `order_book:market_`
 * channel's whole-book publications (newer version wins); reseeded from REST whenever the subscription
 * could not recover what it missed. `refresh` reloads the snapshot at once (e.g. after a bet).
 */
export function useLiveBook(
  marketHash: string | undefined,
  centrifuge: Centrifuge | null,
): { book: BookSnapshot | null; live: boolean; error: unknown; refresh: () => void } {
  const [book, setBook] = useState<BookSnapshot | null>(null);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<unknown>();
  const held = useRef<BookSnapshot | null>(null);
  const reseed = useRef<() => void>(() => {});

  useEffect(() => {
    held.current = null;
    setBook(null);
    setLive(false);
    if (!marketHash) return;
    let stopped = false;
    const apply = (next: BookSnapshot) => {
      if (stopped || next.marketHash !== marketHash || !isNewerBook(held.current, next)) return;
      held.current = next;
      setBook(next);
    };
    const load = () =>
      publicClient()
        .getOrderBook(marketHash)
        .then((b) => {
          setError(undefined);
          apply(b);
        })
        .catch(setError);
    reseed.current = () => void load();
    if (centrifuge) {
      const stop = follow(centrifuge, channels.orderBookMarket(marketHash), {
        onData: apply,
        reseed: () => void load(),
        onState: setLive,
      });
      return () => {
        stopped = true;
        stop();
      };
    }
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [marketHash, centrifuge]);

  return { book, live, error, refresh: () => reseed.current() };
}
