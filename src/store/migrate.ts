/**
 * @module Runs the numbered schema migrations (one file each under ./migrations). Each runs once, in order, inside a transaction; the
 * number reached is kept in SQLite's `user_version`. Never edit a released migration: add one.
 */
import type { SqlConnection } from './connection.js';
import { RESOURCES_MIGRATION } from './migrations/001-resources.js';
import { IDENTITY_MIGRATION } from './migrations/002-identity.js';
import { RECORDS_MIGRATION } from './migrations/003-records.js';
import { IDEMPOTENCY_MIGRATION } from './migrations/004-idempotency.js';
import { SPEC_VERSION_MIGRATION } from './migrations/005-spec-version.js';
import { SOURCES_MIGRATION } from './migrations/006-sources.js';
import { TOMBSTONES_MIGRATION } from './migrations/007-tombstones.js';
import { EVENT_AGGREGATION_MIGRATION } from './migrations/008-event-aggregation.js';
import { MANIFEST_CACHE_MIGRATION } from './migrations/009-manifest-cache.js';
import { STATUS_VERSION_MIGRATION } from './migrations/010-status-version.js';
import { SSH_HOST_KEYS_MIGRATION } from './migrations/011-ssh-host-keys.js';
import { BILLING_MIGRATION } from './migrations/012-billing.js';
import { IDENTITIES_MIGRATION } from './migrations/013-identities.js';
import { ALERTS_MIGRATION } from './migrations/014-alerts.js';
import { PLATFORM_MIGRATIONS_MIGRATION } from './migrations/015-migrations.js';
import { EVENT_WEBHOOKS_MIGRATION } from './migrations/016-event-webhooks.js';
import { DEPLOY_ON_PUSH_MIGRATION } from './migrations/017-deploy-on-push.js';
import { DASHBOARD_PREFERENCES_MIGRATION } from './migrations/018-dashboard-preferences.js';
import { SHARD_LEASES_MIGRATION } from './migrations/019-shard-leases.js';

export const MIGRATIONS: readonly string[] = [
  RESOURCES_MIGRATION,
  IDENTITY_MIGRATION,
  RECORDS_MIGRATION,
  IDEMPOTENCY_MIGRATION,
  SPEC_VERSION_MIGRATION,
  SOURCES_MIGRATION,
  TOMBSTONES_MIGRATION,
  EVENT_AGGREGATION_MIGRATION,
  MANIFEST_CACHE_MIGRATION,
  STATUS_VERSION_MIGRATION,
  SSH_HOST_KEYS_MIGRATION,
  BILLING_MIGRATION,
  IDENTITIES_MIGRATION,
  ALERTS_MIGRATION,
  PLATFORM_MIGRATIONS_MIGRATION,
  EVENT_WEBHOOKS_MIGRATION,
  DEPLOY_ON_PUSH_MIGRATION,
  DASHBOARD_PREFERENCES_MIGRATION,
  SHARD_LEASES_MIGRATION,
];

/**
 * Brings the database to the newest schema; returns the version reached. Each step reads the
 * version inside its own write transaction, so processes opening a new data dir at the same
 * moment never run a migration twice.
 */
export function migrate(db: SqlConnection): number {
  for (;;) {
    const done = db
      .transaction((): boolean => {
        const current = db.pragma('user_version', { simple: true }) as number;
        if (current > MIGRATIONS.length) {
          throw new Error(
            `the state database is at schema version ${current}, newer than this cairn knows (${MIGRATIONS.length}); upgrade cairn`,
          );
        }
        if (current === MIGRATIONS.length) return true;
        db.exec(MIGRATIONS[current] ?? '');
        db.pragma(`user_version = ${current + 1}`);
        return false;
      })
      .immediate();
    if (done) return MIGRATIONS.length;
  }
}
