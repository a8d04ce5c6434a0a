/**
 * @module The SQL connection the store's classes are written against: the part of better-sqlite3's
 * `Database` they use, which the PostgreSQL connection (pg/pg-connection.ts) provides too. The SQL
 * they pass is SQLite's; the PostgreSQL connection translates it (pg/dialect.ts).
 */

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqlStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): RunResult;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as arrays of values instead of objects. */
  raw(toggle?: boolean): this;
}

/** A function run in a transaction; called inside another, it runs as a savepoint. */
/* eslint-disable @typescript-eslint/no-explicit-any -- the same bounds as better-sqlite3's own */
export interface Transaction<F extends (...args: any[]) => any> {
  (...args: any[]): ReturnType<F>;
  deferred(...args: any[]): ReturnType<F>;
  /** Takes the write lock at BEGIN (SQLite's BEGIN IMMEDIATE), so a read-then-write inside is never raced. */
  immediate(...args: any[]): ReturnType<F>;
}

export interface SqlConnection {
  prepare(sql: string): SqlStatement;
  exec(sql: string): unknown;
  transaction<F extends (...args: any[]) => any>(fn: F): Transaction<F>;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  readonly open: boolean;
  readonly inTransaction: boolean;
  close(): unknown;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
