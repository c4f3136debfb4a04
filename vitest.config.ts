import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of the workspace packages, never stale builds.
    alias: { '@oddsbook/protocol': src('protocol'), '@oddsbook/client': src('client') },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // On PostgreSQL (`npm run test:postgres`), the template database the tests' databases are copies of.
    globalSetup: ['packages/server/test/helpers/postgres-template.ts'],
  },
});
