/**
 * @module Cloud SQL for PostgreSQL (Cloud SQL Admin API v1, `@googleapis/sqladmin`) as cairn's
 * DatabaseRuntime. A Database's `managed.region` is a region (`europe-west1`), its
 * `managed.size` a tier (`db-custom-1-3840`); both are checked against `tiers.list` before
 * anything is sent, and the version against the PostgreSQL versions Cloud SQL runs. Instance
 * names are unique per project, so the name is derived from the key alone (`cairn-<digest>`):
 * that is the idempotency — a create first gets that name, and an insert whose answer was lost
 * is found (or answered 409) rather than made twice; the instance also carries its key as the
 * `cairn-key` user label. cairn's password is the `postgres` user's (`rootPassword` at insert,
 * `users.update` for a rotation). Every change is an Operation, followed (`operations.get`) to
 * its end, except the insert (the reconciler observes PENDING_CREATE → RUNNABLE).
 *
 * Backups are on-demand backup runs (`backupRuns.insert`) whose `description` is cairn's key,
 * found again by it (`backupRuns.list`, every page); their id is `<instance>/<run id>`.
 * Restore is `instances.restoreBackup` into the same instance. Cloud SQL deletes an instance's
 * backups with the instance, so a final backup before a delete would be deleted by that very
 * delete: cairn refuses it (`finalBackupUnavailable`), saying so, rather than pretend.
 */
import { createHash } from 'node:crypto';
import type { sqladmin_v1 } from '@googleapis/sqladmin';
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorBackupStatus, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { ownershipLabels } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import type { GcpClient } from './gcp-client.js';
import { labelValueForKey } from './wire-format.js';

/** The label holding the key (label-safe form). */
export const KEY_LABEL = 'cairn-key';
/** The user cairn's password belongs to (Cloud SQL's built-in superuser-like role). */
export const POSTGRES_USER = 'postgres';
/** The PostgreSQL major versions Cloud SQL runs (its SqlDatabaseVersion values POSTGRES_9_6 … POSTGRES_16). */
export const POSTGRES_VERSIONS = ['9.6', '10', '11', '12', '13', '14', '15', '16'];

/** Why cairn takes no final backup of a Cloud SQL instance (said when a delete would need one). */
export const NO_FINAL_BACKUP =
  "Cloud SQL deletes an instance's backups (on-demand and automated) together with the instance, so a final backup taken before the delete would be deleted by it; cairn takes none rather than pretend. " +
  'Export the data (gcloud sql export) if you need it kept';

/** The instance name for a key: Cloud SQL names are unique per project, so the name is the idempotency. */
export function instanceNameForKey(key: string): string {
  return `cairn-${createHash('sha256').update(`cairn-cloudsql:${key}`).digest('hex').slice(0, 20)}`;
}

/** `16` → `POSTGRES_16`, `9.6` → `POSTGRES_9_6`. */
export function databaseVersion(version: string): string {
  return `POSTGRES_${version.replace('.', '_')}`;
}

function readStatus(state: string | null | undefined): VendorDatabaseStatus {
  switch (state) {
    case 'PENDING_CREATE': return 'creating';
    case 'PENDING_DELETE': return 'deleting';
    case 'FAILED': case 'SUSPENDED': return 'error';
    default: return 'available';
  }
}

function readBackupStatus(status: string | null | undefined): VendorBackupStatus {
  switch (status) {
    case 'SUCCESSFUL': return 'completed';
    case 'RUNNING': return 'running';
    case 'FAILED': case 'SKIPPED': case 'DELETION_FAILED': return 'failed';
    default: return 'pending';
  }
}

