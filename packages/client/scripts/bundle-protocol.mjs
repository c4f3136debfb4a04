#!/usr/bin/env node
// @oddsbook/client ships @oddsbook/protocol inside its tarball (`bundleDependencies`): protocol is not
// published on its own. npm packs a bundled dependency only from the package's own node_modules, and in this
// workspace protocol is a link in the root's, so `prepack` runs `bundle-protocol.mjs stage` (a link
// packages/client/node_modules/@oddsbook/protocol -> packages/protocol, which npm packs as the files protocol
// would publish) and `postpack` runs `bundle-protocol.mjs remove`. A link, not a copy: a process of the
// workspace that resolves @oddsbook/protocol from the client meanwhile (the tests run beside a pack) reaches
// the same real files either way, so the removal cannot pull a file from under a module being loaded. npm
// installs no dependency of a bundled package, so each of protocol's dependencies must be a dependency of the
// client too, at the same version: staging checks that.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('..', import.meta.url));
const protocolDir = join(clientDir, '..', 'protocol');
const staged = join(clientDir, 'node_modules', '@oddsbook', 'protocol');

function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** Removes the staged link, and the scope and node_modules folders if that leaves them empty. */
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
  if (!existsSync(join(protocolDir, 'dist', 'index.js')))
    throw new Error('@oddsbook/protocol is not built (dist/index.js missing)');
  rmSync(staged, { recursive: true, force: true });
  mkdirSync(dirname(staged), { recursive: true });
  symlinkSync(relative(dirname(staged), protocolDir), staged, 'dir');
  console.error('bundle-protocol: @oddsbook/protocol linked for the tarball');
}
const command = process.argv[2];
if (command === 'stage') stage();
else if (command === 'remove') remove();
else {
  console.error('usage: bundle-protocol.mjs stage|remove');
  process.exitCode = 2;
}
