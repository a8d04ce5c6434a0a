/**
 * @module The five steps of a migration, each safe to run again after a crash:
 * 1. `read_config`: the config var values and database URLs, read from the platform with the API
 *    key and sealed at once (purpose `migration-values`); without a key, values sealed by an
 *    earlier run are used, else the step fails asking for the key again (POST /migrations/{id}/retry).
 * 2. `create_databases`: the Database manifests applied as source `api` (quotas, host access and
 *    the reconcile loop apply as to any manifest), labelled with the migration, then waited for.
 * 3. `copy_data`: each PostgreSQL database dumped from the platform into its new Database, row
 *    counts compared per table (a target that already holds the same rows is left alone).
 * 4. `create_apps`: each App's config vars sealed as its env (database URL vars left to cairn's
 *    injected DATABASE_URL / <NAME>_URL), its source (git as given, or the platform's tarball
 *    unpacked under the tenant's migration sources), then the App manifests applied.
 * 5. `wait_for_apps`: the Apps deployed and healthy; the first one's URL is the migration's.
 * The platform's app is only read, never changed.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ResourceLookup } from '../api/records/lookup.js';
import { databaseRuntimeOf } from '../api/runtime-access.js';
import { ConflictError } from '../model/errors.js';
import { DEFAULT_NAMESPACE, type AnyManifest } from '../model/resource.js';
import type { DriverPool } from '../reconcile/driver-pool.js';
import { tenantMigrationSources } from '../security/host-access.js';
import type { MigrationResource, PlatformMigration } from '../store/platform-migrations.js';
import type { Store } from '../store/store.js';
import { manifestsFromAnalysis } from './manifests.js';
import type { MigrationPlatform, PlatformAnalysis } from './platform.js';
import { copyPostgres, guardedSource, type PostgresConnection } from './postgres-copy.js';
import { sealEnv } from './sealed-env.js';
import { downloadTarball, unpackTarball } from './source-tarball.js';
import type { MigrationStepRun, StepContext } from './step-engine.js';
import { waitReady } from './wait-ready.js';

export const STEP_NAMES = ['read_config', 'create_databases', 'copy_data', 'create_apps', 'wait_for_apps'] as const;
export const MIGRATION_LABEL = 'cairn.dev/migration';
const VALUES_PURPOSE = 'migration-values';

/** What a migration's steps need of cairn. */
export interface MigrationEnvironment {
  store: Store;
  drivers: DriverPool;
  platformFor(platform: PlatformMigration['platform']): MigrationPlatform;
  /** Nudges the reconcile loop after a write. */
  afterWrite(): void;
  readyTimeoutMs: number;
  pollMs: number;
  tarballMaxBytes: number;
}

/** The values step 1 read, as sealed. */
interface MigrationValues {
  configVars: Record<string, Record<string, string>>;
  databaseUrls: Record<string, string>;
}

export class ApiKeyNeededError extends Error {
  override readonly name = 'ApiKeyNeededError';
}

export function analysisOf(migration: PlatformMigration): PlatformAnalysis {
  return migration.analysis as unknown as PlatformAnalysis;
}

function sealedValues(env: MigrationEnvironment, migration: PlatformMigration): MigrationValues | undefined {
  const text = env.store.secrets.get(migration.tenant, VALUES_PURPOSE, migration.id);
  return text === undefined ? undefined : (JSON.parse(text) as MigrationValues);
}

function requireValues(env: MigrationEnvironment, migration: PlatformMigration): MigrationValues {
  const values = sealedValues(env, migration);
  if (values === undefined) throw new Error('the values read from the platform are gone; retry the migration with the API key');
  return values;
}

/** Forgets what step 1 sealed (once the Apps hold their own env). */
export function forgetValues(store: Store, migration: PlatformMigration): void {
  store.secrets.delete(migration.tenant, VALUES_PURPOSE, migration.id);
}

function readConfig(env: MigrationEnvironment): MigrationStepRun {
  return async (ctx) => {
    const { migration, apiKey } = ctx;
    const analysis = analysisOf(migration);
    if (apiKey === undefined) {
      if (sealedValues(env, migration) !== undefined) return 'config vars and database URLs were read before the restart';
      throw new ApiKeyNeededError(
        `cairn restarted before the platform's config vars were read, and the API key is never stored: run it again with the API key (POST /migrations/${migration.id}/retry {"api_key": ...}, or cairn migrate ${migration.platform} retry ${migration.id})`,
      );
    }
    const platform = env.platformFor(migration.platform);
    const values: MigrationValues = { configVars: {}, databaseUrls: {} };
    for (const app of analysis.apps) {
      values.configVars[app.name] = await platform.readConfigVars(apiKey, migration.subject, app.origin, { signal: ctx.signal });
    }
    for (const db of analysis.databases) {
      values.databaseUrls[db.name] = await platform.readDatabaseUrl(apiKey, migration.subject, db.name, { signal: ctx.signal });
    }
    env.store.secrets.put(migration.tenant, VALUES_PURPOSE, migration.id, JSON.stringify(values));
    const vars = Object.values(values.configVars).reduce((n, vars) => n + Object.keys(vars).length, 0);
    return `read ${vars} config var${vars === 1 ? '' : 's'} and ${analysis.databases.length} database URL${analysis.databases.length === 1 ? '' : 's'}; sealed`;
  };
}

