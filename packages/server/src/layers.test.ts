import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/**
 * The server's folders from the bottom up: a folder imports only from folders of lower layers (never
 * from its own layer's other folders, never up). The root (app, main, cli) composes them all.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['lib'],
  ['signing', 'engine', 'realtime', 'sqlite'],
  ['config'],
  ['chain', 'records'],
  ['sequencer'],
  ['settlement'],
  ['store'],
  ['catalog', 'auth'],
  ['orders'],
  ['trading', 'wallets'],
  ['legacy'],
  ['cluster'],
  ['exchange'],
  ['http'],
  ['commands', 'demo'],
  ['(root)'],
];

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((f) => [f, layer] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'test-support.ts' ? [path] : [];
  });
}

const IMPORT = /(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function folderOf(path: string): string {
  const rel = relative(SRC, path);
  return rel.includes(sep) ? rel.split(sep)[0]! : '(root)';
}

describe('the server folders', () => {
  const files = sourceFiles(SRC);

  it('each has a layer', () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => !layerOf.has(f))).toEqual([]);
  });

  it.each(files.map((f) => [relative(SRC, f), f]))('%s imports only from lower layers', (_name, file) => {
    const from = folderOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = folderOf(resolve(dirname(file), m[1] ?? m[2]!));
      if (to === from) continue;
      expect(layerOf.get(to)!, `${m[1] ?? m[2]} runs from ${from} to ${to}`).toBeLessThan(layerOf.get(from)!);
    }
  });
});

/**
 * Inside `store/`, each store's implementation keeps to itself: `store/sqlite` (with the shared `sqlite/`
 * helpers and better-sqlite3) and `store/postgres` (with pg) import the ports and records, never each other.
 */
const STORES: Record<string, { foreign: RegExp }> = {
  [join('store', 'sqlite')]: { foreign: /^pg$|store\/postgres\// },
  [join('store', 'postgres')]: { foreign: /^better-sqlite3$|store\/sqlite\/|(^|\/)sqlite\// },
};
const ANY_IMPORT = /(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(?\s*['"]([^'"]+)['"]/gm;

describe('the store implementations', () => {
  for (const [dir, { foreign }] of Object.entries(STORES)) {
    it.each(sourceFiles(join(SRC, dir)).map((f) => [relative(SRC, f), f]))(
      '%s imports no other store',
      (_name, file) => {
        for (const m of readFileSync(file, 'utf8').matchAll(ANY_IMPORT)) {
          const spec = m[1] ?? m[2]!;
          const target = spec.startsWith('.')
            ? relative(SRC, resolve(dirname(file), spec))
                .split(sep)
                .join('/')
            : spec;
          expect(target, `${spec} in ${dir}`).not.toMatch(foreign);
        }
      },
    );
  }
});
