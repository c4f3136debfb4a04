#!/usr/bin/env node
// The npm registry mirror this project is built from lacks some other-platform binaries (for example
// @biomejs/cli-darwin-arm64). npm then leaves those optional packages out of package-lock.json, and
// `npm ci` refuses the lockfile as out of sync. This adds an entry for every optional dependency the
// lockfile lacks, with the os/cpu/libc its name declares, so npm ci accepts the lockfile and skips them on
// this platform, as it would with a complete registry. Run it after `npm install` changes the lockfile.
// It writes the file exactly as npm does (key order below), so a later `npm install` leaves it unchanged;
// `node scripts/check-lockfile.mjs` checks that.
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

// npm writes lockfiles with json-stringify-nice: in every object, these keys first in this order, then the
// other plain values, then the nested objects, each group by localeCompare('en') (so "string_decoder" sorts
// before "string-width", where a code-unit sort puts it after).
const NPM_KEY_ORDER = [
  'name',
  'version',
  'lockfileVersion',
  'resolved',
  'integrity',
  'requires',
  'packages',
  'dependencies',
];

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function compareKeys(a, b) {
  const ia = NPM_KEY_ORDER.indexOf(a);
  const ib = NPM_KEY_ORDER.indexOf(b);
  if (ia !== -1 || ib !== -1) return ia === -1 ? 1 : ib === -1 ? -1 : ia - ib;
  return a.localeCompare(b, 'en');
}

function stringifyLikeNpm(lock) {
  const sorted = (_key, value) =>
    isObject(value)
      ? Object.fromEntries(
          Object.entries(value).sort(([ak, av], [bk, bv]) =>
            isObject(av) === isObject(bv) ? compareKeys(ak, bk) : isObject(av) ? 1 : -1,
          ),
        )
      : value;
  return `${JSON.stringify(lock, sorted, 2)}\n`;
}

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
writeFileSync(path, stringifyLikeNpm(lock));
console.log(`complete-lockfile: ${added} optional platform package(s) recorded`);
