import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a node of a local cluster runs (`--role`): one of sequencer, projector, chain, api, realtime, or a
 * comma list of them run by one process (`sequencer,projector,chain` is the whole leader;
 * `sequencer,projector,chain,api,realtime` a node that is everything).
 */
export type LocalNodeRole = string;

const ROLES = ['sequencer', 'projector', 'chain', 'api', 'realtime'];
const rolesOf = (role: LocalNodeRole) => role.split(',').map((r) => r.trim());
const isSequencer = (role: LocalNodeRole) => rolesOf(role).includes('sequencer');
/** The projector and the chain driver without a sequencer: each leads under a lease, or waits for it. */
const isLeased = (role: LocalNodeRole) =>
  !isSequencer(role) && rolesOf(role).some((r) => r === 'projector' || r === 'chain');
/** API and realtime nodes: nothing leads or stands by in them. */
const isServing = (role: LocalNodeRole) => !isSequencer(role) && !isLeased(role);

export type LocalNodeSpec = {
  /** Unique in the cluster: `sequencer-1`, `api-2`, ... (its data dir and log file are named after it). */
  name: string;
  role: LocalNodeRole;
  /** Its HTTP port; 0: the system's choice at the first start, kept for every restart. */
  port: number;
};

/** What a node logged of its state: a sequencer's or a leased role's `standby`/`leader`, an HTTP node's `serving`. */
export type LocalNodeState = 'starting' | 'standby' | 'leader' | 'serving' | 'exited';

export type LocalNode = {
  readonly name: string;
  readonly role: LocalNodeRole;
  readonly dataDir: string;
  /** The process running now (or last); null before the first start. */
  readonly pid: number | null;
  /** host:port of its HTTP server once it listens; kept across restarts. */
  readonly address: string | null;
  readonly url: string | null;
  readonly state: LocalNodeState;
  /** A sequencer's leader epoch, from its log (null for a standby and the other roles). */
  readonly epoch: number | null;
  /** Times it was started again after its first start. */
  readonly restarts: number;
  /** Its last lines of output (stdout and stderr), for a failure's report. */
  output(): string;
};

export type LocalClusterEvent =
  | { kind: 'ready'; node: LocalNode }
  | { kind: 'state'; node: LocalNode }
  | {
      kind: 'exited';
      node: LocalNode;
      code: number | null;
      signal: NodeJS.Signals | null;
      /** Asked for (kill, stop): the supervisor leaves it down. */
      expected: boolean;
    }
  | { kind: 'restarting'; node: LocalNode; inMs: number }
  | { kind: 'restart-failed'; node: LocalNode; error: Error };

export type LocalClusterOptions = {
  databaseUrl: string;
  natsUrl: string;
  /** CLUSTER: names the NATS subjects and streams. */
  cluster: string;
  /** One operator token for every node. */
  adminToken: string;
  host?: string;
  /** The nodes; by default `defaultTopology(basePort)`. */
  nodes?: readonly LocalNodeSpec[];
  basePort?: number;
  /** More environment for every node (DEMO, LOG_LEVEL, BLOCK_TIME_MS, ...), over this process's. */
  env?: Record<string, string>;
  /** Where the nodes' data dirs (and logs) go; by default a temp dir, removed by `stop`. */
  dataRoot?: string;
  /** Each node's output appended to `<dataRoot>/<name>.log`. */
  logFiles?: boolean;
  /** Start a node again when it exits without being asked to (as a supervisor does). */
  supervise?: boolean;
  /** How long a start may take before it counts as failed (default 90 s). */
  readyTimeoutMs?: number;
  onEvent?: (event: LocalClusterEvent) => void;
};

/**
 * Two sequencers, one projector, one chain driver, two API nodes on `basePort` and `basePort + 1`, one
 * realtime node on `basePort + 2`; the sequencers' HTTP servers on `basePort + 3` and `+ 4`, the projector's
 * and the chain driver's on `+ 5` and `+ 6`. A base port of 0 lets the system choose each.
 */
export function defaultTopology(basePort: number): LocalNodeSpec[] {
  const at = (offset: number) => (basePort === 0 ? 0 : basePort + offset);
  return [
    { name: 'sequencer-1', role: 'sequencer', port: at(3) },
    { name: 'sequencer-2', role: 'sequencer', port: at(4) },
    { name: 'projector-1', role: 'projector', port: at(5) },
    { name: 'chain-1', role: 'chain', port: at(6) },
    { name: 'api-1', role: 'api', port: at(0) },
    { name: 'api-2', role: 'api', port: at(1) },
    { name: 'realtime-1', role: 'realtime', port: at(2) },
  ];
}

