/**
 * @module Where the SSH runtime placed each database and app: one entry per thing (its id, the
 * key it was created with, its server and how that server is reached), kept in the data dir as
 * one JSON file written whole and renamed. Driver calls name a thing by id or key only, so this
 * is how `observe`, `delete` and the rest find its host. An entry is written before anything is
 * made on the host, so a create cut short is found by its key; the host's own records (see
 * remote-host.ts) say what really exists there. Shared by every driver of a data dir in this process.
 */
import { join } from 'node:path';
import type { ExternalRef } from '../contract.js';
import type { SshTarget } from '../../ssh/connection-pool.js';
import { RecordsFile } from './records-file.js';

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

/** The index of a data dir (`ssh-runtime/index.json`), one per process. */
export class RuntimeIndex {
  private constructor(private readonly file: RecordsFile<PlacedEntry>) {}

  static of(dataDir: string): RuntimeIndex {
    return new RuntimeIndex(RecordsFile.at<PlacedEntry>(join(dataDir, 'ssh-runtime', 'index.json'), 'entries', "the SSH runtime's index"));
  }

  /** The entry a driver call refers to: by id when it has one, else by the key it was created with. */
  find(kind: PlacedKind, ref: ExternalRef): PlacedEntry | undefined {
    const ofKind = this.file.all.filter((e) => e.kind === kind);
    return (ref.externalId ? ofKind.find((e) => e.id === ref.externalId) : undefined) ?? ofKind.find((e) => e.key === ref.key);
  }

  byId(kind: PlacedKind, id: string): PlacedEntry | undefined {
    return this.file.all.find((e) => e.kind === kind && e.id === id);
  }

  /** Records an entry (replacing one with the same kind and id) and writes the file before returning. */
  put(entry: PlacedEntry): void {
    this.file.replace([...this.file.all.filter((e) => !(e.kind === entry.kind && e.id === entry.id)), entry]);
  }

  remove(kind: PlacedKind, id: string): void {
    this.file.replace(this.file.all.filter((e) => !(e.kind === kind && e.id === id)));
  }
}
