/**
 * @module The SSH runtime's databases: the local runtime's behaviour on a host reached over
 * SSH. PostgreSQL from the distribution's packages (installed when absent and cairn may), one
 * cluster per database under `<runtime dir>/databases/<id>/`, run as the `postgres` OS user on a
 * free port of the host, listening on loopback and the server's address; a role and database
 * named by `sqlName` with the password cairn generated (sent on psql's stdin only). The host
 * keeps a record of each database (remote-host.ts), so a lost data dir finds it again by key.
 * Backups: `pg_dump -Fc` on the host streamed back over SSH and sealed at rest in cairn's data
 * dir (postgres-backups.ts), records kept cairn-side (backup-records.ts); restores stream the
 * verified plaintext into `pg_restore --single-transaction` on the host. MongoDB is refused,
 * naming the vendors whose managed service runs it.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { pipeline } from 'node:stream/promises';
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { sqlName } from '../local/databases.js';
import { processAlive } from '../local/orphaned-apps.js';
import { verifiedPlaintext, verifyBackup, writeSealedBackup } from '../local/postgres-backups.js';
import { SecretIntegrityError } from '../../secrets/envelope.js';
import { SshBackupRecords, type SshBackupRecord, type Worker } from './backup-records.js';
import { freePortOn, quoteIdent, readRemoteFile, RemoteCluster } from './remote-cluster.js';
import { choosePostgres, findPostgres, postgresOn } from './remote-postgres.js';
import type { RemoteHost } from './remote-host.js';
import type { SshRuntimeOptions } from './runtime-options.js';
import type { PlacedEntry } from './runtime-index.js';
import { managedDatabaseVendors } from '../registry.js';

/** How long a pg_dump or pg_restore over SSH may run. */
const DUMP_TIMEOUT_MS = 6 * 60 * 60_000;

/** What the host keeps about one database (records/databases/<id>.json). No secret is in it. */
export interface HostDatabaseRecord {
  id: string;
  key: string;
  name: string;
  serverId: string;
  type: 'postgresql';
  /** The major version asked for, e.g. "15". */
  version: string;
  storageGb: number | null;
  port: number;
  username: string;
  database: string;
  status: 'creating' | 'available' | 'error';
  message: string | null;
  /** The version the cluster runs (the asked major when installed, else the newest), once known. */
  engineVersion: string | null;
  /** Where its initdb/pg_ctl are, once known. */
  binDir: string | null;
  /** The address clients are given: the server's address, else the SSH target's host. */
  endpointHost: string;
  /** The addresses it listens on. */
  listen: string[];
  restores: Array<{ key: string; backupId: string; status: 'running' | 'succeeded' | 'failed'; message: string | null; worker?: Worker }>;
  /** The cairn process creating it, while it is `creating`. */
  worker?: Worker;
}

/** Work this process is doing now, by database or backup id (a worker naming this process but absent here was cut short). */
const active = new Set<string>();

function thisWorker(): Worker {
  return { host: hostname(), pid: process.pid };
}

/** Whether the worker of `id` is gone: no worker, or a dead process of this machine. Another machine's worker is taken as alive. */
function workerGone(worker: Worker | undefined, id: string): boolean {
  if (!worker) return true;
  if (worker.host !== hostname()) return false;
  if (worker.pid === process.pid) return !active.has(id);
  return !processAlive(worker.pid);
}

function toBackup(b: SshBackupRecord): BackupObserved {
  const observed: BackupObserved = {
    id: b.id, clientToken: b.clientToken, databaseId: b.databaseId, status: b.status, sizeBytes: b.sizeBytes, checksum: b.checksum,
    createdAt: b.createdAt, completedAt: b.completedAt, message: b.message,
  };
  if (b.status === 'running' && workerGone(b.worker, b.id)) Object.assign(observed, { status: 'failed', message: 'cairn stopped while making this backup' });
  return observed;
}

