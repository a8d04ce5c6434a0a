/**
 * @module vitest global setup of the `postgres` project: one throwaway PostgreSQL 15 server on
 * loopback for the whole run, its URL given to the test files (`inject('postgresAdminUrl')`).
 */
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres-server.js';
import type { PostgresAdminUrl } from './provided-context.js';

export default async function startSharedPostgres(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  const url: PostgresAdminUrl = server.url;
  project.provide('postgresAdminUrl', url);
  return () => server.stop();
}
