#!/usr/bin/env node
// The npm registry mirror this project is built from lacks some other-platform binaries (for example
// @biomejs/cli-darwin-arm64). npm then leaves those optional packages out of package-lock.json, and
// `npm ci` refuses the lockfile as out of sync. This adds an entry for every optional dependency the
// lockfile lacks, with the os/cpu/libc its name declares, so npm ci accepts the lockfile and skips them on
// this platform, as it would with a complete registry. Run it after `npm install` changes the lockfile.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'openbsd',
  'openharmony',
  'win32',
  'sunos',
  'aix',
  'netbsd',
];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => (p.startsWith('arm') && p !== 'arm64' ? 'arm' : p)).find((p) => p in CPU);
  const libc = parts.some((p) => p.startsWith('musl') || p === 'musleabihf')
    ? 'musl'
    : parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : null;
  if (!os || !cpu) return null;
  return { os: [os], cpu: [CPU[cpu]], ...(os === 'linux' && libc ? { libc: [libc] } : {}) };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `${key ? `${key}/` : ''}node_modules/${name}`;
    if (lock.packages[`node_modules/${name}`] || lock.packages[at]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    lock.packages[`node_modules/${name}`] = {
      version,
      ...platform,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) =>
    a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  ),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} optional platform package(s) recorded`);