interface Located {
  entry: PlacedEntry;
  host: RemoteHost;
  record: HostDatabaseRecord;
}

export class SshDatabases implements DatabaseRuntime {
  private readonly backups: SshBackupRecords;
  private readonly tasks = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  /** Background work by the id it works on, so a delete can stop a create still building. */
  private readonly running = new Map<string, { abort: AbortController; task: Promise<void> }>();
  /** Record changes per database, one after another (each reads the record afresh). */
  private readonly changes = new Map<string, Promise<unknown>>();

  constructor(private readonly options: SshRuntimeOptions) {
    this.backups = SshBackupRecords.of(options.dataDir);
  }

  /** Stops background work (it is picked up again as interrupted) and waits for it. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.tasks]);
  }

  private background(id: string, work: (signal: AbortSignal) => Promise<void>): void {
    active.add(id);
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    this.closing.signal.addEventListener('abort', stop, { once: true });
    const task: Promise<void> = work(abort.signal)
      .catch(() => undefined)
      .finally(() => {
        active.delete(id);
        this.tasks.delete(task);
        if (this.running.get(id)?.task === task) this.running.delete(id);
        this.closing.signal.removeEventListener('abort', stop);
      });
    this.tasks.add(task);
    this.running.set(id, { abort, task });
  }

  /** Stops the background work on `id` (a create still building it) and waits until it has ended. */
  private async stopWork(id: string): Promise<void> {
    const running = this.running.get(id);
    if (!running) return;
    running.abort.abort();
    await running.task;
  }

