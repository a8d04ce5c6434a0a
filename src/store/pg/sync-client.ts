/**
 * @module A blocking PostgreSQL client: the store's callers are synchronous (they were written
 * for better-sqlite3), so a worker thread holds the `pg` connection and the calling thread waits
 * for each answer on a shared flag (`Atomics.wait`). One connection serves the whole store: the
 * calling thread is single-threaded and blocks on every statement, so a transaction's statements
 * all run on that connection in order, as they do on SQLite's.
 *
 * While the calling thread is inside the database it runs no timers, so it cannot renew its
 * leases; a second connection in the worker does that for it (`keepRenewing`).
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

export interface QueryAnswer {
  rows: unknown[];
  rowCount: number;
}

export interface SyncPgOptions {
  /** How long one statement may take before the store gives up on the database (default 60 s). */
  statementTimeoutMs?: number;
  /** How the connection names itself to the server (pg_stat_activity, the server's log): default `cairn pid <pid>`. */
  applicationName?: string;
  /** How long connecting may take (default 15 s). */
  connectTimeoutMs?: number;
  /**
   * How long the session may sit idle inside an open transaction before the server ends it
   * (default IDLE_IN_TRANSACTION_TIMEOUT_MS).
   */
  idleInTransactionTimeoutMs?: number;
}

/**
 * A transaction holds the write lock every cairn process on the database takes
 * (pg-connection.ts), and the calling thread of each of them waits for it. A process stopped
 * inside one (SIGSTOP, a hung host, a partition that keeps the TCP session up) would stall every
 * replica until it resumed: no writes, no lease passes, no takeover of its shards. The server
 * ends such a session after this long — far above the few milliseconds a commit group stays
 * open, well inside the 10 s shard lease TTL — rolling its transaction back; the process finds
 * its connection gone when it resumes.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5_000;

/**
 * Lease renewals the worker runs by itself on a connection of its own, every `intervalMs`, while
 * the calling thread is inside the database: a statement in flight (waiting for another
 * replica's write lock, say) or one sent since the last run (a long transaction of many short
 * statements). A thread that stops calling the database (hung in its own code) gets no
 * renewals, so its leases run out as a dead process's do; a stopped process runs no worker.
 */
export interface RenewalSpec {
  intervalMs: number;
  ttlMs: number;
  /** Statements with named parameters ($n in `names` order): `now` is the run's time, `until` that plus ttlMs, the rest from `params`. */
  statements: Array<{ text: string; names: string[]; params: Record<string, unknown> }>;
}

export interface StatementOptions {
  /**
   * Inside a transaction: run under a savepoint, so that a failure undoes only this statement
   * and the transaction goes on (PostgreSQL would otherwise refuse everything until ROLLBACK).
   */
  savepoint?: boolean;
  /** Statements without parameters sent first in the same round trip (the savepoints of nested transactions not made yet). */
  before?: readonly string[];
}

/** A PostgreSQL error, with the server's SQLSTATE (`23505` a unique violation, say). */
export class PostgresError extends Error {
  override readonly name = 'PostgresError';
  constructor(message: string, readonly code: string | undefined, readonly detail: string | undefined) {
    super(message);
  }
}

