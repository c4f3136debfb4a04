import { channels, type PublicTradeRow } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { useEffect, useRef, useState } from 'preact/hooks';
import { follow } from './realtime.js';
import { publicClient } from './session.js';

/** The tape is read again this often while a market is shown: without a realtime connection, and with one. */
const TAPE_POLL_MS = 10_000;
const TAPE_POLL_LIVE_MS = 60_000;
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

/**
 * A market's tape summary, from `GET /trades-v3/public`: read again when `recent_trades:global` publishes a bet
 * of this market (with a realtime connection), every 10 s without one, and on `refresh`.
 */
export function useMarketTape(
  marketHash: string | undefined,
  centrifuge: Centrifuge | null,
): {
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
    let loading: Promise<void> | null = null;
    let again = false;
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
    // One read at a time; bets published during it ask for one more after it.
    const run = () => {
      if (loading) {
        again = true;
        return;
      }
      loading = load()
        .catch(() => undefined)
        .finally(() => {
          loading = null;
          if (again && !stopped) {
            again = false;
            run();
          }
        });
    };
    run();
    const timer = setInterval(run, centrifuge ? TAPE_POLL_LIVE_MS : TAPE_POLL_MS);
    const unfollow = centrifuge
      ? follow(centrifuge, channels.global('recent_trades'), {
          onData: (trade) => {
            if (trade.marketHash === marketHash || trade.quarterLineParentMarketHash === marketHash) run();
          },
          reseed: run,
        })
      : undefined;
    return () => {
      stopped = true;
      clearInterval(timer);
      unfollow?.();
    };
  }, [marketHash, centrifuge, tick]);
  return { tape, refresh: () => setTick((t) => t + 1) };
}
