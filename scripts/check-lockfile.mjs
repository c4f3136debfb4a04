#!/usr/bin/env node
// Checks that package-lock.json is the one `npm install` would write, and that npm finds no package whose
// `engines` excludes the running Node (its EBADENGINE warning): it runs `npm install --package-lock-only`
// on a copy of the manifests and the lockfile in a temp folder (no node_modules; no network needed when
// the lockfile is complete) and compares the result. Exit 0 when both hold; 1 with the reasons otherwise.
// CI runs it (.ci/run).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The workspace folders of the root package.json, a trailing `/*` read as every folder under it. */
function workspaceDirs() {
  return (rootManifest.workspaces ?? []).flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
}

/** What keeps package-lock.json from being the one npm writes, or npm from installing it quietly. */
function problems() {
  const copy = mkdtempSync(join(tmpdir(), 'oddsbook-lockfile-'));
  try {
    const files = ['package.json', 'package-lock.json', '.npmrc'];
    for (const dir of workspaceDirs()) files.push(join(dir, 'package.json'));
    for (const file of files) {
      if (!existsSync(join(root, file))) continue;
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(root, file), join(copy, file));
    }
    // Without the npm_config_* of an `npm run` that may have started this.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
    const npm = spawnSync(
      'npm',
      [
        'install',
        '--package-lock-only',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=warn',
      ],
      { cwd: copy, env, encoding: 'utf8', timeout: 120_000 },
    );
    if (npm.status !== 0)
      return [`\`npm install --package-lock-only\` fails:\n${npm.stderr || npm.error?.message}`];
    const found = [];
    const engineWarnings = npm.stderr.split('\n').filter((line) => line.includes('EBADENGINE'));
    if (engineWarnings.length > 0) {
      found.push(
        `npm warns that a package's engines exclude Node ${process.version}:\n${engineWarnings.join('\n')}\n` +
          'Pin a version of it (or of its dependent) that supports this Node with `overrides` in package.json.',
      );
    }
    const committed = readFileSync(join(root, 'package-lock.json'), 'utf8').split('\n');
    const rewritten = readFileSync(join(copy, 'package-lock.json'), 'utf8').split('\n');
    const first = committed.findIndex((line, i) => line !== rewritten[i]);
    if (first !== -1 || committed.length !== rewritten.length) {
      const at = first === -1 ? Math.min(committed.length, rewritten.length) : first;
      found.push(
        `npm install rewrites package-lock.json from line ${at + 1}:\n` +
          `  committed: ${committed
            .slice(at, at + 3)
            .join(' ')
            .trim()}\n` +
          `  npm:       ${rewritten
            .slice(at, at + 3)
            .join(' ')
            .trim()}\n` +
          'Run `npm install`, then `node scripts/complete-lockfile.mjs`, and commit package-lock.json.',
      );
    }
    return found;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const found = problems();
for (const problem of found) console.error(`check-lockfile: ${problem}`);
if (found.length > 0) process.exitCode = 1;
else
  console.log(
    'check-lockfile: package-lock.json is what npm install writes, and no engine excludes this Node',
  );
