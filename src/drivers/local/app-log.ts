/**
 * @module An app's log: what its build and processes print (stdout, stderr) and what cairn says
 * about it (system), one JSON line per entry in `app.log`, rotated to `app.log.1` … when it
 * grows past a size, keeping a few files. Read back oldest first, by tail and since.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AppLogLine } from '../contract.js';

const DEFAULT_TAIL = 100;
const MAX_TAIL = 1000;

export class AppLog {
  private size: number;
  private readonly file: string;

  constructor(private readonly dir: string, private readonly maxBytes = 1024 * 1024, private readonly keep = 3) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, 'app.log');
    this.size = existsSync(this.file) ? statSync(this.file).size : 0;
  }

  write(stream: AppLogLine['stream'], line: string): void {
    const entry = `${JSON.stringify({ ts: new Date().toISOString(), stream, line })}\n`;
    const bytes = Buffer.byteLength(entry);
    if (this.size + bytes > this.maxBytes && this.size > 0) this.rotate();
    appendFileSync(this.file, entry, { mode: 0o600 });
    this.size += bytes;
  }

  private rotate(): void {
    rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let n = this.keep - 1; n >= 1; n -= 1) {
      if (existsSync(`${this.file}.${n}`)) renameSync(`${this.file}.${n}`, `${this.file}.${n + 1}`);
    }
    renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }

  /** The newest `tail` entries (at or after `since`), oldest first. */
  read(query: { tail?: number; since?: string }): AppLogLine[] {
    const tail = Math.min(Math.max(query.tail ?? DEFAULT_TAIL, 1), MAX_TAIL);
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    const files = [...Array.from({ length: this.keep }, (_, i) => `${this.file}.${this.keep - i}`), this.file];
    const lines: AppLogLine[] = [];
    for (const file of files) {
      if (!existsSync(file)) continue;
      for (const text of readFileSync(file, 'utf8').split('\n')) {
        if (text === '') continue;
        let entry: AppLogLine;
        try {
          entry = JSON.parse(text) as AppLogLine;
        } catch {
          continue; // a line cut short by a crash
        }
        if (since !== undefined && Date.parse(entry.ts) < since) continue;
        lines.push(entry);
      }
    }
    return lines.slice(-tail);
  }
}
