/**
 * @module Tencent's managed databases behind one DatabaseRuntime: TencentDB for PostgreSQL
 * (postgres.ts) and TencentDB for MongoDB (mongodb.ts) are separate services with their own APIs,
 * so a create goes to the engine the Database asks for, and everything else to the service whose
 * ids it carries (`postgres-…@<region>`, `cmgo-…@<region>`; a MongoDB backup
 * `<BackId>@cmgo-…@<region>`). Observe by key alone asks both.
 */
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';

export class TencentManagedDatabases implements DatabaseRuntime {
  constructor(
    private readonly postgres: DatabaseRuntime,
    private readonly mongodb: DatabaseRuntime,
  ) {}

  /** The service whose id this is. */
  private of(externalId: string): DatabaseRuntime {
    return /(^|@)cmgo-/.test(externalId) ? this.mongodb : this.postgres;
  }

  async observe(ref: ExternalRef, options?: CallOptions): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.of(ref.externalId).observe(ref, options);
    return (await this.postgres.observe(ref, options)) ?? this.mongodb.observe(ref, options);
  }

  create(key: string, desired: DatabaseDesired, options?: CallOptions): Promise<DatabaseObserved> {
    return (desired.type === 'mongodb' ? this.mongodb : this.postgres).create(key, desired, options);
  }

  update(externalId: string, desired: DatabaseDesired, options?: CallOptions): Promise<DatabaseObserved> {
    return this.of(externalId).update(externalId, desired, options);
  }

  delete(externalId: string, options?: CallOptions): Promise<void> {
    return this.of(externalId).delete(externalId, options);
  }

  endpoint(externalId: string, options?: CallOptions): Promise<DatabaseEndpoint> {
    return this.of(externalId).endpoint(externalId, options);
  }

  setPassword(externalId: string, password: string, options?: CallOptions): Promise<void> {
    return this.of(externalId).setPassword(externalId, password, options);
  }

  createBackup(databaseExternalId: string, key: string, options?: CallOptions): Promise<BackupObserved> {
    return this.of(databaseExternalId).createBackup(databaseExternalId, key, options);
  }

  async observeBackup(ref: ExternalRef, options?: CallOptions): Promise<BackupObserved | null> {
    if (ref.externalId) return this.of(ref.externalId).observeBackup(ref, options);
    return (await this.postgres.observeBackup(ref, options)) ?? this.mongodb.observeBackup(ref, options);
  }

  deleteBackup(backupExternalId: string, options?: CallOptions): Promise<void> {
    return this.of(backupExternalId).deleteBackup(backupExternalId, options);
  }

  restore(databaseExternalId: string, backupExternalId: string, key: string, options?: CallOptions): Promise<DatabaseObserved> {
    return this.of(databaseExternalId).restore(databaseExternalId, backupExternalId, key, options);
  }
}
