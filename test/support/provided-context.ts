/**
 * @module What the tests' global setups provide to the test files (`inject(…)`), declared once.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The `postgres` project's server, as its administrator (postgres-store-global.ts). */
    postgresAdminUrl: PostgresAdminUrl;
  }
}

/** A postgres:// URL that may create databases. */
export type PostgresAdminUrl = string;