export function readInstance(instance: sqladmin_v1.Schema$DatabaseInstance, key: string): DatabaseObserved {
  const status = readStatus(instance.state);
  const primary = instance.ipAddresses?.find((a) => a.type === 'PRIMARY') ?? instance.ipAddresses?.[0];
  const host = status === 'available' ? (primary?.ipAddress ?? null) : null;
  return {
    id: instance.name ?? '',
    name: instance.name ?? '',
    clientToken: key,
    serverId: '',
    type: 'postgresql',
    version: (instance.databaseVersion ?? '').replace(/^POSTGRES_/, '').replace('_', '.'),
    storageGb: instance.settings?.dataDiskSizeGb ? Number(instance.settings.dataDiskSizeGb) : null,
    size: instance.settings?.tier ?? undefined,
    status,
    host,
    port: host === null ? null : 5432,
    engineVersion: instance.databaseInstalledVersion ?? instance.databaseVersion ?? null,
  };
}

function parseBackupId(externalId: string): { instance: string; id: string } {
  const match = /^([a-z][-a-z0-9]*)\/(\d+)$/.exec(externalId);
  if (!match) throw new VendorRejectedError(`gcp: "${externalId}" is not a Cloud SQL backup id of cairn's (<instance>/<backup run id>)`);
  return { instance: match[1]!, id: match[2]! };
}

export class CloudSqlPostgres implements DatabaseRuntime {
  readonly finalBackupUnavailable = NO_FINAL_BACKUP;
  /** The instance each backup key was taken of, for observeBackup by key alone. */
  private readonly instanceByBackupKey = new Map<string, string>();
  /** Restores started, by key: the same key again does not restore twice. */
  private readonly restores = new Map<string, string>();

  constructor(private readonly gcp: GcpClient, private readonly pollMs = 500) {}

  private get sql(): sqladmin_v1.Sqladmin {
    return this.gcp.sqladmin;
  }

