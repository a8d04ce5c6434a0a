/**
 * @module The migrations of one cairn process: its platforms (from CAIRN_HEROKU_API_URL and
 * CAIRN_RAILWAY_API_URL) and its runner, built on the API's store and drivers. Resources a
 * migration creates are waited for up to 15 minutes, read every CAIRN_POLL_MS (default 1 s).
 */
import type { DriverPool } from '../reconcile/driver-pool.js';
import type { Store } from '../store/store.js';
import { createMigrationPlatforms } from './platforms.js';
import { MigrationRunner } from './runner.js';
import { DEFAULT_TARBALL_LIMIT_BYTES } from './source-tarball.js';
import type { MigrationService } from '../api/routes/migration-routes.js';

const READY_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_POLL_MS = 1_000;

export function createMigrationService(
  deps: { store: Store; drivers: DriverPool; afterWrite: () => void },
  env: NodeJS.ProcessEnv = process.env,
  onError: (migrationId: string, error: unknown) => void = () => undefined,
): MigrationService {
  const platforms = createMigrationPlatforms(env);
  const poll = Number(env.CAIRN_POLL_MS);
  const runner = new MigrationRunner(
    {
      store: deps.store,
      drivers: deps.drivers,
      platformFor: (id) => platforms[id],
      afterWrite: deps.afterWrite,
      readyTimeoutMs: READY_TIMEOUT_MS,
      pollMs: Number.isInteger(poll) && poll > 0 ? poll : DEFAULT_POLL_MS,
      tarballMaxBytes: DEFAULT_TARBALL_LIMIT_BYTES,
    },
    (migration, error) => onError(migration.id, error),
  );
  return { platforms, runner };
}
