import type { PublicTradeRow } from '@oddsbook/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { publicClient } from './session.js';

/** The tape is read again this often while a market is shown. */
const TAPE_POLL_MS = 10_000;
/** At most this many taker bets are summed (the tape's newest); a busier market says "at least". */
const TAPE_ROWS = 1000;

export type TapeSummary = {
  /** The newest taker bet: its odds (the taker's) and the outcome it backed. */
  last: { odds: bigint; outcome: 1 | 2; at: string } | null;
  /** Stake matched on both sides: each taker bet's pot (its stake and the makers' stakes it matched). */
  matched: bigint;
  bets: number;
  /** Whether the tape held more bets than were summed. */
  partial: boolean;
};

/** Last traded price and matched volume from a market's public tape (newest first). */
export function tapeSummary(rows: readonly PublicTradeRow[], partial = false): TapeSummary {
  const newest = rows[0];
  return {
    last: newest
      ? {
          odds: BigInt(newest.weightedAverageOdds),
          outcome: newest.isBettingOutcomeOne ? 1 : 2,
          at: newest.betTime,
        }
      : null,
    matched: rows.reduce((sum, r) => sum + BigInt(r.totalReturn), 0n),
    bets: rows.length,
    partial,
  };
}

/** A market's tape summary, from `GET /trades-v3/public`, read again every 10 s and on `refresh`. */
export function useMarketTape(marketHash: string | undefined): {
  tape: TapeSummary | null;
  refresh: () => void;
} {
  const [tape, setTape] = useState<TapeSummary | null>(null);
  const [tick, setTick] = useState(0);
  const shown = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (shown.current !== marketHash) setTape(null);
    shown.current = marketHash;
    if (!marketHash) return;
    let stopped = false;
    const load = async () => {
      const rows: PublicTradeRow[] = [];
      let partial = false;
      for await (const row of publicClient().publicTrades({ marketHash, perPage: 100 })) {
        if (rows.length === TAPE_ROWS) {
          partial = true;
          break;
        }
        rows.push(row);
      }
      if (!stopped) setTape(tapeSummary(rows, partial));
    };
    const run = () => void load().catch(() => undefined);
    run();
    const timer = setInterval(run, TAPE_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [marketHash, tick]);
  return { tape, refresh: () => setTick((t) => t + 1) };
}
