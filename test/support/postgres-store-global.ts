/**
 * @module vitest global setup of the `postgres` project: one throwaway PostgreSQL 15 server on
 * loopback for the whole run, its URL given to the test files (`inject('postgresAdminUrl')`).
 */
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export default async function startSharedPostgres(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  project.provide('postgresAdminUrl', server.url);
  return () => server.stop();
}
