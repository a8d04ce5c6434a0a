// @module vitest configuration: unit tests beside the code, cross-module and end-to-end tests in test/.
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The suites that run a second time with the store on PostgreSQL (the `postgres` project: every
 * Store.open of a data dir gets a database of its own there): those of the store and of everything
 * that drives it — the APIs, sign-in, the reconcile loop, git sources, billing, alerts, event
 * webhooks, migrations, kubectl, the end-to-end CLI and serve suites (a spawned `cairn --data-dir D`
 * uses D's database too), the local and SSH runtimes, every vendor's apply, and the browser.
 * Left out: suites about SQLite's own file; suites that open no store (units of the drivers, the
 * model, the CLI's parsing); and the vendors' crash and managed-database suites but for AWS's and
 * Hetzner's crash and Atlas through serve, which take the same store paths through other vendors'
 * doubles (running them all twice would take `npm test` past its 15 minutes).
 */
const POSTGRES_ONLY = ['test/store-on-postgres.test.ts'];
const POSTGRES_SUITES = [
  ...['store', 'api', 'auth', 'reconcile', 'sources', 'billing', 'alerts', 'event-webhooks', 'migrations', 'ssh-keys'].map((dir) => `src/${dir}/**/*.test.ts`),
  'src/cli/**/*.test.ts',
  'test/api/*.test.ts',
  'test/reconcile*.test.ts',
  'test/drift.test.ts',
  ...['alerts', 'app-deployments', 'app-webhook', 'bad-input', 'billing', 'cli-roundtrip', 'crash', 'database-backups', 'database-credentials', 'event-webhooks', 'faults', 'gitops', 'import', 'plan-refresh', 'provider-credentials', 'redeclared-while-deleting', 'serve', 'serve-watch', 'server-actions', 'sign-in-providers'].map((name) => `test/${name}.test.ts`),
  'test/kubernetes/*.test.ts',
  'test/migrations/*.test.ts',
  'test/sharded-controllers.test.ts',
  'test/dashboard/watch.test.ts',
  'test/dashboard/preferences.test.ts',
  // What writes the store from the runtimes and the vendor kit: tenant isolation, the local
  // runtime (its crash included), the SSH runtime (its crash included), every vendor's apply, the
  // vendor kit's crash recovery on two vendors, a managed database through serve, the browser.
  ...['security', 'cli-deploy', 'local-app', 'local-database', 'local-app-recovery', 'crash-local', 'ssh-apply', 'crash-ssh', 'ssh-keys-on-servers', 'ssh-key-reconcile', 'ssh-terminal'].map((name) => `test/${name}.test.ts`),
  'test/vendors/*-apply.test.ts',
  ...['aws-crash', 'hetzner-crash', 'atlas-serve'].map((name) => `test/vendors/${name}.test.ts`),
  'test/openapi/route-coverage.test.ts',
  'test/dashboard/browser.test.ts',
  ...POSTGRES_ONLY,
];
/** About SQLite's own file: its pragmas, a second connection to it, and losing it with the data dir (on PostgreSQL the state outlives the data dir). */
const SQLITE_ONLY = ['src/store/sqlite.test.ts', 'src/store/commit-group.test.ts', 'src/reconcile/durable-drivers.test.ts', 'test/kubernetes/controller-record.test.ts'];

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