/**
 * The worker's code, run with `eval` so it loads the same way from the sources under test, from
 * tsc's output and from the CLI bundle; `pg` is required by the absolute path the caller resolved.
 * Integers (int8) and numerics come back as numbers and booleans as 1/0, as SQLite gives them.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { port, flag, url, connectTimeoutMs, idleInTransactionTimeoutMs } = workerData;
let pg;
let client;
let broken;
try {
  pg = require(workerData.pgPath);
  const types = new pg.TypeOverrides();
  types.setTypeParser(20, (v) => Number(v));
  types.setTypeParser(1700, (v) => Number(v));
  types.setTypeParser(16, (v) => (v === 't' ? 1 : 0));
  client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: connectTimeoutMs, application_name: workerData.applicationName, idle_in_transaction_session_timeout: idleInTransactionTimeoutMs });
  client.on('error', (error) => { broken = error; });
} catch (error) {
  broken = error;
}
// Lease renewals (RenewalSpec): by key, each with its timer; run on a second connection only
// while the calling thread is inside the database.
let inFlight = 0;
const renewals = new Map();
let renewer;
const renewerClient = () => {
  if (!renewer) {
    const own = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: workerData.applicationName + ' leases', statement_timeout: 5000 });
    own.on('error', () => { if (renewer?.client === own) renewer = undefined; });
    renewer = { client: own, ready: own.connect() };
  }
  return renewer;
};
const renew = async (entry) => {
  if (entry.running || (inFlight === 0 && !entry.called)) return;
  entry.called = false;
  entry.running = true;
  let used;
  try {
    used = renewerClient();
    await used.ready;
    const now = Date.now();
    for (const { text, names, params } of entry.spec.statements) {
      await used.client.query(text, names.map((name) => (name === 'now' ? now : name === 'until' ? now + entry.spec.ttlMs : params[name])));
    }
  } catch {
    // The next run tries again on a new connection; a lease not renewed runs out, as it should.
    if (used && renewer === used) { renewer = undefined; used.client.end().catch(() => undefined); }
  } finally {
    entry.running = false;
  }
};
const keepRenewing = (key, spec) => {
  const old = renewals.get(key);
  if (old) clearInterval(old.timer);
  renewals.delete(key);
  if (!spec || spec.statements.length === 0) return;
  const entry = { spec, called: false, running: false };
  entry.timer = setInterval(() => void renew(entry), spec.intervalMs);
  renewals.set(key, entry);
};
const stopRenewing = async () => {
  for (const key of [...renewals.keys()]) keepRenewing(key, undefined);
  const last = renewer;
  renewer = undefined;
  if (last) await last.client.end().catch(() => undefined);
};
// A write's savepoint is left open after it succeeds and released with the next one's making
// (one round trip fewer per write); it never outlives the next savepoint operation.
let statementSavepoint = false;
const ENDS_SAVEPOINTS = /^\\s*(BEGIN|COMMIT|END|ROLLBACK|RELEASE)\\b/i;
// Each statement text is parsed and planned once per connection (a named prepared statement).
const names = new Map();
const statementName = (text) => {
  let name = names.get(text);
  if (name === undefined) { name = 'cairn_' + names.size; names.set(text, name); }
  return name;
};
port.on('message', async (request) => {
  if (request.op === 'renew') { keepRenewing(request.key, request.spec); return; }
  const answer = (message) => { inFlight -= 1; port.postMessage({ id: request.id, ...message }); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
  inFlight += 1;
  for (const entry of renewals.values()) entry.called = true;
  try {
    if (broken) throw broken;
    if (request.op === 'connect') { await client.connect(); answer({ rows: [], rowCount: 0 }); return; }
    if (request.op === 'end') { await stopRenewing(); await client.end(); answer({ rows: [], rowCount: 0 }); port.close(); return; }
    const run = () => request.values === undefined
      ? client.query(request.text)
      : client.query({ name: statementName(request.text), text: request.text, values: request.values, rowMode: request.rowMode });
    let result;
    const before = request.before ?? [];
    if (request.savepoint) {
      // The last write's savepoint is released here, in the round trip that makes this one's.
      await client.query([...(statementSavepoint ? ['RELEASE SAVEPOINT cairn_statement'] : []), ...before, 'SAVEPOINT cairn_statement'].join('; '));
      statementSavepoint = true;
      try {
        result = await run();
      } catch (error) {
        statementSavepoint = false;
        await client.query('ROLLBACK TO SAVEPOINT cairn_statement; RELEASE SAVEPOINT cairn_statement');
        throw error;
      }
    } else {
      // The open statement savepoint is the newest (making any other releases it first), so
      // releasing or rolling back to any savepoint ends it, as COMMIT and ROLLBACK do.
      if (ENDS_SAVEPOINTS.test(request.text)) statementSavepoint = false;
      if (before.length > 0) await client.query(before.join('; '));
      result = await run();
    }
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    // PostgreSQL answers COMMIT of a transaction a failed statement spoiled with ROLLBACK, not an error.
    if (/^\\s*COMMIT\\s*;?\\s*$/i.test(request.text) && last.command === 'ROLLBACK') {
      throw Object.assign(new Error('the transaction was rolled back, not committed: a statement in it had failed'), { code: '25P02' });
    }
    answer({ rows: last.rows ?? [], rowCount: last.rowCount ?? 0 });
  } catch (error) {
    answer({ error: { message: error.message, code: error.code, detail: error.detail } });
  }
});
`;

interface Answer extends QueryAnswer {
  id: number;
  error?: { message: string; code?: string; detail?: string };
}

export class SyncPgClient {
  private readonly worker: Worker;
  private readonly port;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly statementTimeoutMs: number;
  private ended = false;
  private requests = 0;

  constructor(url: string, options: SyncPgOptions = {}) {
    this.statementTimeoutMs = options.statementTimeoutMs ?? 60_000;
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const pgPath = createRequire(import.meta.url).resolve('pg');
    const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgPath,
        port: port2,
        flag: this.flag,
        url,
        connectTimeoutMs,
        idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS,
        applicationName: options.applicationName ?? `cairn pid ${process.pid}`,
      },
      transferList: [port2],
    });
    this.worker.unref();
    try {
      this.call({ op: 'connect' }, connectTimeoutMs + 5_000, 'connecting to PostgreSQL');
    } catch (error) {
      void this.worker.terminate();
      throw error;
    }
  }

  /** Runs SQL without parameters (several statements allowed); answers the last one's rows. */
  exec(text: string, options: StatementOptions = {}): QueryAnswer {
    return this.call({ op: 'query', text, savepoint: options.savepoint, before: options.before }, this.statementTimeoutMs, text);
  }

  /** Runs one statement with parameters ($1, $2…). */
  query(text: string, values: unknown[], rowMode?: 'array', options: StatementOptions = {}): QueryAnswer {
    return this.call({ op: 'query', text, values, rowMode, savepoint: options.savepoint, before: options.before }, this.statementTimeoutMs, text);
  }

  /** Runs `spec` (under `key`, replacing what ran under it; undefined ends it) as RenewalSpec says. */
  keepRenewing(key: string, spec: RenewalSpec | undefined): void {
    if (this.ended) return;
    this.port.postMessage({ op: 'renew', key, spec });
  }

  get closed(): boolean {
    return this.ended;
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.call({ op: 'end' }, 5_000, 'closing the connection');
    } finally {
      void this.worker.terminate();
    }
  }

  private call(request: object, timeoutMs: number, what: string): Answer {
    if (this.ended && (request as { op: string }).op !== 'end') throw new Error('the PostgreSQL store is closed');
    const id = ++this.requests;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ ...request, id });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.take(id);
      if (answer?.error) throw new PostgresError(`${constraintKind(answer.error.code)}PostgreSQL: ${answer.error.message} (in: ${clip(what)})`, answer.error.code, answer.error.detail);
      if (answer) return answer;
      const left = deadline - Date.now();
      if (left <= 0) throw new PostgresError(`PostgreSQL did not answer within ${timeoutMs / 1000} s (in: ${clip(what)})`, undefined, undefined);
      // The worker posts its answer before it raises the flag, so after the flag the answer is there.
      Atomics.wait(this.flag, 0, 0, Math.min(left, 1_000));
      Atomics.store(this.flag, 0, 0);
    }
  }

  /** The answer to request `id`, if it has come; answers to earlier requests that timed out are dropped. */
  private take(id: number): Answer | undefined {
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      const answer = received.message as Answer;
      if (answer.id === id) return answer;
    }
    return undefined;
  }
}

/** Constraint failures are named as SQLite names them, so a message reads the same on both engines. */
const CONSTRAINT_KINDS: Record<string, string> = { '23505': 'UNIQUE', '23503': 'FOREIGN KEY', '23514': 'CHECK', '23502': 'NOT NULL' };

function constraintKind(code: string | undefined): string {
  const kind = code === undefined ? undefined : CONSTRAINT_KINDS[code];
  return kind ? `${kind} constraint failed: ` : '';
}

function clip(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
