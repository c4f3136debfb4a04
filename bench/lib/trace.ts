import { Agent, request } from 'node:http';
import { LATE_MS } from './open-loop.js';

/**
 * With BENCH_TRACE=1, a paced phase prints a time series per 100 ms window: requests sent and answered,
 * latency (p50 / max) of the requests sent in the window, this process's event-loop lag (max of a 5 ms
 * timer's lateness) and the round trip of a `GET /health` probe sent every 20 ms on its own keep-alive
 * connection (the server's event loop, independent of the order path). To tell a slow server from a slow
 * load generator.
 */
export const TRACE = process.env.BENCH_TRACE === '1' || process.env.BENCH_TRACE === 'true';

const WINDOW_MS = 100;

type Window = { sent: number; done: number; lat: number[]; lag: number; probe: number[]; late: number };

export function startTrace(url: string, t0: number) {
  const windows: Window[] = [];
  const at = (t: number): Window => {
    const i = Math.max(0, Math.floor((t - t0) / WINDOW_MS));
    for (let k = windows.length; k <= i; k++)
      windows.push({ sent: 0, done: 0, lat: [], lag: 0, probe: [], late: 0 });
    return windows[i]!;
  };
  let stopped = false;
  // Client event-loop lag: how late a 5 ms timer fires.
  let expected = performance.now() + 5;
  const lagTimer = setInterval(() => {
    const now = performance.now();
    const w = at(now);
    w.lag = Math.max(w.lag, now - expected);
    expected = now + 5;
  }, 5);
  // Server probe.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const probe = () => {
    if (stopped) return;
    const s = performance.now();
    const req = request({ agent, hostname, port, path: '/health', method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => {
        at(s).probe.push(performance.now() - s);
        setTimeout(probe, 20);
      });
    });
    req.on('error', () => setTimeout(probe, 20));
    req.end();
  };
  probe();
  return {
    sent(t: number) {
      at(t).sent++;
    },
    late(t: number) {
      at(t).late++;
    },
    done(sentAt: number, doneAt: number) {
      at(doneAt).done++;
      at(sentAt).lat.push(doneAt - sentAt);
    },
    stop(label: string) {
      stopped = true;
      clearInterval(lagTimer);
      agent.destroy();
      const q = (a: number[], p: number) =>
        a.length === 0
          ? '-'
          : a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))]!.toFixed(1);
      // Window 0 as a wall-clock time, to line the series up with the server's CPU profile (BENCH_PROFILE).
      const epoch = Math.round(Date.now() - (performance.now() - t0));
      const lines = [
        `trace ${label}, window 0 at epoch ms ${epoch}: window(ms) sent done late(>${LATE_MS} ms) | lat p50 max (by send window) | client lag max | probe p50 max`,
      ];
      windows.forEach((w, i) => {
        lines.push(
          `  ${String(i * WINDOW_MS).padStart(6)} ${String(w.sent).padStart(4)} ${String(w.done).padStart(4)} ${String(w.late).padStart(4)} | ${q(w.lat, 0.5).padStart(7)} ${q(w.lat, 1).padStart(7)} | ${w.lag.toFixed(1).padStart(6)} | ${q(w.probe, 0.5).padStart(6)} ${q(w.probe, 1).padStart(6)}`,
        );
      });
      console.log(lines.join('\n'));
    },
  };
}
