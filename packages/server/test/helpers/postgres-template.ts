import type { TestProject } from 'vitest/node';
import {
  createTemplateDatabase,
  requirePostgres,
} from '../../src/store/test-support/postgres-test-database.js';

/**
 * vitest's global setup: a run on PostgreSQL (`ODDSBOOK_TEST_STORE=postgres`) makes the template database
 * once, before any test file starts, and drops it after the last (test-store.ts makes the copies); a run on
 * SQLite needs none.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.ODDSBOOK_TEST_STORE !== 'postgres') return undefined;
  await requirePostgres();
  const template = await createTemplateDatabase();
  project.provide('postgresTemplate', template.name);
  return () => template.drop();
}