/** Applies manifests labelled with the migration; refuses to touch a resource of that name it did not make. */
function applyOwned(env: MigrationEnvironment, migration: PlatformMigration, manifests: AnyManifest[]): MigrationResource[] {
  const labelled = manifests.map((m) => ({ ...m, metadata: { ...m.metadata, labels: { ...(m.metadata.labels ?? {}), [MIGRATION_LABEL]: migration.id } } }));
  for (const m of labelled) {
    const existing = env.store.resources.find(migration.tenant, { kind: m.kind, namespace: m.metadata.namespace ?? DEFAULT_NAMESPACE, name: m.metadata.name });
    if (existing && existing.labels[MIGRATION_LABEL] !== migration.id) {
      throw new ConflictError(`${m.kind}/${m.metadata.name} already exists and was not made by this migration; delete or rename it, then retry`);
    }
  }
  const outcome = env.store.resources.apply(migration.tenant, 'api', labelled);
  env.afterWrite();
  return outcome.results.map((r) => ({ kind: r.kind as MigrationResource['kind'], name: r.name, id: r.uid }));
}

function recordResources(env: MigrationEnvironment, migration: PlatformMigration, made: MigrationResource[]): void {
  const current = env.store.platformMigrations.require(migration.tenant, migration.id);
  const others = current.resources.filter((r) => !made.some((m) => m.id === r.id));
  env.store.platformMigrations.update(migration.tenant, migration.id, { resources: [...others, ...made] });
}

function manifestsOfKind(migration: PlatformMigration, kind: 'Database' | 'App'): AnyManifest[] {
  return migration.manifests
    .split(/^---$/m)
    .map((doc) => parse(doc) as AnyManifest | null)
    .filter((m): m is AnyManifest => m !== null && m.kind === kind);
}

async function waitFor(env: MigrationEnvironment, ctx: StepContext, made: MigrationResource[]): Promise<void> {
  await waitReady(env.store, made.map((r) => r.id), {
    timeoutMs: env.readyTimeoutMs,
    pollMs: env.pollMs,
    signal: ctx.signal,
    nudge: () => env.afterWrite(),
    onWait: (what) => ctx.progress(what),
  });
}

function createDatabases(env: MigrationEnvironment): MigrationStepRun {
  return async (ctx) => {
    const manifests = manifestsOfKind(ctx.migration, 'Database');
    if (manifests.length === 0) return 'the platform has no databases to move';
    const made = applyOwned(env, ctx.migration, manifests);
    recordResources(env, ctx.migration, made);
    await waitFor(env, ctx, made);
    return `${made.map((r) => `Database/${r.name}`).join(', ')} available`;
  };
}

async function targetConnection(env: MigrationEnvironment, migration: PlatformMigration, name: string): Promise<PostgresConnection> {
  const lookup = new ResourceLookup(env.store, migration.tenant);
  const db = env.store.resources.find(migration.tenant, { kind: 'Database', namespace: DEFAULT_NAMESPACE, name });
  if (!db) throw new Error(`Database/${name} is gone`);
  const password = env.store.secrets.get(db.tenant, 'database-password', db.uid);
  if (password === undefined) throw new Error(`Database/${name} has no password yet`);
  const { databases, externalId } = await databaseRuntimeOf(env.drivers, lookup, db);
  const endpoint = await databases.endpoint(externalId);
  return { host: endpoint.host, port: endpoint.port, user: endpoint.username, password, database: endpoint.database, sslmode: 'prefer' };
}

