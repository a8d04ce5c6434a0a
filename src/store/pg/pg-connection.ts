/**
 * @module The store's SQL connection on PostgreSQL: what the store's classes use of
 * better-sqlite3 (statements, transactions, the pragmas they read and set), over one blocking
 * `pg` connection (sync-client.ts), with every SQL text translated from SQLite's (dialect.ts).
 *
 * Transactions keep SQLite's guarantees. SQLite lets one writer in at a time, so a transaction's
 * read-then-write is never raced; here every transaction takes one advisory lock first, held to
 * its end, so writers of all replicas on the database take turns the same way. SQLite fails only
 * the statement that failed, and the transaction goes on; PostgreSQL would abort the whole
 * transaction, so inside one each write runs under its own savepoint (a read fails only on a
 * defect; a transaction it spoiled is refused at COMMIT, never committed in part).
 */
import type { LeaseRenewal, RunResult, SqlConnection, SqlStatement, Transaction } from '../connection.js';
import { toPostgres, type TranslatedSql } from './dialect.js';
import { SyncPgClient } from './sync-client.js';

/** The advisory lock every write transaction holds: 'cairn' as a number. */
export const WRITE_LOCK_KEY = 0x636169726e;

const SCHEMA_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS cairn_schema_version (one_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one_row), version BIGINT NOT NULL);
  INSERT INTO cairn_schema_version (version) VALUES (0) ON CONFLICT DO NOTHING`;

const READ_ONLY = /^\s*SELECT\b/i;

export class PgConnection implements SqlConnection {
  private transactionDepth = 0;
  private openTransaction = false;
  private synchronousCommit = true;
  private serial = 0;
  /**
   * Nested transactions entered whose savepoint is not made yet: it is made just before their
   * first write (with that write's own), so one that only reads costs no round trip.
   */
  private readonly unmadeSavepoints: string[] = [];

  constructor(private readonly client: SyncPgClient) {
    // A new database: the table that stands in for SQLite's user_version (CREATE … IF NOT EXISTS races itself, hence the lock).
    this.exec('BEGIN');
    try {
      this.client.exec(SCHEMA_VERSION_TABLE);
      this.exec('COMMIT');
    } catch (error) {
      this.exec('ROLLBACK');
      throw error;
    }
  }

  get open(): boolean {
    return !this.client.closed;
  }

  get inTransaction(): boolean {
    return this.openTransaction;
  }

  get transactionSerial(): number | undefined {
    return this.openTransaction ? this.serial : undefined;
  }

  prepare(sql: string): SqlStatement {
    return new PgStatement(this, toPostgres(sql));
  }

  exec(sql: string): this {
    const command = sql.trim().replace(/;$/, '').replace(/\s+/g, ' ').toUpperCase();
    if (/^BEGIN( DEFERRED| IMMEDIATE| EXCLUSIVE)?( TRANSACTION)?$/.test(command)) {
      if (this.openTransaction) throw new Error('cannot start a transaction within a transaction');
      this.client.exec(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      this.openTransaction = true;
      this.serial += 1;
    } else if (command === 'COMMIT' || command === 'END' || command === 'ROLLBACK') {
      this.openTransaction = false;
      this.unmadeSavepoints.length = 0;
      this.client.exec(command === 'ROLLBACK' ? 'ROLLBACK' : 'COMMIT');
    } else {
      this.run(toPostgres(sql).text, undefined);
    }
    return this;
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F> {
    const run = (...args: Parameters<F>): ReturnType<F> => (this.openTransaction ? this.inSavepoint(fn, args) : this.inOwnTransaction(fn, args));
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run });
  }

  /**
   * The pragmas the store reads and sets, answered as SQLite would for what PostgreSQL does:
   * `user_version` is the schema version, `synchronous` is FULL while commits wait for the WAL
   * flush (synchronous_commit) and NORMAL while they do not, `journal_mode` is WAL.
   */
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const [name = '', value] = source.split('=').map((part) => part.trim().toLowerCase());
    const answer = (result: unknown): unknown => (options.simple ? result : [{ [name]: result }]);
    switch (name) {
      case 'user_version':
        if (value === undefined) return answer(this.schemaVersion());
        this.run(`UPDATE cairn_schema_version SET version = $1`, [Number(value)]);
        return [];
      case 'synchronous':
        if (value === undefined) return answer(this.synchronousCommit ? 2 : 1);
        this.synchronousCommit = value === 'full' || value === '2' || value === 'extra' || value === '3';
        this.run(`SET synchronous_commit = ${this.synchronousCommit ? 'on' : 'off'}`, undefined);
        return [];
      case 'journal_mode':
        return answer('wal');
      case 'busy_timeout':
      case 'foreign_keys':
        // Lock waits and foreign keys are PostgreSQL's own and always on.
        return value === undefined ? answer(name === 'foreign_keys' ? 1 : 0) : [];
      default:
        throw new Error(`the PostgreSQL store does not support the SQLite pragma '${source}'`);
    }
  }

  renewWhileBusy(key: string, renewal: LeaseRenewal | undefined): void {
    const statements = renewal?.statements.map(({ sql, params }) => {
      const { text, names } = toPostgres(sql);
      if (!names) throw new Error(`a lease renewal takes named parameters (@now, @until…): ${sql}`);
      return { text, names, params };
    });
    this.client.keepRenewing(key, renewal && statements && { intervalMs: renewal.ttlMs / 3, ttlMs: renewal.ttlMs, statements });
  }

  close(): this {
    this.client.close();
    return this;
  }

  /** Runs translated SQL; inside a transaction, under a savepoint, so a failure ends only this statement. */
  run(text: string, values: unknown[] | undefined, rowMode?: 'array'): { rows: unknown[]; rowCount: number } {
    // A write can fail on the data (a unique key taken): it must undo only itself. A read fails
    // only on a defect, and then the transaction is refused as a whole at COMMIT.
    const write = this.openTransaction && !READ_ONLY.test(text);
    const options = { savepoint: write, before: write ? this.unmadeSavepoints.splice(0).map((name) => `SAVEPOINT ${name}`) : [] };
    return values === undefined ? this.client.exec(text, options) : this.client.query(text, values, rowMode, options);
  }

  private schemaVersion(): number {
    const { rows } = this.run(`SELECT version FROM cairn_schema_version`, []);
    return (rows[0] as { version: number } | undefined)?.version ?? 0;
  }

  private inOwnTransaction<F extends (...args: never[]) => unknown>(fn: F, args: Parameters<F>): ReturnType<F> {
    this.exec('BEGIN');
    let result: ReturnType<F>;
    try {
      result = fn(...args) as ReturnType<F>;
    } catch (error) {
      if (this.openTransaction) this.exec('ROLLBACK');
      throw error;
    }
    this.exec('COMMIT');
    return result;
  }

  /**
   * A transaction inside another, as a savepoint made lazily (`unmadeSavepoints`): until its
   * first write there is nothing of its own to undo. A read that fails spoils the outer
   * transaction either way, which COMMIT then refuses.
   */
  private inSavepoint<F extends (...args: never[]) => unknown>(fn: F, args: Parameters<F>): ReturnType<F> {
    const name = `cairn_${++this.transactionDepth}`;
    this.unmadeSavepoints.push(name);
    const made = (): boolean => {
      const at = this.unmadeSavepoints.indexOf(name);
      if (at === -1) return true;
      this.unmadeSavepoints.splice(at);
      return false;
    };
    try {
      const result = fn(...args) as ReturnType<F>;
      if (made()) this.client.exec(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      if (made() && this.openTransaction) this.client.exec(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      throw error;
    } finally {
      this.transactionDepth -= 1;
    }
  }
}

class PgStatement implements SqlStatement {
  private arrays = false;

  constructor(private readonly connection: PgConnection, private readonly sql: TranslatedSql) {}

  get(...params: unknown[]): unknown {
    return this.query(params).rows[0];
  }

  all(...params: unknown[]): unknown[] {
    return this.query(params).rows;
  }

  run(...params: unknown[]): RunResult {
    return { changes: this.query(params).rowCount, lastInsertRowid: 0 };
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  raw(toggle = true): this {
    this.arrays = toggle;
    return this;
  }

  private query(params: unknown[]): { rows: unknown[]; rowCount: number } {
    return this.connection.run(this.sql.text, this.values(params), this.arrays ? 'array' : undefined);
  }

  /** better-sqlite3's ways of passing parameters (positional, an array, one object of named ones) as $1, $2…. */
  private values(params: unknown[]): unknown[] {
    const { names } = this.sql;
    if (names) {
      const bag = (params[0] ?? {}) as Record<string, unknown>;
      return names.map((name) => {
        if (!(name in bag)) throw new RangeError(`missing named parameter "${name}"`);
        return toValue(bag[name]);
      });
    }
    const flat = params.length === 1 && Array.isArray(params[0]) ? (params[0] as unknown[]) : params;
    if (flat.length !== this.sql.count) throw new RangeError(`expected ${this.sql.count} parameters, got ${flat.length}`);
    return flat.map(toValue);
  }
}

function toValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}
