/**
 * @module The log lines of sandbox apps, written when the sandbox decides a transition: lines
 * of its immediate steps at once, lines of its outcome stamped with the time the transition
 * ends. A transition cut short takes its not-yet-reached lines back. Reads see only lines whose
 * time has come, and each app keeps its newest lines only.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export type LogStream = 'stdout' | 'stderr' | 'system';

export interface LogLineRow {
  ts_ms: number;
  stream: LogStream;
  line: string;
}

export interface LogQuery {
  nowMs: number;
  tail: number;
  sinceMs: number | undefined;
}

/** Lines kept per app; older ones are dropped. */
export const LOG_LINES_KEPT = 2000;

export class AppLogsTable {
  constructor(private readonly sql: StatementCache) {}

  append(appId: string, lines: readonly LogLineRow[]): void {
    if (lines.length === 0) return;
    const insert = this.sql.get('INSERT INTO app_logs (app_id, ts_ms, stream, line) VALUES (?, ?, ?, ?)');
    for (const l of lines) insert.run(appId, l.ts_ms, l.stream, l.line);
    this.sql
      .get(
        `DELETE FROM app_logs WHERE app_id = @app AND seq NOT IN
           (SELECT seq FROM app_logs WHERE app_id = @app ORDER BY ts_ms DESC, seq DESC LIMIT @kept)`,
      )
      .run({ app: appId, kept: LOG_LINES_KEPT });
  }

  /** Takes back the lines stamped after `nowMs` (the outcome of a transition that will not happen); returns how many. */
  withdrawAfter(appId: string, nowMs: number): number {
    return this.sql.get('DELETE FROM app_logs WHERE app_id = ? AND ts_ms > ?').run(appId, nowMs).changes;
  }

  /** The newest `tail` lines up to `nowMs` (and from `sinceMs`, if given), oldest first. */
  read(appId: string, query: LogQuery): LogLineRow[] {
    const rows = this.sql
      .get(
        `SELECT ts_ms, stream, line FROM app_logs
         WHERE app_id = @app AND ts_ms <= @now AND ts_ms >= @since
         ORDER BY ts_ms DESC, seq DESC LIMIT @tail`,
      )
      .all({ app: appId, now: query.nowMs, since: query.sinceMs ?? Number.MIN_SAFE_INTEGER, tail: query.tail }) as LogLineRow[];
    return rows.reverse();
  }
}
