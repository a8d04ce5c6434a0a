/**
 * @module The SSH runtime's backups as cairn keeps them: each backup's file is in cairn's data
 * dir (`ssh-runtime/backups/<id>.sealed`, streamed back from the host and sealed at rest), and
 * its record — status, size, SHA-256 of the plaintext, the worker making it — in one JSON file
 * (`ssh-runtime/backups.json`) written whole and renamed. Records are found by id or by key and
 * outlive their database. Shared by every driver of a data dir in this process.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupObserved, ExternalRef } from '../contract.js';

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

const shared = new Map<string, SshBackupRecords>();

export class SshBackupRecords {
  private records: SshBackupRecord[];

  private constructor(private readonly path: string, readonly dir: string) {
    this.records = SshBackupRecords.read(path);
  }

  static of(dataDir: string): SshBackupRecords {
    const path = join(dataDir, 'ssh-runtime', 'backups.json');
    let records = shared.get(path);
    if (!records) {
      records = new SshBackupRecords(path, join(dataDir, 'ssh-runtime', 'backups'));
      shared.set(path, records);
    }
    return records;
  }

  private static read(path: string): SshBackupRecord[] {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as { backups?: unknown };
      return Array.isArray(parsed.backups) ? (parsed.backups as SshBackupRecord[]) : [];
    } catch (error) {
      throw new Error(`the SSH runtime's backup records ${path} are not valid JSON (${(error as Error).message}); restore the file or move it away`, { cause: error });
    }
  }

  /** Where the backup `id`'s sealed file goes. */
  fileFor(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`refusing the backup id ${JSON.stringify(id)} as a file name`);
    return join(this.dir, `${id}.sealed`);
  }

  find(ref: ExternalRef): SshBackupRecord | undefined {
    return (ref.externalId ? this.records.find((b) => b.id === ref.externalId) : undefined) ?? this.records.find((b) => b.clientToken === ref.key);
  }

  byId(id: string): SshBackupRecord | undefined {
    return this.records.find((b) => b.id === id);
  }

  /** Running backups of a database. */
  runningFor(databaseId: string): SshBackupRecord[] {
    return this.records.filter((b) => b.databaseId === databaseId && b.status === 'running');
  }

  add(record: SshBackupRecord): void {
    this.write([...this.records, record]);
  }

  change(id: string, change: Partial<SshBackupRecord>): void {
    this.write(this.records.map((b) => (b.id === id ? { ...b, ...change } : b)));
  }

  remove(id: string): void {
    this.write(this.records.filter((b) => b.id !== id));
  }

  private write(records: SshBackupRecord[]): void {
    this.records = records;
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ backups: records }, null, 2), { mode: 0o600, flush: true });
    renameSync(temporary, this.path);
  }
}
