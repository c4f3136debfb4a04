import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * Integration test files that run the same whatever ODDSBOOK_TEST_STORE says: those that put nothing on the
 * tests' store (the realtime hub on its own sockets, the client's error codes, the SQLite journal by name) and
 * those that choose their stores themselves (the cluster, Redis and copy tests). The run on PostgreSQL (`npm run
 * test:postgres`) leaves them out, since it would run them unchanged a second time.
 */
const STORELESS = [
  'packages/server/test/client/error-codes.test.ts',
  'packages/server/test/sequencer/sequencer-durability.test.ts',
  'packages/server/test/cluster/shared-state.test.ts',
  'packages/server/test/http/redis-bucket-store.test.ts',
  'packages/server/test/process/cluster-roles.test.ts',
  'packages/server/test/process/cluster-nodes.test.ts',
  'packages/server/test/process/cluster-failover.test.ts',
  'packages/server/test/process/cluster-command.test.ts',
  'packages/server/test/process/realtime-role.test.ts',
  'packages/server/test/process/mixed-roles.test.ts',
  'packages/server/test/process/split-roles.test.ts',
  'packages/server/test/cluster/split-roles.test.ts',
  'packages/server/test/cluster/api-nodes.test.ts',
  'packages/server/test/cluster/catalog-changes.test.ts',
  'packages/server/test/cluster/realtime-nodes.test.ts',
  'packages/server/test/process/copy-to-postgres.test.ts',
  ...['auth', 'bad-commands', 'bounds', 'frames', 'limits', 'ping', 'race', 'recovery', 'subscribe'].map(
    (name) => `packages/server/test/realtime/${name}.test.ts`,
  ),
];

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of the workspace packages, never stale builds.
    alias: { '@oddsbook/protocol': src('protocol'), '@oddsbook/client': src('client') },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.ODDSBOOK_TEST_STORE === 'postgres' ? STORELESS : []),
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // On PostgreSQL (`npm run test:postgres`), the template database the tests' databases are copies of.
    globalSetup: ['packages/server/test/helpers/postgres-template.ts'],
  },
});
