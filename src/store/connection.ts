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

/**
 * Statements that renew leases, in SQLite's SQL with named parameters: `@now` is the time of
 * each run (epoch ms) and `@until` that plus `ttlMs`; the others come from `params`.
 */
export interface LeaseRenewal {
  ttlMs: number;
  statements: Array<{ sql: string; params: Record<string, unknown> }>;
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
  /**
   * Keeps `renewal` running (under `key`; undefined ends it) every ttlMs/3 from outside the calling
   * thread while that thread is inside the database, so a process waiting on another's write lock
   * keeps its leases. Only where processes wait on each other (PostgreSQL); SQLite has one.
   */
  renewWhileBusy?(key: string, renewal: LeaseRenewal | undefined): void;
  /**
   * A number that names the open outermost transaction (a new one at every BEGIN); undefined
   * outside one, or where the connection does not tell them apart (SQLite's).
   */
  readonly transactionSerial?: number;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
