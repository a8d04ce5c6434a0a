/**
 * @module What `cairn serve` serves over HTTP: the API app built from the store, an
 * authentication service (signing key made on first run), drivers for what is asked of vendors
 * directly, metrics and the logger. It also tells the operator what first-run steps remain.
 */
import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { createApiApp } from '../api/app.js';
import type { ReadinessProbe } from '../api/health.js';
import { createMetricsRegistry } from '../api/metrics.js';
import { createReconcileMetrics, type ReconcileMetrics } from '../api/reconcile-metrics.js';
import { createShardMetrics } from '../api/shard-metrics.js';
import { AuthService } from '../auth/auth-service.js';
import { identitySignInFromEnv, type IdentitySignIn } from '../auth/identity-providers/identity-sign-in.js';
import { IdentitySettingsError } from '../auth/identity-providers/settings.js';
import { CliError } from './cli-error.js';
import { openBilling } from '../billing/billing.js';
import { createLogger, logLevelFromEnv } from '../logging/logger.js';
import type { Controller, ControllerOptions } from '../reconcile/controller.js';
import { type DriverPool, driverPoolFor } from '../reconcile/driver-pool.js';
import type { Store } from '../store/store.js';
import { sshShellsFor } from '../api/terminal/ssh-shells.js';
import type { Terminals } from '../api/terminal/terminal-route.js';
import { TerminalSessions } from '../api/terminal/terminal-sessions.js';
import type { MigrationService } from '../api/routes/migration-routes.js';
import { createMigrationService } from '../migrations/migration-service.js';
import { UrlSettingError } from '../net/url-setting.js';

export interface ServedApi {
  express: Express;
  drivers: DriverPool;
  reconcileMetrics: ReconcileMetrics;
  auth: AuthService;
  /** The terminal's sessions (closed when serve stops). */
  terminals: Terminals;
  /** The Prometheus registry `GET /metrics` serves. */
  metrics: Registry;
  /** Migrations from Heroku and Railway: resumed once this process reconciles, stopped with it. */
  migrations: MigrationService;
}

export async function buildApi(
  store: Store,
  dataDir: string,
  controllerOptions: ControllerOptions,
  hooks: { readiness: ReadinessProbe; controller: () => Controller; requestSourceSync?: (sourceId: string) => void },
): Promise<ServedApi> {
  // Bad billing settings or a bad plans file stop cairn before anything else happens.
  const billing = openBilling(store);
  console.log(billing.enabled
    ? `billing: on (Stripe${billing.settings.apiBase ? ` at ${billing.settings.apiBase.origin}` : ''}); plans free, pro, business`
    : 'billing: off (no CAIRN_STRIPE_SECRET_KEY); every tenant is on the unlimited self-hosted plan');
  const logger = createLogger({ level: logLevelFromEnv() });
  const metrics = createMetricsRegistry();
  const reconcileMetrics = createReconcileMetrics(metrics, { queueDepthByKind: () => hooks.controller().queueDepthByKind() });
  createShardMetrics(metrics, { heldShards: () => hooks.controller().heldShards() });
  const key = store.secrets.describeMasterKey();
  if (key.source === 'generated') {
    console.log(`generated a master key at ${key.path} (mode 0600; key id ${key.keyId}); back it up: without it, stored credentials cannot be read. Set CAIRN_MASTER_KEY to keep the key outside the data dir.`);
  } else {
    console.log(`master key: ${key.source === 'env' ? 'from CAIRN_MASTER_KEY' : key.path} (key id ${key.keyId})`);
  }
  if (key.warning) console.log(`warning: ${key.warning}`);
  const auth = await AuthService.open(store, {});
  const identitySignIn = signInThroughProviders(store, auth);
  const drivers = driverPoolFor(store, dataDir, controllerOptions.requestTimeoutMs ?? 10_000, controllerOptions.deadlines ? { deadlines: controllerOptions.deadlines } : {});
  const terminals: Terminals = { shells: sshShellsFor(drivers), sessions: new TerminalSessions({ audit: store.auditLog }) };
  const migrations = migrationService(store, drivers, () => hooks.controller().readFeed(), (id, error) => {
    logger.error({ err: error, migration_id: id }, 'migration run failed');
  });
  const express = createApiApp({
    store, auth, drivers, logger, metrics, terminals, identitySignIn, billing, migrations,
    readiness: hooks.readiness,
    afterWrite: () => hooks.controller().readFeed(),
    ...(hooks.requestSourceSync ? { requestSourceSync: hooks.requestSourceSync } : {}),
  });
  if (!auth.hasUsers()) {
    console.log(`no users yet: add the first one with  cairn users add --email you@example.com --role owner --data-dir ${dataDir}`);
  }
  return { express, drivers, reconcileMetrics, auth, terminals, metrics, migrations };
}

/** The migrations' platforms and runner; a platform URL setting that cannot be used stops serve, named. */
function migrationService(store: Store, drivers: DriverPool, afterWrite: () => void, onError: (id: string, error: unknown) => void): MigrationService {
  try {
    return createMigrationService({ store, drivers, afterWrite }, process.env, onError);
  } catch (error) {
    if (error instanceof UrlSettingError) throw new CliError(error.message);
    throw error;
  }
}

/** Sign-in through GitHub, Google and GitLab as the environment configures it; a bad setting stops serve, named. */
function signInThroughProviders(store: Store, auth: AuthService): IdentitySignIn {
  try {
    const signIn = identitySignInFromEnv(store, auth, process.env);
    const on = signIn.enabledProviders();
    if (on.length > 0) console.log(`sign-in through ${on.join(', ')} is on`);
    return signIn;
  } catch (error) {
    if (error instanceof IdentitySettingsError) throw new CliError(error.message);
    throw error;
  }
}
