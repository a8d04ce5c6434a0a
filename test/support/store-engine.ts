/**
 * @module Which engine the store runs on in this test project: the `postgres` project provides
 * its server's URL (postgres-store-global.ts), the default one runs on SQLite. Tests about
 * SQLite's own file (its WAL, a second connection to it) run only where that file exists.
 */
import { inject, it } from 'vitest';

export const storeEngineUnderTest: 'sqlite' | 'postgres' = inject('postgresAdminUrl') ? 'postgres' : 'sqlite';

/** `it` for a test that reads or writes SQLite's state file itself; skipped on PostgreSQL, where there is none. */
export const itOnSqliteFile = storeEngineUnderTest === 'sqlite' ? it : it.skip;
