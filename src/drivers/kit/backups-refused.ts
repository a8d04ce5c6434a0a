/**
 * @module The backup half of a vendor's managed database service where cairn cannot take
 * backups of its own (no on-demand backup endpoint, or backups that die with their database):
 * a backup or restore is refused, saying why; there is never a backup of cairn's to find or
 * delete. The vendor's own scheduled backups go on; deleting such a database needs
 * `cairn.dev/skip-final-backup`, as the refusal's reason tells the user.
 */
import type { BackupObserved, DatabaseObserved } from '../contract.js';
import { UnsupportedError } from '../errors.js';

export abstract class ManagedDatabasesWithoutBackups {
  /** `refusal(id)`: the whole message for database `id`, e.g. `digitalocean: database cluster <id>: <why>`. */
  protected constructor(private readonly refusal: (databaseExternalId: string) => string) {}

  createBackup(databaseExternalId: string): Promise<BackupObserved> {
    return Promise.reject(new UnsupportedError(this.refusal(databaseExternalId)));
  }

  /** Null: cairn never made a backup here (createBackup refuses), so there is none to find. */
  observeBackup(): Promise<BackupObserved | null> {
    return Promise.resolve(null);
  }

  /** Nothing to delete: cairn never made a backup here (createBackup refuses). */
  deleteBackup(): Promise<void> {
    return Promise.resolve();
  }

  restore(databaseExternalId: string): Promise<DatabaseObserved> {
    return Promise.reject(new UnsupportedError(this.refusal(databaseExternalId)));
  }
}
