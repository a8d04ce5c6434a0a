// @module vitest configuration: unit tests beside the code, cross-module and end-to-end tests in test/.
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The suites that run a second time with the store on PostgreSQL (CAIRN_STORE): those of the store
 * itself and of what drives it in process. A suite about SQLite's own file (its pragmas, a second
 * connection to the file) stays SQLite's.
 */
const POSTGRES_ONLY = ['test/store-on-postgres.test.ts'];
const POSTGRES_SUITES = ['src/store/**/*.test.ts', ...POSTGRES_ONLY];
const SQLITE_ONLY = ['src/store/sqlite.test.ts', 'src/store/commit-group.test.ts'];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'cairn', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: POSTGRES_ONLY } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: POSTGRES_SUITES,
          exclude: SQLITE_ONLY,
          setupFiles: ['test/support/postgres-store-setup.ts'],
          globalSetup: ['test/support/postgres-store-global.ts'],
        },
      },
    ],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three workers on two cores: the suites spend about a third of their time waiting on peers
    // (sandbox clouds, sshd, PostgreSQL, spawned CLIs), so a third file keeps the cores busy.
    maxWorkers: 3,
    setupFiles: ['test/support/every-test-asserts.ts'],
    // The tests spawn the compiled CLI; dist/ is rebuilt first when src/ changed since.
    globalSetup: ['test/support/compiled-cli-setup.ts'],
    // Tests run their peers (sandbox clouds, git servers) on loopback, which the outbound guard
    // closes by default, and make local apps in temporary directories, outside the directory
    // cairn starts in; the security tests go back to the defaults. The vendor doubles publish no
    // hourly budget, so drivers (and the CLIs tests spawn) may send at 20 times each vendor's
    // published rate; what a double says (RateLimit-*, a 429's Retry-After) is still followed.
    env: {
      CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true',
      CAIRN_LOCAL_SOURCE_DIRS: [tmpdir(), fileURLToPath(new URL('.', import.meta.url))].join(','),
      CAIRN_VENDOR_RATE_SCALE: '20',
    },
  },
});
