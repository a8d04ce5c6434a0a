/**
 * @module The SSH runtime's backups as cairn keeps them: each backup's file is in cairn's data
 * dir (`ssh-runtime/backups/<id>.sealed`, streamed back from the host and sealed at rest), and
 * its record — status, size, SHA-256 of the plaintext, the worker making it — in one JSON file
 * (`ssh-runtime/backups.json`, see records-file.ts). Records are found by id or by key and
 * outlive their database. Shared by every driver of a data dir in this process.
 */
import { join } from 'node:path';
import type { BackupObserved, ExternalRef } from '../contract.js';
import { findByRef } from '../local/state-file.js';
import { RecordsFile } from './records-file.js';

/** Which cairn process works on something (host name and pid), so one that died can be told from one still working. */
export interface Worker {
  host: string;
  pid: number;
}

export interface SshBackupRecord extends BackupObserved {
  file: string;
  /** The cairn process making it, while it is `running`. */
  worker?: Worker;
}

/** The backups of a data dir (`ssh-runtime/backups.json`, files in `ssh-runtime/backups/`), one per process. */
export class SshBackupRecords {
  private constructor(private readonly file: RecordsFile<SshBackupRecord>, readonly dir: string) {}

  static of(dataDir: string): SshBackupRecords {
    const file = RecordsFile.at<SshBackupRecord>(join(dataDir, 'ssh-runtime', 'backups.json'), 'backups', "the SSH runtime's backup records");
    return new SshBackupRecords(file, join(dataDir, 'ssh-runtime', 'backups'));
  }

  /** Where the backup `id`'s sealed file goes. */
  fileFor(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`refusing the backup id ${JSON.stringify(id)} as a file name`);
    return join(this.dir, `${id}.sealed`);
  }

  find(ref: ExternalRef): SshBackupRecord | undefined {
    return findByRef(this.file.all, ref);
  }

  byId(id: string): SshBackupRecord | undefined {
    return this.file.all.find((b) => b.id === id);
  }

  /** Running backups of a database. */
  runningFor(databaseId: string): SshBackupRecord[] {
    return this.file.all.filter((b) => b.databaseId === databaseId && b.status === 'running');
  }

  add(record: SshBackupRecord): void {
    this.file.replace([...this.file.all, record]);
  }

  change(id: string, change: Partial<SshBackupRecord>): void {
    this.file.replace(this.file.all.map((b) => (b.id === id ? { ...b, ...change } : b)));
  }

  remove(id: string): void {
    this.file.replace(this.file.all.filter((b) => b.id !== id));
  }
}
