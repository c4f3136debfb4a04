import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENGINE_DIR = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

describe('engine purity', () => {
  const files = sourceFiles(ENGINE_DIR);

  it('finds the engine sources', () => {
    expect(files.map((f) => relative(ENGINE_DIR, f))).toContain('engine.ts');
  });

  it.each(files.map((f) => [relative(ENGINE_DIR, f), f]))(
    '%s imports only from the engine folder',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        expect(spec.startsWith('./') || spec.startsWith('../'), `${spec} is not a relative import`).toBe(
          true,
        );
        const target = resolve(dirname(file), spec);
        expect(
          target === ENGINE_DIR || target.startsWith(ENGINE_DIR + sep),
          `${spec} leaves the engine folder`,
        ).toBe(true);
      }
    },
  );

  it.each(files.map((f) => [relative(ENGINE_DIR, f), f]))(
    '%s uses no clock, randomness, I/O or async',
    (_name, file) => {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const banned of [
        /\bDate\b/,
        /\bMath\./,
        /\bprocess\b/,
        /\brequire\(/,
        /\bsetTimeout\b/,
        /\bsetInterval\b/,
        /\basync\b/,
        /\bawait\b/,
        /\bPromise\b/,
      ]) {
        expect(code, `${banned} in ${file}`).not.toMatch(banned);
      }
    },
  );
});
