/**
 * @module The local runtime's own record of what it made on this host (servers, databases,
 * backups, apps): one JSON file in the data dir, written whole to a temporary file and renamed
 * over the old one, so a crash leaves either the old or the new record, never half of one.
 * It holds no secrets: database passwords live in cairn's encrypted store, app environments in memory.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ExternalRef } from '../contract.js';

export interface ServerRecord {
  id: string;
  name: string;
  clientToken: string;
  region: string;
  size: string;
  image: string;
  status: 'running' | 'stopped';
}

export interface DatabaseRecord {
  id: string;
  name: string;
  clientToken: string;
  serverId: string;
  type: 'postgresql';
  /** The major version asked for, e.g. "15". */
  version: string;
  storageGb: number | null;
  port: number;
  username: string;
  database: string;
  status: 'creating' | 'available' | 'backing_up' | 'restoring' | 'error';
  /** Why it is in error, when it is. */
  message: string | null;
  engineVersion: string | null;
  /** Restores asked for, by key, and how each went. */
  restores: Array<{ key: string; backupId: string; status: 'running' | 'succeeded' | 'failed'; message: string | null; workerPid?: number }>;
  /** The cairn process creating it, while it is `creating`. */
  workerPid?: number;
}

export interface BackupRecord {
  id: string;
  clientToken: string;
  databaseId: string;
  status: 'running' | 'completed' | 'failed';
  sizeBytes: number | null;
  checksum: string | null;
  file: string;
  createdAt: string;
  completedAt: string | null;
  message: string | null;
  /** The cairn process taking it, while it is `running`. */
  workerPid?: number;
}

export interface AppRecord {
  id: string;
  name: string;
  clientToken: string;
  serverId: string;
  /** The stable endpoint's port: kept across restarts of cairn. */
  proxyPort: number;
  release: number;
}

export interface LocalState {
  servers: ServerRecord[];
  databases: DatabaseRecord[];
  backups: BackupRecord[];
  apps: AppRecord[];
}

/** The record a driver call refers to: by its id when it has one, else by the client token it was created with. */
export function findByRef<T extends { id: string; clientToken: string }>(records: readonly T[], ref: ExternalRef): T | undefined {
  return (ref.externalId ? records.find((r) => r.id === ref.externalId) : undefined) ?? records.find((r) => r.clientToken === ref.key);
}

function emptyState(): LocalState {
  return { servers: [], databases: [], backups: [], apps: [] };
}

export class StateFile {
  private state: LocalState;

  constructor(private readonly path: string) {
    this.state = StateFile.read(path);
  }

  private static read(path: string): LocalState {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
      throw error;
    }
    try {
      return { ...emptyState(), ...(JSON.parse(text) as Partial<LocalState>) };
    } catch (error) {
      throw new Error(`the local runtime's state file ${path} is not valid JSON (${(error as Error).message}); restore it or move it away`, { cause: error });
    }
  }

  /** The records as they are now (changed only through `update`). */
  get current(): Readonly<LocalState> {
    return this.state;
  }

  /** Changes the records and writes them to disk before returning. */
  update<T>(change: (state: LocalState) => T): T {
    const result = change(this.state);
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    renameSync(temporary, this.path);
    return result;
  }
}
