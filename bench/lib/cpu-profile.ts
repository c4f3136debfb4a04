/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` file): self time by function, by source
 * file and by folder or package, over the whole profile or a window of it (ms from the profile's start).
 * Self time of a sample is the time to the next one (the last sample's is the profile's end).
 *
 * As a command: node --import tsx bench/lib/cpu-profile.ts <file.cpuprofile> [--from <ms>] [--until <ms>] [--top <n>]
 * (or a wall-clock window: --end-epoch <ms> --from-epoch <ms> --until-epoch <ms>).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame };
type Profile = {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

export type ProfileSummary = {
  /** Sampled time in the window, ms. */
  totalMs: number;
  /** Of it, the thread idle (waiting for work), ms. */
  idleMs: number;
  /** The profile's whole length, ms. */
  profileMs: number;
  functions: { name: string; ms: number }[];
  files: { name: string; ms: number }[];
  folders: { name: string; ms: number }[];
};

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where a frame's code lives: a repository path, a package, `node:` internals, or V8's own entries. */
function fileOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return `(${frame.functionName || 'native'})`.replace(/^\(\((.*)\)\)$/, '($1)');
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  if (inModules) return `${inModules[1]}/${inModules[2]}`;
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/** A file's folder in the repository (`packages/server/src/store`), or its package (`fastify`), or `node:*`. */
function folderOf(file: string, frame: CallFrame): string {
  if (file.startsWith('(')) return file;
  if (file.startsWith('node:')) return file.split('/')[0]!.replace(/^node:internal$/, 'node:internal');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
  if (inModules) return `npm:${inModules[1]}`;
  const slash = file.lastIndexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: us / 1000 }));

export type ProfileWindow = {
  /** From and until, ms from the profile's start. */
  fromMs?: number;
  untilMs?: number;
  /**
   * Or in wall-clock (epoch) ms, with the epoch time the profile ended at (the process's exit, as the parent
   * saw it): a profile's own times are monotonic, not wall-clock.
   */
  endEpochMs?: number;
  fromEpochMs?: number;
  untilEpochMs?: number;
  top?: number;
};

export function summarizeProfile(file: string, options: ProfileWindow = {}): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const epoch = (ms: number | undefined) =>
    ms === undefined || options.endEpochMs === undefined
      ? undefined
      : profile.endTime - (options.endEpochMs - ms) * 1000;
  const from = epoch(options.fromEpochMs) ?? profile.startTime + (options.fromMs ?? 0) * 1000;
  const until =
    epoch(options.untilEpochMs) ??
    (options.untilMs === undefined ? Number.POSITIVE_INFINITY : profile.startTime + options.untilMs * 1000);
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  const folders = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const next = i + 1 < profile.samples.length ? t + profile.timeDeltas[i + 1]! : profile.endTime;
    if (t < from || t >= until) continue;
    const self = Math.max(0, next - t);
    const frame = byId.get(profile.samples[i]!)!.callFrame;
    const where = fileOf(frame);
    const name =
      frame.url === '' ? where : `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + self);
    files.set(where, (files.get(where) ?? 0) + self);
    const folder = folderOf(where, frame);
    folders.set(folder, (folders.get(folder) ?? 0) + self);
    total += self;
    if (frame.functionName === '(idle)') idle += self;
  }
  const n = options.top ?? 15;
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    profileMs: (profile.endTime - profile.startTime) / 1000,
    functions: top(functions, n),
    files: top(files, n),
    folders: top(folders, n),
  };
}

/** The summary as text: three ranked lists with ms and share of the window's sampled time. */
export function formatSummary(s: ProfileSummary, indent = '  '): string {
  const list = (title: string, rows: { name: string; ms: number }[]) =>
    [
      `${indent}${title}:`,
      ...rows.map(
        (r) =>
          `${indent}  ${r.ms.toFixed(0).padStart(7)} ms ${((100 * r.ms) / Math.max(1e-9, s.totalMs)).toFixed(1).padStart(5)} %  ${r.name}`,
      ),
    ].join('\n');
  return [
    `${indent}${s.totalMs.toFixed(0)} ms sampled in the window (profile ${s.profileMs.toFixed(0)} ms), ${(s.totalMs - s.idleMs).toFixed(0)} ms busy; self time:`,
    list('by function', s.functions),
    list('by file', s.files),
    list('by folder or package', s.folders),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: cpu-profile.ts <file.cpuprofile> [--from <ms>] [--until <ms>] [--top <n>]');
    process.exit(2);
  }
  const flag = (name: string) => {
    const at = rest.indexOf(name);
    return at >= 0 ? Number(rest[at + 1]) : undefined;
  };
  const options: ProfileWindow = {};
  const flags = {
    fromMs: '--from',
    untilMs: '--until',
    top: '--top',
    endEpochMs: '--end-epoch',
    fromEpochMs: '--from-epoch',
    untilEpochMs: '--until-epoch',
  } as const;
  for (const [key, name] of Object.entries(flags) as [keyof typeof flags, string][]) {
    const value = flag(name);
    if (value !== undefined) options[key] = value;
  }
  console.log(formatSummary(summarizeProfile(file, options)));
}
