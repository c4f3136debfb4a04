/**
 * The exchange's own figures from its /metrics, as the benches read them: the sequencer's group commits and
 * the projector's rows and lag (issue 36), each as the difference between two scrapes around a phase.
 */

/** One scrape of /metrics: sample lines by name with their labels (`name{le="0.5"}`). */
export type Scrape = Map<string, number>;

export async function scrape(base: string): Promise<Scrape> {
  const body = await (await fetch(`${base}/metrics`)).text();
  const out: Scrape = new Map();
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

const value = (s: Scrape, name: string) => s.get(name) ?? Number.NaN;

export type GroupCommits = { batches: number; inputs: number; seconds: number };

/** The sequencer's batches, the inputs in them, and their seconds from queue to durable, between two scrapes. */
export function groupCommits(before: Scrape, after: Scrape): GroupCommits {
  const d = (name: string) => value(after, name) - value(before, name);
  return {
    batches: d('oddsbook_sequencer_batch_inputs_count'),
    inputs: d('oddsbook_sequencer_batch_inputs_sum'),
    seconds: d('oddsbook_sequencer_commit_seconds_sum'),
  };
}

export type ProjectorFigures = {
  /** Rows the projector wrote (orders, fills, trades, refunds) between the scrapes. */
  rows: number;
  batches: number;
  /** Mean seconds from a batch handed on to its rows written. */
  meanDelay: number;
  /** The histogram bucket holding the 99th percentile of that delay: its upper bound, s (Infinity: above all). */
  p99DelayBound: number;
  /** The highest `oddsbook_projector_lag_seconds` sampled during the phase (LagSampler). */
  maxLagSeconds: number;
  /** Inputs not yet projected when the phase ended. */
  lagSeqAtEnd: number;
};

const DELAY = 'oddsbook_projector_delay_seconds';

/** The projector's rows and delay between two scrapes. */
export function projectorFigures(before: Scrape, after: Scrape, maxLagSeconds: number): ProjectorFigures {
  const d = (name: string) => value(after, name) - value(before, name);
  const batches = d(`${DELAY}_count`);
  const buckets = [...after.keys()]
    .filter((k) => k.startsWith(`${DELAY}_bucket{`))
    .map((k) => ({ le: Number(/le="([^"]+)"/.exec(k)?.[1]), n: d(k) }))
    .sort((a, b) => a.le - b.le);
  const p99 = buckets.find((b) => b.n >= 0.99 * batches)?.le ?? Number.POSITIVE_INFINITY;
  return {
    rows: d('oddsbook_projector_rows_total'),
    batches,
    meanDelay: batches > 0 ? d(`${DELAY}_sum`) / batches : 0,
    p99DelayBound: p99,
    maxLagSeconds,
    lagSeqAtEnd: value(after, 'oddsbook_projector_lag_seq'),
  };
}

/** Samples the projector's lag (its oldest unprojected batch's wait) every `everyMs` while a phase runs. */
export function sampleLag(base: string, everyMs = 250): { stop(): Promise<number> } {
  let max = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        max = Math.max(max, value(await scrape(base), 'oddsbook_projector_lag_seconds'));
      } catch {
        // a scrape that failed under load: the next one counts
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return max;
    },
  };
}
