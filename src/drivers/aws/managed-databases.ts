/**
 * @module AWS's managed databases as one DatabaseRuntime that routes by engine: a Database's
 * `type` picks the service (mongodb → DocumentDB), and an id names its service by its shape
 * (DocumentDB's `<region>/cairn-docdb-…` ids; every other id is RDS's).
 */
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';
import { VendorRejectedError } from '../errors.js';

export interface AwsDatabaseHalves {
  /** DocumentDB: mongodb. */
  mongodb: DatabaseRuntime | undefined;
  /** RDS: postgresql (joined by the lead at merge). */
  postgresql: DatabaseRuntime | undefined;
}

export class AwsManagedDatabases implements DatabaseRuntime {
  constructor(private readonly halves: AwsDatabaseHalves, private readonly owns: { mongodb: (id: string) => boolean; postgresql: (id: string) => boolean }) {}

  private byType(type: DatabaseDesired['type']): DatabaseRuntime {
    const half = this.halves[type];
    if (!half) throw new VendorRejectedError(`aws managed ${type}: not offered through cairn yet (AWS's managed engines here: ${this.engines().join(', ') || 'none'})`, { field: 'type' });
    return half;
  }

  private byId(id: string): DatabaseRuntime {
    for (const type of ['mongodb', 'postgresql'] as const) {
      const half = this.halves[type];
      if (half && this.owns[type](id)) return half;
    }
    throw new VendorRejectedError(`aws: "${id}" is not the id of one of cairn's AWS managed databases`);
  }

  engines(): Array<DatabaseDesired['type']> {
    return (['mongodb', 'postgresql'] as const).filter((t) => this.halves[t] !== undefined);
  }

  async observe(ref: ExternalRef, options?: CallOptions): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId).observe(ref, options);
    return this.fromEitherHalf((half) => half.observe(ref, options));
  }

  /**
   * A lookup by key alone asks both services: what one finds is the answer, even when the other
   * failed; nothing found while one failed is that failure, not "gone".
   */
  private async fromEitherHalf<T>(look: (half: DatabaseRuntime) => Promise<T | null>): Promise<T | null> {
    let failure: unknown;
    for (const half of [this.halves.mongodb, this.halves.postgresql]) {
      if (!half) continue;
      try {
        const found = await look(half);
        if (found) return found;
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return null;
  }

  async create(key: string, desired: DatabaseDesired, options?: CallOptions): Promise<DatabaseObserved> {
    return this.byType(desired.type).create(key, desired, options);
  }

  async update(externalId: string, desired: DatabaseDesired, options?: CallOptions): Promise<DatabaseObserved> {
    return this.byId(externalId).update(externalId, desired, options);
  }

  async delete(externalId: string, options?: CallOptions): Promise<void> {
    return this.byId(externalId).delete(externalId, options);
  }

  async endpoint(externalId: string, options?: CallOptions): Promise<DatabaseEndpoint> {
    return this.byId(externalId).endpoint(externalId, options);
  }

  async setPassword(externalId: string, password: string, options?: CallOptions): Promise<void> {
    return this.byId(externalId).setPassword(externalId, password, options);
  }

  async createBackup(databaseExternalId: string, key: string, options?: CallOptions): Promise<BackupObserved> {
    return this.byId(databaseExternalId).createBackup(databaseExternalId, key, options);
  }

  async observeBackup(ref: ExternalRef, options?: CallOptions): Promise<BackupObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId).observeBackup(ref, options);
    return this.fromEitherHalf((half) => half.observeBackup(ref, options));
  }

  async deleteBackup(backupExternalId: string, options?: CallOptions): Promise<void> {
    return this.byId(backupExternalId).deleteBackup(backupExternalId, options);
  }

  async restore(databaseExternalId: string, backupExternalId: string, key: string, options?: CallOptions): Promise<DatabaseObserved> {
    return this.byId(databaseExternalId).restore(databaseExternalId, backupExternalId, key, options);
  }
}