  private get project(): string {
    return this.gcp.project;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    const name = ref.externalId || instanceNameForKey(ref.key);
    const found = await this.get(name, options);
    if (!found) return null;
    return readInstance(found, found.settings?.userLabels?.[KEY_LABEL] === labelValueForKey(ref.key) ? ref.key : (found.settings?.userLabels?.[KEY_LABEL] ?? ''));
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`gcp managed ${desired.type}: Cloud SQL through cairn runs postgresql only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`gcp: database "${desired.name}" has no managed region and size`);
    const name = instanceNameForKey(key);
    const existing = await this.mine(name, key, options);
    if (existing) return existing;
    await this.checkCatalog(desired, options);
    const doing = `insert Cloud SQL instance ${name} ("${desired.name}") in ${managed.region}`;
    const requestBody: sqladmin_v1.Schema$DatabaseInstance = {
      name,
      region: managed.region,
      databaseVersion: databaseVersion(desired.version),
      rootPassword: desired.password,
      settings: {
        tier: managed.size,
        userLabels: { ...ownershipLabels(key), [KEY_LABEL]: labelValueForKey(key), 'cairn-name': labelValueForKey(desired.name) },
        ...(desired.storageGb === null ? {} : { dataDiskSizeGb: String(desired.storageGb) }),
      },
    };
    try {
      await this.gcp.call({ doing, idempotent: false, signal: options.signal }, (o) => this.sql.instances.insert({ project: this.project, requestBody }, o));
    } catch (error) {
      // 409: the name is taken — by this key's own insert whose answer was lost, or by another.
      if (!(error instanceof VendorRejectedError && error.status === 409)) throw error;
    }
    const made = await this.mine(name, key, options);
    if (!made) throw new Error(`gcp: ${doing}: instance ${name} is not found after its insert`);
    return made;
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const found = await this.get(externalId, options);
    if (!found) throw new VendorRejectedError(`gcp: Cloud SQL instance ${externalId} no longer exists`, { status: 404 });
    const current = readInstance(found, found.settings?.userLabels?.[KEY_LABEL] ?? '');
    if (current.version !== desired.version || current.size !== desired.managed?.size || (desired.storageGb !== null && desired.storageGb !== current.storageGb)) {
      throw new UnsupportedError(
        `gcp: Cloud SQL instance ${externalId} runs ${current.version} on ${current.size ?? '?'} with ${current.storageGb ?? '?'} GB; cairn does not change a Cloud SQL instance's version, tier or storage yet (instances.patch is not driven): set them back, or replace the database`,
      );
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `delete Cloud SQL instance ${externalId}`;
    const operation = await this.gcp.find({ doing, idempotent: true, signal: options.signal }, (o) => this.sql.instances.delete({ project: this.project, instance: externalId }, o));
    if (operation) await this.follow(operation, doing, options);
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const found = await this.get(externalId, options);
    const observed = found ? readInstance(found, '') : null;
    if (!observed?.host || observed.port === null) throw new Error(`gcp: Cloud SQL instance ${externalId} has no address yet (${observed?.status ?? 'gone'})`);
    return { host: observed.host, port: observed.port, username: POSTGRES_USER, database: 'postgres' };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const doing = `set the password of ${POSTGRES_USER} on Cloud SQL instance ${externalId}`;
    const operation = await this.gcp.call({ doing, idempotent: true, signal: options.signal }, (o) =>
      this.sql.users.update({ project: this.project, instance: externalId, name: POSTGRES_USER, requestBody: { name: POSTGRES_USER, password } }, o),
    );
    await this.follow(operation, doing, options);
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    this.instanceByBackupKey.set(key, databaseExternalId);
    const existing = await this.backupByKey(databaseExternalId, key, options);
    if (existing) return existing;
    const doing = `take backup "${key}" of Cloud SQL instance ${databaseExternalId}`;
    const operation = await this.gcp.call({ doing, idempotent: false, signal: options.signal }, (o) =>
      this.sql.backupRuns.insert({ project: this.project, instance: databaseExternalId, requestBody: { description: key } }, o),
    );
    await this.follow(operation, doing, options);
    const made = await this.backupByKey(databaseExternalId, key, options);
    if (!made) throw new Error(`gcp: ${doing}: no backup run described "${key}" after its insert`);
    return made;
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    if (ref.externalId) {
      const { instance, id } = parseBackupId(ref.externalId);
      const run = await this.gcp.find({ doing: `observe backup ${ref.externalId}`, idempotent: true, signal: options.signal }, (o) => this.sql.backupRuns.get({ project: this.project, instance, id }, o));
      return run && run.status !== 'DELETED' ? this.readBackup(run, instance) : null;
    }
    const instance = this.instanceByBackupKey.get(ref.key);
    return instance === undefined ? null : this.backupByKey(instance, ref.key, options);
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    const { instance, id } = parseBackupId(backupExternalId);
    const doing = `delete backup ${backupExternalId}`;
    const operation = await this.gcp.find({ doing, idempotent: true, signal: options.signal }, (o) => this.sql.backupRuns.delete({ project: this.project, instance, id }, o));
    if (operation) await this.follow(operation, doing, options);
  }

  async restore(databaseExternalId: string, backupExternalId: string, key: string, options: CallOptions = {}): Promise<DatabaseObserved> {
    const { instance: source, id } = parseBackupId(backupExternalId);
    const doing = `restore backup ${backupExternalId} into Cloud SQL instance ${databaseExternalId}`;
    if (!this.restores.has(key)) {
      const operation = await this.gcp.call({ doing, idempotent: false, signal: options.signal }, (o) =>
        this.sql.instances.restoreBackup({ project: this.project, instance: databaseExternalId, requestBody: { restoreBackupContext: { backupRunId: id, instanceId: source, project: this.project } } }, o),
      );
      this.restores.set(key, operation.name ?? '');
      await this.follow(operation, doing, options);
    }
    const found = await this.get(databaseExternalId, options);
    if (!found) throw new VendorRejectedError(`gcp: ${doing}: the instance no longer exists`, { status: 404 });
    return readInstance(found, found.settings?.userLabels?.[KEY_LABEL] ?? '');
  }

  private get(name: string, options: CallOptions): Promise<sqladmin_v1.Schema$DatabaseInstance | null> {
    return this.gcp.find({ doing: `observe Cloud SQL instance ${name}`, idempotent: true, signal: options.signal }, (o) => this.sql.instances.get({ project: this.project, instance: name }, o));
  }

  /** The instance `name` if it carries `key`; a refusal if another's holds the name. */
  private async mine(name: string, key: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const found = await this.get(name, options);
    if (!found) return null;
    const label = found.settings?.userLabels?.[KEY_LABEL];
    if (label !== labelValueForKey(key)) throw new VendorRejectedError(`gcp: Cloud SQL instance ${name} exists but is not the one for key ${key} (its cairn-key label is ${label ?? 'absent'})`, { status: 409 });
    return readInstance(found, key);
  }

  /** Refuses a region, tier or version Cloud SQL does not offer, before anything is sent. */
  private async checkCatalog(desired: DatabaseDesired, options: CallOptions): Promise<void> {
    const { region, size } = desired.managed ?? { region: '', size: '' };
    if (!POSTGRES_VERSIONS.includes(desired.version)) {
      throw new VendorRejectedError(`gcp managed postgresql: version "${desired.version}" is not one Cloud SQL runs; versions: ${POSTGRES_VERSIONS.join(', ')}`, { field: 'version' });
    }
    const answer = await this.gcp.call({ doing: 'list Cloud SQL tiers', idempotent: true, signal: options.signal }, (o) => this.sql.tiers.list({ project: this.project }, o));
    const tiers = answer.items ?? [];
    const tier = tiers.find((t) => t.tier === size);
    if (!tier) throw new VendorRejectedError(`gcp managed postgresql: tier "${size}" is not a Cloud SQL tier; tiers: ${tiers.map((t) => t.tier).join(', ')}`, { field: 'size' });
    if (!(tier.region ?? []).includes(region)) {
      throw new VendorRejectedError(`gcp managed postgresql: tier ${size} is not offered in region "${region}"; its regions: ${(tier.region ?? []).join(', ')}`, { field: 'region' });
    }
  }

  /** The backup run of `instance` described `key` (every page), not one being deleted. */
  private async backupByKey(instance: string, key: string, options: CallOptions): Promise<BackupObserved | null> {
    const doing = `find backup "${key}" of Cloud SQL instance ${instance}`;
    const runs = await readAllPages(async (pageToken) => {
      const page = await this.gcp.call({ doing, idempotent: true, signal: options.signal }, (o) =>
        this.sql.backupRuns.list({ project: this.project, instance, maxResults: 100, ...(pageToken === undefined ? {} : { pageToken }) }, o),
      );
      return { items: page.items ?? [], next: page.nextPageToken ?? undefined };
    }, `gcp: ${doing}`);
    const run = runs.find((r) => r.description === key && !['DELETED', 'DELETION_PENDING'].includes(r.status ?? ''));
    return run ? this.readBackup(run, instance) : null;
  }

  private readBackup(run: sqladmin_v1.Schema$BackupRun, instance: string): BackupObserved {
    const status = readBackupStatus(run.status);
    return {
      id: `${instance}/${run.id ?? ''}`,
      clientToken: run.description ?? '',
      databaseId: instance,
      status,
      sizeBytes: null,
      checksum: null,
      createdAt: run.enqueuedTime ?? run.startTime ?? '',
      completedAt: status === 'completed' ? (run.endTime ?? null) : null,
      message: status === 'failed' ? (run.error?.message ?? `backup run ${run.status ?? ''}`) : null,
    };
  }

  /** Polls an operation until DONE; its error (Google's reason) becomes a refusal. */
  private async follow(operation: sqladmin_v1.Schema$Operation, doing: string, options: CallOptions): Promise<void> {
    let current = operation;
    const name = current.name ?? '';
    await followAction(
      async () => {
        if (current.status !== 'DONE') {
          current = await this.gcp.call({ doing: `${doing}: follow operation ${name}`, idempotent: true, signal: options.signal }, (o) => this.sql.operations.get({ project: this.project, operation: name }, o));
        }
        if (current.status !== 'DONE') return { done: false };
        const failure = current.error?.errors?.[0];
        return failure ? { done: true, failed: `${failure.code ?? 'ERROR'}: ${failure.message ?? 'no message'}` } : { done: true };
      },
      { what: `gcp: ${doing}`, intervalMs: this.pollMs, signal: options.signal },
    );
  }
}
