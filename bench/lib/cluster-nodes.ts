import { type Child, exchangeArgs, exchangeEnv, startChild, stopChild } from './exchange-process.js';

/** A node of the bench's cluster: its role, its port and data dir (kept for a restart), the running child. */
export type BenchNode = {
  name: string;
  role: 'sequencer' | 'api' | 'all';
  port: number;
  dataDir: string;
  child: Child;
};

export type NodeHealth = { state: string; epoch: number | null; lastSeq: number };

export async function nodeHealth(node: BenchNode): Promise<NodeHealth | null> {
  try {
    const r = await fetch(`${node.child.base}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await r.json()) as { data?: NodeHealth };
    return body.data ?? null;
  } catch {
    return null;
  }
}

/**
 * Starts `oddsbook serve --role <role>` as a child process and waits for its /health (a sequencer answers
 * as soon as it listens, standby or leader).
 */
export async function startNode(o: {
  name: string;
  role: BenchNode['role'];
  port: number;
  dataDir: string;
  adminToken: string;
  env: Record<string, string>;
  dist: boolean;
}): Promise<BenchNode> {
  const args = exchangeArgs([], o.dist);
  if (o.role !== 'all') args.push('--role', o.role);
  const child = await startChild(args, { ...exchangeEnv(o.dataDir, o.port, o.adminToken), ...o.env }, o.port);
  return { name: o.name, role: o.role, port: o.port, dataDir: o.dataDir, child };
}

/** Starts the node again on its port and data dir, as a supervisor would after it died. */
export async function restartNode(
  node: BenchNode,
  o: { adminToken: string; env: Record<string, string>; dist: boolean },
): Promise<BenchNode> {
  return startNode({ ...node, ...o });
}

export const stopNode = (node: BenchNode) => stopChild(node.child);

/** Waits until `check` holds, polling every `everyMs`; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