/**
 * How this process runs the `oddsbook` CLI: from the sources through tsx when it runs from them (the tests,
 * `node --import tsx src/cli.ts`), else the built `dist/cli.js` beside this module (`npm start`, the bin).
 */
export function cliCommand(): { args: string[]; cwd: string } {
  const fromSources = import.meta.url.endsWith('.ts');
  const cli = fileURLToPath(new URL(fromSources ? '../cli.ts' : '../cli.js', import.meta.url));
  // tsx is resolved from the server package, whatever the caller's working directory.
  const packageDir = fileURLToPath(new URL('../..', import.meta.url));
  return fromSources ? { args: ['--import', 'tsx', cli], cwd: packageDir } : { args: [cli], cwd: packageDir };
}

const KEPT_LINES = 400;

/** One node: its spec, its current process, what its log said. */
class NodeProcess implements LocalNode {
  readonly name: string;
  readonly role: LocalNodeRole;
  readonly dataDir: string;
  port: number;
  child: ChildProcess | null = null;
  address: string | null = null;
  /** The current process has said where it listens. */
  listening = false;
  state: LocalNodeState = 'starting';
  epoch: number | null = null;
  restarts = 0;
  /** Set while an exit is asked for (kill, stop): not restarted. */
  exitExpected = false;
  lines: string[] = [];
  logFile: WriteStream | null = null;
  restartTimer: NodeJS.Timeout | null = null;
  /** Consecutive starts that ended within a minute: the supervisor's backoff grows with them. */
  quickFailures = 0;
  startedAt = 0;

  constructor(
    spec: LocalNodeSpec,
    dataRoot: string,
    readonly host: string,
  ) {
    this.name = spec.name;
    this.role = spec.role;
    this.port = spec.port;
    this.dataDir = join(dataRoot, spec.name);
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get url(): string | null {
    return this.address ? `http://${this.address}` : null;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.lines.join('\n');
  }

  keep(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
    this.logFile?.write(`${line}\n`);
  }
}

/**
 * A cluster of `oddsbook serve --role …` child processes on this machine (ADR 0018): each node with its own
 * port and data dir, the shared DATABASE_URL, NATS_URL, CLUSTER and ADMIN_TOKEN. It starts them in order
 * (the sequencers, then the API and realtime nodes), waits until each is ready, can stop one with a signal
 * and start it again, optionally restarts a node that exits (a supervisor), and stops them all.
 */
export class LocalCluster {
  private readonly o: LocalClusterOptions;
  private readonly host: string;
  private readonly dataRoot: string;
  private readonly ownsDataRoot: boolean;
  private readonly byName = new Map<string, NodeProcess>();
  private readonly listeners = new Set<() => void>();
  private stopping: Promise<void> | null = null;

