/**
 * @module The local runtime's databases: PostgreSQL, one real cluster per database on a port of
 * its own, with a role and a database named after it and the password cairn generated (kept
 * only as PostgreSQL's scram hash). Backups with pg_dump, sealed at rest under a data key the
 * master key wraps, restores with pg_restore from a backup verified as it is read, each once
 * per key. A cluster that is not running is reported as `down`, and `update` starts it again.
 * MongoDB is refused plainly: this runtime has no MongoDB support on a host without mongod.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { freePort } from './free-port.js';
import type { LocalHost, Workloads } from './local-host.js';
import { SecretIntegrityError } from '../../secrets/envelope.js';
import type { DataKeyWrapper } from '../../secrets/sealed-stream.js';
import { dumpDatabase, restoreDatabase, verifyBackup } from './postgres-backups.js';
import { postgresFor } from './postgres-installations.js';
import { processAlive } from './orphaned-apps.js';
import { findByRef, type BackupRecord, type DatabaseRecord } from './state-file.js';

/** `shop-db` → `shop_db`: a role and database name that needs no quoting. */
export function sqlName(name: string): string {
  const plain = name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return /^[a-z_]/.test(plain) ? plain.slice(0, 63) : `db_${plain}`.slice(0, 63);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Where mongod would be, if this host had one. */
function mongodOnPath(): string | undefined {
  return (process.env.PATH ?? '').split(':').map((dir) => `${dir}/mongod`).find((path) => existsSync(path));
}

export class LocalDatabases implements DatabaseRuntime, Workloads {
  /** `keys` wraps the data keys that seal backups (the data dir's master key); nothing more of the store. */
  constructor(private readonly host: LocalHost, private readonly keys: DataKeyWrapper) {}

  private record(id: string): DatabaseRecord | undefined {
    return this.host.state.current.databases.find((d) => d.id === id);
  }

  private required(id: string): DatabaseRecord {
    const db = this.record(id);
    if (!db) throw new VendorRejectedError(`database ${id} does not exist on this host`, { status: 404 });
    return db;
  }

  private change(id: string, change: (db: DatabaseRecord) => void): void {
    this.host.state.update((s) => {
      const db = s.databases.find((d) => d.id === id);
      if (db) change(db);
    });
  }

  private serverStopped(serverId: string): boolean {
    return this.host.state.current.servers.find((s) => s.id === serverId)?.status === 'stopped';
  }

  private toObserved(db: DatabaseRecord): DatabaseObserved {
    const observed: DatabaseObserved = {
      id: db.id, name: db.name, clientToken: db.clientToken, serverId: db.serverId, type: db.type, version: db.version,
      storageGb: db.storageGb, status: db.status, host: '127.0.0.1', port: db.port, engineVersion: db.engineVersion, message: db.message,
    };
    if (db.status === 'creating' && !this.beingCreated(db)) observed.interrupted = 'cairn stopped while creating it';
    // Stopped with its server is as asked; stopped otherwise (killed, host rebooted) is drift that update heals.
    if (db.status !== 'creating' && db.status !== 'error' && !this.serverStopped(db.serverId) && this.host.cluster(db).runningPid() === null) {
      observed.down = 'its PostgreSQL server is not running';
    }
    return observed;
  }

  /** Whether a live cairn process is still creating it (this one, or another sharing the data dir). */
  private beingCreated(db: DatabaseRecord): boolean {
    return db.workerPid !== undefined && processAlive(db.workerPid);
  }

  observe(ref: ExternalRef): Promise<DatabaseObserved | null> {
    const db = findByRef(this.host.state.current.databases, ref);
    return Promise.resolve(db ? this.toObserved(db) : null);
  }

  async create(key: string, desired: DatabaseDesired): Promise<DatabaseObserved> {
    const existing = this.host.state.current.databases.find((d) => d.clientToken === key);
    if (existing) return this.toObserved(existing);
    if (desired.type === 'mongodb') {
      const mongod = mongodOnPath();
      throw new UnsupportedError(
        mongod
          ? `Database/${desired.name}: ${mongod} is on this host, but cairn's local runtime runs only PostgreSQL so far; use type: postgresql`
          : `Database/${desired.name}: this host has no MongoDB server (no mongod on PATH); the local runtime cannot create MongoDB databases here`,
      );
    }
    const server = this.host.state.current.servers.find((s) => s.id === desired.placement.serverExternalId);
    if (!server) throw new VendorRejectedError(`Database/${desired.name}: server ${desired.placement.serverExternalId} is not a server of this host: the local vendor's servers live on the cairn that made them, so with several replicas on one store use the ssh vendor or a cloud`, { field: 'server' });
    const installation = postgresFor(desired.name, desired.version);
    const name = sqlName(desired.name);
    const record: DatabaseRecord = {
      id: this.host.newId('pg'), name: desired.name, clientToken: key, serverId: server.id, type: 'postgresql', version: desired.version,
      storageGb: desired.storageGb, port: await freePort(), username: name, database: name, status: 'creating', message: null,
      engineVersion: installation.version, restores: [], workerPid: process.pid,
    };
    this.host.state.update((s) => s.databases.push(record));
    this.host.background(() => this.build(record, desired.password));
    return this.toObserved(record);
  }

  /** initdb, start, then the role (with cairn's password) and its database. */
  private async build(record: DatabaseRecord, password: string): Promise<void> {
    try {
      const cluster = this.host.cluster(record);
      await cluster.init();
      await cluster.start();
      await cluster.admin('postgres', async (client) => {
        await client.query(`CREATE ROLE ${quoteIdent(record.username)} LOGIN PASSWORD ${client.escapeLiteral(password)}`);
        await client.query(`CREATE DATABASE ${quoteIdent(record.database)} OWNER ${quoteIdent(record.username)}`);
      });
      this.change(record.id, (db) => Object.assign(db, { status: 'available', message: null }));
    } catch (error) {
      this.change(record.id, (db) => Object.assign(db, { status: 'error', message: `creating the cluster failed: ${(error as Error).message}` }));
    }
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const db = this.required(externalId);
    if (db.status === 'creating' && !this.beingCreated(db)) return this.createAgain(db, desired);
    if (postgresFor(desired.name, desired.version).major !== postgresFor(db.name, db.version).major) {
      throw new VendorRejectedError(`Database/${desired.name}: changing the major version (${db.version} → ${desired.version}) in place is not supported by the local runtime`, { field: 'version' });
    }
    this.change(externalId, (d) => Object.assign(d, { storageGb: desired.storageGb, version: desired.version }));
    if (db.status !== 'creating' && db.status !== 'error') {
      if (this.serverStopped(db.serverId)) {
        throw new Error(`Database/${desired.name}: its server ${db.serverId} is stopped; the database starts again with it`);
      }
      await this.host.cluster(db).start(options.signal);
    }
    return this.toObserved(this.required(externalId));
  }

  /**
   * A creation its cairn process did not finish (killed mid-initdb, say): nothing can be in the
   * half-made cluster yet, so it is thrown away and made again under the same id and port.
   */
  private async createAgain(db: DatabaseRecord, desired: DatabaseDesired): Promise<DatabaseObserved> {
    if (desired.password === '') throw new Error(`Database/${desired.name}: cairn has no password stored for it, so it cannot create it again`);
    await this.host.cluster(db).destroy();
    this.change(db.id, (d) => Object.assign(d, { workerPid: process.pid, message: null }));
    const record = this.required(db.id);
    this.host.background(() => this.build(record, desired.password));
    return this.toObserved(record);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const db = this.record(externalId);
    if (!db) return;
    await this.host.cluster(db).destroy(options.signal);
    this.host.state.update((s) => {
      s.databases = s.databases.filter((d) => d.id !== externalId);
    });
  }

  async endpoint(externalId: string): Promise<DatabaseEndpoint> {
    await Promise.resolve(); // refusals below reject the promise rather than throw
    const db = this.required(externalId);
    return { host: '127.0.0.1', port: db.port, username: db.username, database: db.database };
  }

  async setPassword(externalId: string, password: string): Promise<void> {
    const db = this.required(externalId);
    if (db.status === 'creating') throw new Error(`database ${externalId} is still being created`);
    await this.host.cluster(db).admin('postgres', async (client) => {
      await client.query(`ALTER ROLE ${quoteIdent(db.username)} PASSWORD ${client.escapeLiteral(password)}`);
    });
  }

  private backupRecord(ref: ExternalRef): BackupRecord | undefined {
    return findByRef(this.host.state.current.backups, ref);
  }

  async createBackup(databaseExternalId: string, key: string): Promise<BackupObserved> {
    await Promise.resolve(); // refusals below reject the promise rather than throw
    const existing = this.backupRecord({ key });
    if (existing) return toBackup(existing);
    const db = this.required(databaseExternalId);
    if (db.status !== 'available' && db.status !== 'backing_up') throw new Error(`database ${db.id} is ${db.status}; back it up once it is available`);
    const id = this.host.newId('backup');
    const record: BackupRecord = {
      id, clientToken: key, databaseId: db.id, status: 'running', sizeBytes: null, checksum: null, file: this.host.backupFile(id),
      createdAt: new Date().toISOString(), completedAt: null, message: null, workerPid: process.pid,
    };
    this.host.state.update((s) => {
      s.backups.push(record);
      const d = s.databases.find((x) => x.id === db.id);
      if (d) d.status = 'backing_up';
    });
    this.host.background(() => this.dump(db, record));
    return toBackup(record);
  }

  private async dump(db: DatabaseRecord, record: BackupRecord): Promise<void> {
    let outcome: Partial<BackupRecord>;
    try {
      const dumped = await dumpDatabase(this.host.cluster(db), db.database, record.file, this.keys);
      outcome = { status: 'completed', sizeBytes: dumped.sizeBytes, checksum: dumped.checksum, message: null };
    } catch (error) {
      outcome = { status: 'failed', message: `pg_dump failed: ${(error as Error).message}` };
    }
    this.host.state.update((s) => {
      const b = s.backups.find((x) => x.id === record.id);
      if (b) Object.assign(b, outcome, { completedAt: new Date().toISOString() });
      const d = s.databases.find((x) => x.id === db.id);
      if (d?.status === 'backing_up' && !s.backups.some((x) => x.databaseId === d.id && x.status === 'running')) d.status = 'available';
    });
  }

  observeBackup(ref: ExternalRef): Promise<BackupObserved | null> {
    const b = this.backupRecord(ref);
    return Promise.resolve(b ? toBackup(b) : null);
  }

  async deleteBackup(backupExternalId: string): Promise<void> {
    const b = this.host.state.current.backups.find((x) => x.id === backupExternalId);
    if (!b) return;
    await rm(b.file, { force: true });
    this.host.state.update((s) => {
      s.backups = s.backups.filter((x) => x.id !== backupExternalId);
    });
  }

  async restore(databaseExternalId: string, backupExternalId: string, key: string): Promise<DatabaseObserved> {
    const db = this.required(databaseExternalId);
    const earlier = db.restores.find((r) => r.key === key);
    if (earlier?.status === 'failed') throw new VendorRejectedError(earlier.message ?? `restore ${key} failed`);
    if (earlier) return this.toObserved(db);
    const backup = this.host.state.current.backups.find((x) => x.id === backupExternalId);
    if (!backup) throw new VendorRejectedError(`backup ${backupExternalId} does not exist on this host`);
    if (backup.status !== 'completed' || backup.checksum === null) throw new VendorRejectedError(`backup ${backup.id} is ${backup.status}; only a completed backup can be restored`);
    if (db.status !== 'available') throw new Error(`database ${db.id} is ${db.status}; restore once it is available`);
    const checksum = backup.checksum;
    // A first pass reads it all before anything changes; the restore itself verifies again as it streams.
    try {
      await verifyBackup(backup.file, this.keys, checksum);
    } catch (error) {
      const why = error instanceof SecretIntegrityError ? 'was altered since it was made' : 'cannot be read';
      throw new VendorRejectedError(`backup ${backup.id}: its file ${why} (${(error as Error).message}); refusing to restore it`);
    }
    this.change(db.id, (d) => {
      d.status = 'restoring';
      d.restores.push({ key, backupId: backup.id, status: 'running', message: null, workerPid: process.pid });
    });
    this.host.background(async () => {
      let outcome: { status: 'succeeded' | 'failed'; message: string | null };
      try {
        await restoreDatabase(this.host.cluster(db), db.database, backup.file, this.keys, checksum);
        outcome = { status: 'succeeded', message: null };
      } catch (error) {
        outcome = { status: 'failed', message: `pg_restore of backup ${backup.id} failed: ${(error as Error).message}` };
      }
      this.change(db.id, (d) => {
        d.status = 'available';
        const r = d.restores.find((x) => x.key === key);
        if (r) Object.assign(r, outcome);
      });
    });
    return this.toObserved(this.required(db.id));
  }

  async stopOn(serverId: string): Promise<void> {
    for (const db of this.host.state.current.databases.filter((d) => d.serverId === serverId && d.status !== 'creating' && d.status !== 'error')) {
      await this.host.cluster(db).stop();
    }
  }

  async startOn(serverId: string): Promise<void> {
    for (const db of this.host.state.current.databases.filter((d) => d.serverId === serverId && d.status !== 'creating' && d.status !== 'error')) {
      await this.host.cluster(db).start();
    }
  }
}

function toBackup(b: BackupRecord): BackupObserved {
  return {
    id: b.id, clientToken: b.clientToken, databaseId: b.databaseId, status: b.status, sizeBytes: b.sizeBytes, checksum: b.checksum,
    createdAt: b.createdAt, completedAt: b.completedAt, message: b.message,
  };
}