function copyData(env: MigrationEnvironment): MigrationStepRun {
  return async (ctx) => {
    const { migration } = ctx;
    const analysis = analysisOf(migration);
    if (analysis.databases.length === 0) return 'no data to copy';
    const values = requireValues(env, migration);
    const done: string[] = [];
    for (const db of analysis.databases) {
      if (db.type !== 'postgresql') {
        done.push(`${db.name}: not copied (cairn copies PostgreSQL only; move MongoDB data with mongodump and mongorestore)`);
        continue;
      }
      const url = values.databaseUrls[db.name];
      if (url === undefined) throw new Error(`the platform gave no URL for ${db.origin}`);
      ctx.progress(`copying ${db.origin} into Database/${db.name}`);
      const source = await guardedSource(url, `the URL of ${db.origin} (${db.urlVariable})`);
      const report = await copyPostgres(source, await targetConnection(env, migration, db.name), { signal: ctx.signal });
      const refused = report.restoreErrors.length > 0 ? `; statements refused: ${report.restoreErrors.slice(0, 3).join(' | ')}` : '';
      done.push(`${db.name}: ${report.tables} tables, ${report.rows} rows ${report.alreadyCopied ? 'already copied' : 'copied'}, counts match${refused}`);
    }
    return done.join('; ');
  };
}

/** The versions the migration's Databases were given, so the manifests recorded again say the same. */
function defaultVersionsOf(manifests: string): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const doc of manifests.split(/^---$/m)) {
    const m = parse(doc) as { kind?: string; spec?: { type?: string; version?: string } } | null;
    if (m?.kind === 'Database' && m.spec?.type !== undefined && m.spec.version !== undefined) versions[m.spec.type] ??= m.spec.version;
  }
  return versions;
}

function createApps(env: MigrationEnvironment): MigrationStepRun {
  return async (ctx) => {
    const { migration } = ctx;
    const analysis = analysisOf(migration);
    if (analysis.apps.length === 0) return 'the platform has no app that serves HTTP to move';
    const values = requireValues(env, migration);
    const urlVariables = new Set(analysis.databases.map((d) => d.urlVariable));
    const sourcePaths: Record<string, string> = {};
    for (const app of analysis.apps) {
      // The vars the analysis said move; database URLs come from cairn's own databases, PORT from the runtime.
      const moving = new Set(app.configVarNames);
      const vars = Object.fromEntries(Object.entries(values.configVars[app.name] ?? {}).filter(([name]) => moving.has(name) && !urlVariables.has(name) && name !== 'PORT'));
      sealEnv(env.store.secrets, migration.tenant, migration.id, app.name, vars);
      if (app.source?.kind === 'tarball') {
        ctx.progress(`downloading the source of ${app.origin}`);
        const dir = join(tenantMigrationSources(env.store.dataDir, migration.tenant), migration.id);
        await mkdir(dir, { recursive: true });
        const file = join(dir, `${app.name}.tar.gz`);
        await downloadTarball(app.source.url, file, { maxBytes: env.tarballMaxBytes, signal: ctx.signal });
        sourcePaths[app.name] = await unpackTarball(file, join(dir, app.name));
        await rm(file, { force: true });
      }
    }
    const { manifests, yaml } = manifestsFromAnalysis(analysis, { server: migration.serverName, sourcePaths, sealedEnv: migration.id, defaultVersions: defaultVersionsOf(migration.manifests) });
    const apps = manifests.filter((m) => m.kind === 'App');
    env.store.platformMigrations.update(migration.tenant, migration.id, { manifests: yaml });
    const made = applyOwned(env, migration, apps);
    recordResources(env, migration, made);
    return `${made.map((r) => `App/${r.name}`).join(', ')} created with ${Object.keys(sourcePaths).length > 0 ? 'the platform\'s source' : 'its git source'} and sealed env`;
  };
}

function waitForApps(env: MigrationEnvironment): MigrationStepRun {
  return async (ctx) => {
    const { migration } = ctx;
    const current = env.store.platformMigrations.require(migration.tenant, migration.id);
    const apps = current.resources.filter((r) => r.kind === 'App');
    if (apps.length === 0) {
      forgetValues(env.store, migration);
      return 'no apps to wait for';
    }
    const ready = await waitReady(env.store, apps.map((a) => a.id), { timeoutMs: env.readyTimeoutMs, pollMs: env.pollMs, signal: ctx.signal, nudge: () => env.afterWrite(), onWait: (w) => ctx.progress(w) });
    const urls = ready.map((r) => r.status.endpoints?.url).filter((u): u is string => typeof u === 'string');
    env.store.platformMigrations.update(migration.tenant, migration.id, { url: urls[0] ?? null });
    // The Apps hold their env now; the platform's database URLs are no longer needed.
    forgetValues(env.store, migration);
    return `${ready.map((r) => `${r.kind}/${r.name}`).join(', ')} running${urls.length > 0 ? ` at ${urls.join(', ')}` : ''}`;
  };
}

/** The step runs of a migration, by name. */
export function migrationSteps(env: MigrationEnvironment): Record<(typeof STEP_NAMES)[number], MigrationStepRun> {
  return {
    read_config: readConfig(env),
    create_databases: createDatabases(env),
    copy_data: copyData(env),
    create_apps: createApps(env),
    wait_for_apps: waitForApps(env),
  };
}
