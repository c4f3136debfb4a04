import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.js';

const root = mkdtempSync(join(tmpdir(), 'oddsbook-main-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Runs the CLI in this process: its exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...line) => void out.push(line.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...line) => void err.push(line.join(' ')));
  try {
    return { code: await main(argv), out: out.join('\n'), err: err.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

/** Exit code 2, and a first line that names the setting. */
async function expectRefused(argv: string[], message: RegExp): Promise<void> {
  const { code, err } = await cli(...argv);
  expect(code, err).toBe(2);
  expect(err.split('\n')[0]).toMatch(/^oddsbook: /);
  expect(err.split('\n')[0]).toMatch(message);
}

const quiet = ['--no-demo', '--log-level', 'silent'];

describe('oddsbook CLI', () => {
  it('answers --help on every command and sub-command without creating a data dir', async () => {
    const dataDir = join(root, 'help');
    const at = ['--data-dir', dataDir];
    for (const [argv, usage] of [
      [['--help'], /^Usage: oddsbook <command>/],
      [['help'], /^Usage: oddsbook <command>/],
      [['help', 'replay'], /^Usage: oddsbook replay/],
      [['serve', '--help', ...at], /^Usage: oddsbook serve[\s\S]*--data-dir/],
      [['serve', ...at, '-h'], /^Usage: oddsbook serve/],
      [['replay', '--help', ...at], /^Usage: oddsbook replay/],
      [['keys', '--help', ...at], /^Usage: oddsbook keys create/],
      [['keys', 'create', '--help', ...at], /^Usage: oddsbook keys create <address>/],
      [
        ['keys', 'create', '0x52908400098527886e0f7030069857d2e4169ee7', '--help', ...at],
        /^Usage: oddsbook keys/,
      ],
      [['keys', 'list', '-h', ...at], /^Usage: oddsbook keys/],
      [['keys', 'revoke', '--help', ...at], /^Usage: oddsbook keys/],
      [['copy-to-postgres', '--help', ...at], /^Usage: oddsbook copy-to-postgres --database-url/],
      [['help', 'copy-to-postgres'], /^Usage: oddsbook copy-to-postgres/],
    ] as const) {
      const { code, out, err } = await cli(...argv);
      expect(code, `${argv.join(' ')}: ${err}`).toBe(0);
      expect(out, argv.join(' ')).toMatch(usage);
    }
    expect(existsSync(dataDir)).toBe(false);
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v', 'version']) {
      expect(await cli(flag)).toEqual({ code: 0, out: `oddsbook ${version}`, err: '' });
    }
  });

  it('refuses a data dir that is not a directory, naming the flag or the variable', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    await expectRefused(['serve', '--data-dir', file], /^oddsbook: --data-dir .*a-file is not a directory$/);
    await expectRefused(['serve', '--data-dir', join(file, 'below')], /--data-dir .*below cannot be used/);
    await expectRefused(['replay', '--data-dir', file], /--data-dir .* is not a directory/);
    await expectRefused(
      ['keys', 'list', '0x52908400098527886e0f7030069857d2e4169ee7', '--data-dir', file],
      /is not a directory/,
    );
    vi.stubEnv('DATA_DIR', file);
    await expectRefused(['serve'], /^oddsbook: DATA_DIR .*a-file is not a directory$/);
  });

  it('refuses a data dir it cannot write to', async () => {
    // Permission bits do not stop root; sysfs refuses new files to everyone.
    let readOnly = '/sys/kernel';
    if (process.getuid?.() !== 0) {
      readOnly = join(root, 'read-only');
      mkdirSync(readOnly);
      chmodSync(readOnly, 0o555);
    }
    await expectRefused(['serve', '--data-dir', readOnly], /--data-dir .* is not writable/);
  });

  it('refuses a busy port and a bad host, naming the setting', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    const dataDir = join(root, 'listen');
    try {
      await expectRefused(
        ['serve', ...quiet, '--data-dir', dataDir, '--port', port],
        new RegExp(`^oddsbook: --port ${port} is already in use on 127\\.0\\.0\\.1`),
      );
      vi.stubEnv('PORT', port);
      await expectRefused(
        ['serve', ...quiet, '--data-dir', dataDir],
        new RegExp(`^oddsbook: PORT ${port} is already in use`),
      );
    } finally {
      taken.close();
    }
    await expectRefused(
      ['serve', '--host', '127.0.0.1:8080'],
      /^oddsbook: --host must be an IP address or a host name/,
    );
    vi.stubEnv('HOST', 'a b');
    await expectRefused(['serve'], /^oddsbook: HOST must be an IP address or a host name, got "a b"/);
    // A documentation address (RFC 5737) that no interface here has.
    await expectRefused(
      ['serve', ...quiet, '--data-dir', dataDir, '--port', '0', '--host', '192.0.2.1'],
      /^oddsbook: --host 192\.0\.2\.1 is not an address of this machine/,
    );
  }, 60_000);

  it('refuses a database it cannot reach or use, naming the setting and never its password', async () => {
    const dataDir = join(root, 'database');
    await expectRefused(
      ['serve', ...quiet, '--data-dir', dataDir, '--database-url', 'mysql://127.0.0.1/x'],
      /^oddsbook: --database-url must be a postgres:\/\/ URL/,
    );
    // Nothing listens on port 1.
    const unreachable = 'postgres://oddsbook:secret@127.0.0.1:1/oddsbook';
    // copy-to-postgres looks for the data dir's database first (its content: the database refuses before).
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'oddsbook.sqlite'), '');
    for (const command of [
      ['serve', ...quiet],
      ['replay'],
      ['keys', 'list', `0x${'a'.repeat(40)}`],
      ['copy-to-postgres'],
    ]) {
      const { code, err } = await cli(...command, '--data-dir', dataDir, '--database-url', unreachable);
      expect(code, err).toBe(2);
      expect(err).toMatch(
        /^oddsbook: --database-url postgres:\/\/oddsbook:\*\*\*@127\.0\.0\.1:1\/oddsbook: .*ECONNREFUSED/,
      );
      expect(err).not.toContain('secret');
    }
    vi.stubEnv('DATABASE_URL', unreachable);
    await expectRefused(['serve', ...quiet, '--data-dir', dataDir], /^oddsbook: DATABASE_URL postgres:/);
  }, 60_000);

  it('copies to PostgreSQL only from a data dir that has an exchange, into the database it is given', async () => {
    const empty = join(root, 'nothing-to-copy');
    mkdirSync(empty);
    await expectRefused(
      ['copy-to-postgres', '--data-dir', empty],
      /^oddsbook: copy-to-postgres needs DATABASE_URL \(--database-url/,
    );
    await expectRefused(
      ['copy-to-postgres', '--data-dir', empty, '--database-url', 'postgres://127.0.0.1:1/x'],
      /^oddsbook: --data-dir .*nothing-to-copy holds no oddsbook\.sqlite: nothing to copy$/,
    );
    expect(existsSync(join(empty, 'oddsbook.sqlite'))).toBe(false);
  });
});
