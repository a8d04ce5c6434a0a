/**
 * @module A list of records the SSH runtime keeps in cairn's data dir: one JSON file written
 * whole to a temporary file, flushed and renamed over the old one, so a crash leaves either the
 * old list or the new one. One instance per file in a process, shared by every driver of that
 * data dir, so no two of them overwrite each other's changes.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const opened = new Map<string, RecordsFile<unknown>>();

export class RecordsFile<T> {
  private list: T[];

  private constructor(private readonly path: string, private readonly field: string, what: string) {
    this.list = RecordsFile.read<T>(path, field, what);
  }

  /** The records file at `path`, whose list is the JSON object's `field`; `what` names it in errors. */
  static at<T>(path: string, field: string, what: string): RecordsFile<T> {
    let file = opened.get(path);
    if (!file) {
      file = new RecordsFile<T>(path, field, what);
      opened.set(path, file);
    }
    return file as RecordsFile<T>;
  }

  private static read<T>(path: string, field: string, what: string): T[] {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const list = parsed[field];
      return Array.isArray(list) ? (list as T[]) : [];
    } catch (error) {
      throw new Error(`${what} ${path} is not valid JSON (${(error as Error).message}); restore the file or move it away`, { cause: error });
    }
  }

  /** The records as they are now (changed only through `replace`). */
  get all(): readonly T[] {
    return this.list;
  }

  /** Makes `records` the list and writes the file before returning. */
  replace(records: T[]): void {
    this.list = records;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ [this.field]: records }, null, 2), { mode: 0o600, flush: true });
    renameSync(temporary, this.path);
  }
}
