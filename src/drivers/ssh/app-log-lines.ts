/**
 * @module An app's log as cairn's supervisor writes it on the host (`<ISO time> <stream> <line>`,
 * one entry a line, rotated to `.1` … `.3`), read back: parsed, ordered oldest first, then
 * filtered by `since` and cut to the newest `tail`.
 */
import type { AppLogLine } from '../contract.js';

const DEFAULT_TAIL = 100;
const MAX_TAIL = 1000;
const ENTRY = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (stdout|stderr|system) ?(.*)$/;

/** The files of a log, oldest first. */
export function logFiles(log: string, keep = 3): string[] {
  return [...Array.from({ length: keep }, (_, i) => `${log}.${keep - i}`), log];
}

export function parseLogLines(text: string, query: { tail?: number; since?: string }): AppLogLine[] {
  const tail = Math.min(Math.max(query.tail ?? DEFAULT_TAIL, 1), MAX_TAIL);
  const since = query.since === undefined ? undefined : Date.parse(query.since);
  const lines: AppLogLine[] = [];
  for (const raw of text.split('\n')) {
    const match = ENTRY.exec(raw);
    if (!match) continue; // a line cut short by a crash or a rotation
    const [, ts = '', stream = 'system', line = ''] = match;
    if (since !== undefined && Date.parse(ts) < since) continue;
    lines.push({ ts, stream: stream as AppLogLine['stream'], line });
  }
  // Two streams and cairn's own lines are appended by different writers: order by time (stable).
  lines.sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts));
  return lines.slice(-tail);
}
