#!/usr/bin/env node
// @oddsbook/client ships @oddsbook/protocol inside its tarball (`bundleDependencies`): protocol is not
// published on its own. npm packs a bundled dependency only from the package's own node_modules, and in this
// workspace protocol is a link in the root's, so `prepack` runs `bundle-protocol.mjs stage` (copy the files
// protocol would publish, as listed by its `npm pack --dry-run`, to packages/client/node_modules) and
// `postpack` runs `bundle-protocol.mjs remove`. npm installs no dependency of a bundled package, so each of
// protocol's dependencies must be a dependency of the client too, at the same version: staging checks that.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('..', import.meta.url));
const protocolDir = join(clientDir, '..', 'protocol');
const staged = join(clientDir, 'node_modules', '@oddsbook', 'protocol');

function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** Removes the staged copy, and the scope and node_modules folders if that leaves them empty. */
function remove() {
  rmSync(staged, { recursive: true, force: true });
  for (const dir of [dirname(staged), dirname(dirname(staged))]) {
    try {
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    } catch {
      // absent already
    }
  }
}

function stage() {
  const client = readManifest(clientDir);
  const protocol = readManifest(protocolDir);
  const missing = Object.entries(protocol.dependencies ?? {}).filter(
    ([name, version]) => client.dependencies?.[name] !== version,
  );
  if (missing.length > 0) {
    const list = missing.map(([name, version]) => `"${name}": "${version}"`).join(', ');
    throw new Error(`the bundled @oddsbook/protocol needs these in the client's dependencies too: ${list}`);
  }
  // Without the npm_config_* of the pack running this script (a -w or --pack-destination is not for this one).
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: protocolDir,
      encoding: 'utf8',
      env,
    }),
  );
  if (packed?.name !== protocol.name)
    throw new Error(`npm pack listed ${packed?.name}, not ${protocol.name}`);
  if (!packed.files.some((file) => file.path === 'dist/index.js'))
    throw new Error('@oddsbook/protocol is not built (dist/index.js missing)');
  // Copied aside, then renamed into place: a process of the workspace resolving @oddsbook/protocol from
  // the client's sources meanwhile (the tests run beside a pack) finds the link or a whole copy, never a
  // half-written one.
  const aside = `${staged}.staging`;
  rmSync(aside, { recursive: true, force: true });
  for (const { path } of packed.files) {
    mkdirSync(dirname(join(aside, path)), { recursive: true });
    cpSync(join(protocolDir, path), join(aside, path));
  }
  rmSync(staged, { recursive: true, force: true });
  renameSync(aside, staged);
  console.error(`bundle-protocol: ${packed.files.length} files of @oddsbook/protocol staged for the tarball`);
}

const command = process.argv[2];
if (command === 'stage') stage();
else if (command === 'remove') remove();
else {
  console.error('usage: bundle-protocol.mjs stage|remove');
  process.exitCode = 2;
}