  /** The host's record of database `id` (read over SFTP: one file, no command). */
  private async hostRecord(host: RemoteHost, id: string): Promise<HostDatabaseRecord | undefined> {
    const path = host.path('records', 'databases', `${id}.json`);
    const text = await readRemoteFile(host, path);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as HostDatabaseRecord;
    } catch (error) {
      throw new Error(`cairn's record ${path} on ${host.session.label} is not valid JSON (${(error as Error).message}); move it away or restore it`, { cause: error });
    }
  }

  /** The database with this id: its index entry, host and host record; undefined when either is gone. */
  private async located(id: string, options: CallOptions = {}): Promise<Located | undefined> {
    const entry = this.options.index.byId('database', id);
    if (!entry) return undefined;
    const host = await this.options.hosts.host(entry.target, options);
    const record = await this.hostRecord(host, id);
    return record ? { entry, host, record } : undefined;
  }

  private async required(id: string, options: CallOptions = {}): Promise<Located> {
    const found = await this.located(id, options);
    if (!found) throw new VendorRejectedError(`database ${id} does not exist on any host of the ${this.options.vendor} runtime`, { status: 404 });
    return found;
  }

  /** Changes the host record of `id` (read afresh), one change at a time. */
  private change(host: RemoteHost, id: string, change: (record: HostDatabaseRecord) => void): Promise<HostDatabaseRecord | undefined> {
    const previous = this.changes.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(async () => {
      const record = await this.hostRecord(host, id);
      if (!record) return undefined;
      change(record);
      await host.putRecord('databases', id, record);
      return record;
    });
    this.changes.set(id, next.catch(() => undefined));
    return next;
  }

  private cluster(host: RemoteHost, record: HostDatabaseRecord): RemoteCluster {
    return new RemoteCluster(host, record.id, record.binDir ?? '', record.port);
  }

  private async toObserved(host: RemoteHost, record: HostDatabaseRecord): Promise<DatabaseObserved> {
    let status: DatabaseObserved['status'] = record.status;
    if (status === 'available' && record.restores.some((r) => r.status === 'running' && !workerGone(r.worker, `${record.id}/${r.key}`))) status = 'restoring';
    else if (status === 'available' && this.backups.runningFor(record.id).some((b) => !workerGone(b.worker, b.id))) status = 'backing_up';
    const observed: DatabaseObserved = {
      id: record.id, name: record.name, clientToken: record.key, serverId: record.serverId, type: record.type, version: record.version,
      storageGb: record.storageGb, status, host: record.endpointHost, port: record.port, engineVersion: record.engineVersion, message: record.message,
    };
    if (record.status === 'creating' && workerGone(record.worker, record.id)) observed.interrupted = 'cairn stopped while creating it';
    if (record.status === 'available' && record.binDir && !(await this.cluster(host, record).running())) observed.down = 'its PostgreSQL server is not running';
    return observed;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    const entry = this.options.index.find('database', ref);
    if (!entry) return null;
    const found = await this.located(entry.id, options);
    return found ? this.toObserved(found.host, found.record) : null;
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const indexed = this.options.index.find('database', { key });
    if (indexed) {
      const found = await this.located(indexed.id, options);
      if (found) return this.toObserved(found.host, found.record);
    }
    if (desired.type === 'mongodb') {
      const managed = managedDatabaseVendors('mongodb').map((v) => v.split(' ')[0]).join(', ') || 'none yet';
      throw new VendorRejectedError(
        `Database/${desired.name}: the ${this.options.vendor} runtime runs only PostgreSQL on a server; for MongoDB use \`managed: true\` with a provider whose vendor runs MongoDB: ${managed}`,
        { field: 'type' },
      );
    }
    const target = this.options.targetFor(desired.placement);
    const host = await this.options.hosts.host(target, options);
    const records = await host.records<HostDatabaseRecord>('databases', options);
    const onHost = records.find((r) => r.key === key);
    const entry: PlacedEntry = { kind: 'database', id: onHost?.id ?? indexed?.id ?? `pg-${randomBytes(6).toString('hex')}`, key, serverId: desired.placement.serverExternalId, target };
    this.options.index.put(entry);
    if (onHost) return this.toObserved(host, onHost);

    const installation = choosePostgres(await findPostgres(host, options.signal), desired.version);
    const name = sqlName(desired.name);
    const endpointHost = desired.placement.serverAddress ?? target.host;
    const record: HostDatabaseRecord = {
      id: entry.id, key, name: desired.name, serverId: desired.placement.serverExternalId, type: 'postgresql', version: desired.version,
      storageGb: desired.storageGb, port: await freePortOn(host, records.map((r) => r.port), options.signal), username: name, database: name,
      status: 'creating', message: null, engineVersion: installation?.version ?? null, binDir: installation?.binDir ?? null,
      endpointHost, listen: [...new Set(['127.0.0.1', endpointHost])], restores: [], worker: thisWorker(),
    };
    active.add(record.id);
    await host.putRecord('databases', record.id, record);
    this.background(record.id, (signal) => this.build(host, record, desired, signal));
    return this.toObserved(host, record);
  }

  /** Installs PostgreSQL when the host has none, makes the cluster, starts it, then the role (with cairn's password) and its database. */
  private async build(host: RemoteHost, record: HostDatabaseRecord, desired: DatabaseDesired, signal: AbortSignal): Promise<void> {
    try {
      let ready = record;
      if (!record.binDir) {
        const installation = await postgresOn(host, desired.name, desired.version, signal);
        ready = { ...record, binDir: installation.binDir, engineVersion: installation.version };
        await this.change(host, record.id, (r) => Object.assign(r, { binDir: ready.binDir, engineVersion: ready.engineVersion }));
      }
      await this.cluster(host, ready).build(
        record.listen,
        [
          `CREATE ROLE ${quoteIdent(record.username)} LOGIN PASSWORD :'password';`,
          `CREATE DATABASE ${quoteIdent(record.database)} OWNER ${quoteIdent(record.username)};`,
        ].join('\n'),
        { password: desired.password },
        signal,
      );
      await this.change(host, record.id, (r) => {
        Object.assign(r, { status: 'available', message: null });
        delete r.worker;
      });
    } catch (error) {
      if (signal.aborted) return; // cairn is stopping: the record stays `creating`, reported interrupted, and update makes it again
      await this.change(host, record.id, (r) => {
        Object.assign(r, { status: 'error', message: `creating the cluster failed: ${(error as Error).message}` });
        delete r.worker;
      });
    }
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const { host, record } = await this.required(externalId, options);
    if (record.status === 'creating' && workerGone(record.worker, record.id)) return this.createAgain(host, record, desired, options);
    if (record.engineVersion !== null) {
      const wanted = choosePostgres(await findPostgres(host, options.signal), desired.version);
      const current = record.engineVersion.split('.')[0];
      if (wanted && wanted.major !== current) {
        throw new VendorRejectedError(`Database/${desired.name}: changing the major version (${record.engineVersion} → ${wanted.version}) in place is not supported by the ${this.options.vendor} runtime`, { field: 'version' });
      }
    }
    // Storage is bookkeeping, as in the local runtime: the cluster grows on the server's own disk.
    const changed = (await this.change(host, externalId, (r) => Object.assign(r, { storageGb: desired.storageGb, version: desired.version }))) ?? record;
    if (changed.status === 'available' && changed.binDir) await this.cluster(host, changed).start(options.signal);
    return this.toObserved(host, changed);
  }

  /** A creation nothing is finishing any more: the half-made cluster is thrown away and made again under the same id and port. */
  private async createAgain(host: RemoteHost, record: HostDatabaseRecord, desired: DatabaseDesired, options: CallOptions): Promise<DatabaseObserved> {
    if (desired.password === '') throw new Error(`Database/${desired.name}: cairn has no password stored for it, so it cannot create it again`);
    if (record.binDir) await this.cluster(host, record).destroy(options.signal);
    // Its port may have been taken since; nobody was given this endpoint yet, so a free one is chosen afresh.
    const others = (await host.records<HostDatabaseRecord>('databases', options)).filter((r) => r.id !== record.id).map((r) => r.port);
    const port = await freePortOn(host, others, options.signal);
    active.add(record.id);
    const claimed = (await this.change(host, record.id, (r) => Object.assign(r, { worker: thisWorker(), message: null, port }))) ?? record;
    this.background(record.id, (signal) => this.build(host, claimed, desired, signal));
    return this.toObserved(host, claimed);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const entry = this.options.index.byId('database', externalId);
    if (!entry) return;
    // A create still building it would otherwise write its cluster and record back after this.
    await this.stopWork(externalId);
    const host = await this.options.hosts.host(entry.target, options);
    const record = await this.hostRecord(host, externalId);
    if (record?.binDir) await this.cluster(host, record).destroy(options.signal);
    else await host.run(['rm', '-rf', '--', host.path('databases', externalId)], { signal: options.signal });
    await host.dropRecord('databases', externalId);
    this.options.index.remove('database', externalId);
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const { record } = await this.required(externalId, options);
    return { host: record.endpointHost, port: record.port, username: record.username, database: record.database };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const { host, record } = await this.required(externalId, options);
    if (record.status !== 'available') throw new Error(`database ${externalId} is ${record.status}; its password is set once it is available`);
    await this.cluster(host, record).psql(`ALTER ROLE ${quoteIdent(record.username)} PASSWORD :'password';`, { password }, 'postgres', options.signal);
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const existing = this.backups.find({ key });
    if (existing) return toBackup(existing);
    const { host, record } = await this.required(databaseExternalId, options);
    if (record.status !== 'available') throw new Error(`database ${record.id} is ${record.status}; back it up once it is available`);
    const id = `backup-${randomBytes(6).toString('hex')}`;
    const backup: SshBackupRecord = {
      id, clientToken: key, databaseId: record.id, status: 'running', sizeBytes: null, checksum: null, file: this.backups.fileFor(id),
      createdAt: new Date().toISOString(), completedAt: null, message: null, worker: thisWorker(),
    };
    active.add(id);
    this.backups.add(backup);
    this.background(id, (signal) => this.dump(host, record, backup, signal));
    return toBackup(backup);
  }

  /** pg_dump on the host, its output streamed back over SSH and sealed into the backup's file. */
  private async dump(host: RemoteHost, record: HostDatabaseRecord, backup: SshBackupRecord, signal: AbortSignal): Promise<void> {
    let outcome: Partial<SshBackupRecord>;
    try {
      const dumped = await writeSealedBackup(backup.file, this.options.dataKeys, async (sink) => {
        const streamed = await host.session.stream(this.cluster(host, record).dumpArgv(record.database), { timeoutMs: DUMP_TIMEOUT_MS, signal });
        await Promise.all([pipeline(streamed.stdout, sink), streamed.done]);
      });
      outcome = { status: 'completed', sizeBytes: dumped.sizeBytes, checksum: dumped.checksum, message: null };
    } catch (error) {
      if (signal.aborted) return; // reported failed (its worker is gone) from now on
      outcome = { status: 'failed', message: `pg_dump failed: ${(error as Error).message}` };
    }
    this.backups.change(backup.id, { ...outcome, completedAt: new Date().toISOString(), worker: undefined });
  }

  observeBackup(ref: ExternalRef): Promise<BackupObserved | null> {
    const b = this.backups.find(ref);
    return Promise.resolve(b ? toBackup(b) : null);
  }

  async deleteBackup(backupExternalId: string): Promise<void> {
    const b = this.backups.byId(backupExternalId);
    if (!b) return;
    await rm(b.file, { force: true });
    this.backups.remove(backupExternalId);
  }

  async restore(databaseExternalId: string, backupExternalId: string, key: string, options: CallOptions = {}): Promise<DatabaseObserved> {
    const { host, record } = await this.required(databaseExternalId, options);
    const earlier = record.restores.find((r) => r.key === key);
    if (earlier?.status === 'failed') throw new VendorRejectedError(earlier.message ?? `restore ${key} failed`);
    if (earlier) return this.toObserved(host, record);
    const backup = this.backups.byId(backupExternalId);
    if (!backup) throw new VendorRejectedError(`backup ${backupExternalId} does not exist in cairn's data dir`);
    if (backup.status !== 'completed' || backup.checksum === null) throw new VendorRejectedError(`backup ${backup.id} is ${backup.status}; only a completed backup can be restored`);
    if (record.status !== 'available') throw new Error(`database ${record.id} is ${record.status}; restore once it is available`);
    const checksum = backup.checksum;
    // A first pass reads it all before anything changes; the restore verifies again as it streams.
    try {
      await verifyBackup(backup.file, this.options.dataKeys, checksum);
    } catch (error) {
      const why = error instanceof SecretIntegrityError ? 'was altered since it was made' : 'cannot be read';
      throw new VendorRejectedError(`backup ${backup.id}: its file ${why} (${(error as Error).message}); refusing to restore it`);
    }
    const task = `${record.id}/${key}`;
    active.add(task);
    const restoring = (await this.change(host, record.id, (r) => r.restores.push({ key, backupId: backup.id, status: 'running', message: null, worker: thisWorker() }))) ?? record;
    this.background(task, async (signal) => {
      let outcome: { status: 'succeeded' | 'failed'; message: string | null };
      try {
        await host.session.run(this.cluster(host, record).restoreArgv(record.database), {
          stdin: verifiedPlaintext(backup.file, this.options.dataKeys, checksum),
          timeoutMs: DUMP_TIMEOUT_MS,
          signal,
        });
        outcome = { status: 'succeeded', message: null };
      } catch (error) {
        outcome = { status: 'failed', message: `pg_restore of backup ${backup.id} failed: ${(error as Error).message}` };
      }
      await this.change(host, record.id, (r) => {
        const restore = r.restores.find((x) => x.key === key);
        if (restore) {
          Object.assign(restore, outcome);
          delete restore.worker;
        }
      });
    });
    return this.toObserved(host, restoring);
  }
}