  constructor(o: LocalClusterOptions) {
    this.o = o;
    this.host = o.host ?? '127.0.0.1';
    this.ownsDataRoot = o.dataRoot === undefined;
    this.dataRoot = o.dataRoot ?? mkdtempSync(join(tmpdir(), 'oddsbook-cluster-'));
    mkdirSync(this.dataRoot, { recursive: true });
    const specs = o.nodes ?? defaultTopology(o.basePort ?? 0);
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`two nodes named ${spec.name}`);
      const unknown = rolesOf(spec.role).filter((r) => !ROLES.includes(r));
      if (unknown.length > 0)
        throw new Error(`${spec.name}: no role ${unknown.join(', ')} (${ROLES.join(', ')})`);
      this.byName.set(spec.name, new NodeProcess(spec, this.dataRoot, this.host));
    }
  }

  /** CLUSTER: the name of its NATS subjects and streams. */
  get name(): string {
    return this.o.cluster;
  }

  /** The directory holding each node's data dir (and log file). */
  get root(): string {
    return this.dataRoot;
  }

  get nodes(): readonly LocalNode[] {
    return [...this.byName.values()];
  }

  node(name: string): LocalNode {
    return this.nodeProcess(name);
  }

  /** The running sequencer whose log last said it leads, if any. */
  leader(): LocalNode | undefined {
    return [...this.byName.values()].find((n) => isSequencer(n.role) && n.running && n.state === 'leader');
  }

  /** Waits until a running sequencer leads (other than `except`, say the one just killed). */
  async waitForLeader(o: { except?: string; timeoutMs?: number } = {}): Promise<LocalNode> {
    return this.waitUntil(
      () => {
        const leader = this.leader();
        return leader && leader.name !== o.except ? leader : undefined;
      },
      o.timeoutMs ?? this.o.readyTimeoutMs ?? 90_000,
      'a leading sequencer',
    );
  }

  /**
   * Starts every node and resolves once each is ready: the sequencers first, one at a time, until one
   * leads, then the projector and the chain driver, then the API and realtime nodes together. A node that
   * fails to start stops them all.
   */
  async start(): Promise<void> {
    const all = [...this.byName.values()];
    try {
      const sequencers = all.filter((n) => isSequencer(n.role));
      for (const node of sequencers) await this.startNode(node.name);
      // A sequencer is ready as a standby; the first of them takes the lease within a second or so.
      if (sequencers.length > 0) await this.waitForLeader();
      await Promise.all(all.filter((n) => isLeased(n.role)).map((n) => this.startNode(n.name)));
      await Promise.all(all.filter((n) => isServing(n.role)).map((n) => this.startNode(n.name)));
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Starts one node (again: same port, same data dir) and resolves once it is ready. */
  async startNode(name: string): Promise<LocalNode> {
    const node = this.nodeProcess(name);
    if (this.stopping) throw new Error('the cluster is stopping');
    if (node.running) throw new Error(`${name} is running (pid ${node.pid})`);
    if (node.restartTimer) clearTimeout(node.restartTimer);
    node.restartTimer = null;
    if (node.child) node.restarts += 1;
    this.spawn(node);
    await this.ready(node);
    this.emit({ kind: 'ready', node });
    return node;
  }

  /**
   * Sends `signal` to one node and resolves with how it ended. The exit is expected: the supervisor leaves
   * the node down until `startNode`.
   */
  async signal(
    name: string,
    signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const node = this.nodeProcess(name);
    const child = node.child;
    if (!child || !node.running) throw new Error(`${name} is not running`);
    node.exitExpected = true;
    const ended = exitOf(child);
    child.kill(signal);
    return ended;
  }

  /**
   * SIGTERMs every node (API and realtime first, then the projector and the chain driver, then standbys, the
   * leader last), SIGKILL after 15 s.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const all = [...this.byName.values()];
      for (const node of all) {
        if (node.restartTimer) clearTimeout(node.restartTimer);
        node.restartTimer = null;
      }
      const leader = this.leader();
      const waves = [
        all.filter((n) => isServing(n.role)),
        all.filter((n) => isLeased(n.role)),
        all.filter((n) => isSequencer(n.role) && n !== leader),
        leader ? [leader as NodeProcess] : [],
      ];
      for (const wave of waves) await Promise.all(wave.map((node) => this.terminate(node)));
      for (const node of all) node.logFile?.end();
      if (this.ownsDataRoot) rmSync(this.dataRoot, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  private async terminate(node: NodeProcess): Promise<void> {
    const child = node.child;
    if (!child || !node.running) return;
    node.exitExpected = true;
    const ended = exitOf(child);
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await ended;
    clearTimeout(force);
  }

  private nodeProcess(name: string): NodeProcess {
    const node = this.byName.get(name);
    if (!node) throw new Error(`no node ${name} (${[...this.byName.keys()].join(', ')})`);
    return node;
  }

  private spawn(node: NodeProcess): void {
    mkdirSync(node.dataDir, { recursive: true });
    if (this.o.logFiles && !node.logFile)
      node.logFile = createWriteStream(join(this.dataRoot, `${node.name}.log`), { flags: 'a' });
    const { args, cwd } = cliCommand();
    const child = spawn(process.execPath, [...args, 'serve', '--role', node.role], {
      cwd,
      env: {
        ...process.env,
        // A node's readiness and state are read from its log lines.
        LOG_LEVEL: 'info',
        ...this.o.env,
        ROLE: node.role,
        DATABASE_URL: this.o.databaseUrl,
        NATS_URL: this.o.natsUrl,
        CLUSTER: this.o.cluster,
        ADMIN_TOKEN: this.o.adminToken,
        HOST: this.host,
        PORT: String(node.port),
        DATA_DIR: node.dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: a terminal's Ctrl-C reaches only this process, which stops the nodes in
      // order (the leader last) rather than all at once.
      detached: true,
    });
    node.child = child;
    node.state = 'starting';
    node.epoch = null;
    node.listening = false;
    node.exitExpected = false;
    node.startedAt = performance.now();
    node.keep(`--- ${new Date().toISOString()} started: pid ${child.pid}`);
    const onLines = (stream: NodeJS.ReadableStream, parse: boolean) => {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          node.keep(line);
          if (parse && child === node.child) this.read(node, line);
        }
      });
    };
    onLines(child.stdout!, true);
    onLines(child.stderr!, false);
    child.once('exit', (code, signal) => this.exited(node, child, code, signal));
  }

  /** What a node's log line says of its address and state. */
  private read(node: NodeProcess, line: string): void {
    if (!line.startsWith('{')) return;
    let entry: {
      msg?: string;
      state?: string;
      epoch?: number;
      address?: string;
      port?: number;
      role?: string;
      roles?: string[];
    };
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    const before = node.state;
    // Where it listens: the API's "oddsbook is up" (a URL), a node's status server, a realtime node's port.
    if (entry.msg === 'oddsbook is up' && typeof entry.address === 'string')
      this.listens(node, new URL(entry.address).host);
    else if ((entry.role === 'sequencer' || Array.isArray(entry.roles)) && typeof entry.address === 'string')
      this.listens(node, entry.address);
    else if (entry.role === 'realtime' && typeof entry.port === 'number')
      this.listens(node, `${this.host}:${entry.port}`);
    // Its state: its sequencer's; else its first leased role's (a projector,chain node leads both or neither,
    // in turn); else serving once it listens.
    const leading = isSequencer(node.role)
      ? 'sequencer'
      : rolesOf(node.role).find((r) => r === 'projector' || r === 'chain');
    if (leading) {
      if (entry.role === leading && (entry.state === 'standby' || entry.state === 'leader')) {
        node.state = entry.state;
        node.epoch = entry.state === 'leader' ? (entry.epoch ?? null) : null;
      }
    } else if (node.listening) node.state = 'serving';
    if (node.state !== before) {
      this.emit({ kind: 'state', node });
      for (const listener of this.listeners) listener();
    }
  }

  private listens(node: NodeProcess, address: string): void {
    node.address = address;
    node.listening = true;
    // A restart listens where clients knew it.
    if (node.port === 0) node.port = Number(address.slice(address.lastIndexOf(':') + 1));
    for (const listener of this.listeners) listener();
  }

  /** Ready: a sequencer listens and says standby or leader; an API or realtime node listens. */
  private async ready(node: NodeProcess): Promise<void> {
    const child = node.child!;
    const timeoutMs = this.o.readyTimeoutMs ?? 90_000;
    await this.waitUntil(
      () => {
        if (child !== node.child || !node.running)
          throw new Error(`${node.name} exited while starting; its output:\n${node.output()}`);
        return node.listening && node.state !== 'starting' ? true : undefined;
      },
      timeoutMs,
      `${node.name} to be ready`,
      () => node.output(),
    );
  }

  private exited(node: NodeProcess, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null) {
    if (child !== node.child) return;
    const expected = node.exitExpected || this.stopping !== null;
    node.state = 'exited';
    node.epoch = null;
    node.keep(`--- ${new Date().toISOString()} exited: code ${code} signal ${signal}`);
    for (const listener of this.listeners) listener();
    this.emit({ kind: 'exited', node, code, signal, expected });
    if (expected || !this.o.supervise) return;
    // A node that keeps failing at once is started again less and less often (1 s doubling to 30 s).
    node.quickFailures = performance.now() - node.startedAt < 60_000 ? node.quickFailures + 1 : 0;
    const inMs = Math.min(30_000, 1_000 * 2 ** Math.max(0, node.quickFailures - 1));
    this.emit({ kind: 'restarting', node, inMs });
    node.restartTimer = setTimeout(() => {
      node.restartTimer = null;
      if (this.stopping || node.running) return;
      this.startNode(node.name).catch((error: unknown) => {
        this.emit({
          kind: 'restart-failed',
          node,
          error: error instanceof Error ? error : new Error(String(error)),
        });
      });
    }, inMs);
  }

  private emit(event: LocalClusterEvent): void {
    try {
      this.o.onEvent?.(event);
    } catch {
      // A listener's failure is not the cluster's.
    }
  }

  /** Resolves with `probe`'s first defined value, re-checked on every log change and every 100 ms. */
  private waitUntil<T>(
    probe: () => T | undefined,
    timeoutMs: number,
    what: string,
    detail?: () => string,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (error: unknown, value?: T) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        clearTimeout(timer);
        this.listeners.delete(check);
        if (error) reject(error);
        else resolve(value as T);
      };
      const check = () => {
        try {
          const value = probe();
          if (value !== undefined) finish(null, value);
        } catch (error) {
          finish(error);
        }
      };
      const poll = setInterval(check, 100);
      const timer = setTimeout(
        () =>
          finish(
            new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `:\n${detail()}` : ''}`),
          ),
        timeoutMs,
      );
      this.listeners.add(check);
      check();
    });
  }
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}
