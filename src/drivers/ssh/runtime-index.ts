/**
 * @module Where the SSH runtime placed each database and app: one entry per thing (its id, the
 * key it was created with, its server and how that server is reached), kept in the data dir as
 * one JSON file written whole and renamed. Driver calls name a thing by id or key only, so this
 * is how `observe`, `delete` and the rest find its host. An entry is written before anything is
 * made on the host, so a create cut short is found by its key; the host's own records (see
 * remote-host.ts) say what really exists there. Shared by every driver of a data dir in this process.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExternalRef } from '../contract.js';
import type { SshTarget } from '../../ssh/connection-pool.js';

/** `server`: a bring-your-own host the `ssh` vendor adopted (its id and target are the host's). */
export type PlacedKind = 'database' | 'app' | 'server';

export interface PlacedEntry {
  kind: PlacedKind;
  id: string;
  key: string;
  /** The server's id at its vendor (the Placement's serverExternalId). */
  serverId: string;
  target: SshTarget;
}

interface IndexFile {
  entries: PlacedEntry[];
}

const shared = new Map<string, RuntimeIndex>();

export class RuntimeIndex {
  private state: IndexFile;

  private constructor(private readonly path: string) {
    this.state = RuntimeIndex.read(path);
  }

  /** The index of a data dir, one per process. */
  static of(dataDir: string): RuntimeIndex {
    const path = join(dataDir, 'ssh-runtime', 'index.json');
    let index = shared.get(path);
    if (!index) {
      index = new RuntimeIndex(path);
      shared.set(path, index);
    }
    return index;
  }

  private static read(path: string): IndexFile {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [] };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<IndexFile>;
      return { entries: Array.isArray(parsed.entries) ? parsed.entries : [] };
    } catch (error) {
      throw new Error(`the SSH runtime's index ${path} is not valid JSON (${(error as Error).message}); restore it or move it away`, { cause: error });
    }
  }

  /** The entry a driver call refers to: by id when it has one, else by the key it was created with. */
  find(kind: PlacedKind, ref: ExternalRef): PlacedEntry | undefined {
    const ofKind = this.state.entries.filter((e) => e.kind === kind);
    return (ref.externalId ? ofKind.find((e) => e.id === ref.externalId) : undefined) ?? ofKind.find((e) => e.key === ref.key);
  }

  byId(kind: PlacedKind, id: string): PlacedEntry | undefined {
    return this.state.entries.find((e) => e.kind === kind && e.id === id);
  }

  /** Records an entry (replacing one with the same kind and id) and writes the file before returning. */
  put(entry: PlacedEntry): void {
    this.update((entries) => [...entries.filter((e) => !(e.kind === entry.kind && e.id === entry.id)), entry]);
  }

  remove(kind: PlacedKind, id: string): void {
    this.update((entries) => entries.filter((e) => !(e.kind === kind && e.id === id)));
  }

  private update(change: (entries: PlacedEntry[]) => PlacedEntry[]): void {
    this.state = { entries: change(this.state.entries) };
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.state, null, 2), { mode: 0o600, flush: true });
    renameSync(temporary, this.path);
  }
}
