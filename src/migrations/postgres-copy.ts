/**
 * @module Copying a platform's PostgreSQL database into a cairn Database: `pg_dump --no-owner
 * --no-privileges` from the platform piped into `psql` on the new database, streamed (the dump is
 * never held in memory), then the rows of every table counted on both sides. The platform's host
 * is checked against the outbound policy first (a platform answer naming a private address is
 * refused unless CAIRN_ALLOW_PRIVATE_ENDPOINTS opens it), and pg_dump connects to the address that
 * was checked (PGHOSTADDR), so the name cannot resolve elsewhere in between. Passwords go to the
 * programs through their environment, never their command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { postgresInstallations } from '../drivers/local/postgres-installations.js';
import { checkedAddresses } from '../net/guarded-fetch.js';

/** Where to connect, as parsed from a URL or given by cairn's own database. */
export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** libpq's sslmode: the platform's URL may ask for `require`; cairn's own databases take `disable`/`prefer`. */
  sslmode: string;
  /** The address to connect to (checked by the outbound guard), when it differs from `host`. */
  hostaddr?: string;
}

/** The copy failed; the message says which table or program and why. */
export class DataCopyError extends Error {
  override readonly name = 'DataCopyError';
}

const STDERR_CAP = 8 * 1024;

/** A `postgres://` or `postgresql://` URL as a connection; throws DataCopyError naming what is wrong. */
export function parsePostgresUrl(text: string, what: string): PostgresConnection {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DataCopyError(`${what} is not a URL`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new DataCopyError(`${what} is a ${url.protocol.replace(/:$/, '')} URL, not a PostgreSQL one`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (url.hostname === '' || database === '') throw new DataCopyError(`${what} names no host or no database`);
  const port = url.port === '' ? 5432 : Number(url.port);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
    sslmode: url.searchParams.get('sslmode') ?? 'prefer',
  };
}

/** The platform's connection, its host checked against the outbound policy and pinned to the checked address. */
export async function guardedSource(url: string, what: string): Promise<PostgresConnection> {
  const connection = parsePostgresUrl(url, what);
  const [address] = await checkedAddresses(connection.host);
  return { ...connection, hostaddr: address };
}

function libpqEnv(c: PostgresConnection): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PGHOST: c.host,
    PGPORT: String(c.port),
    PGUSER: c.user,
    PGPASSWORD: c.password,
    PGDATABASE: c.database,
    PGSSLMODE: c.sslmode,
    PGCONNECT_TIMEOUT: '15',
  };
  if (c.hostaddr !== undefined) env.PGHOSTADDR = c.hostaddr;
  return env;
}

/** pg_dump and psql of the newest PostgreSQL installed (a newer server can still be dumped by it), else PATH's. */
function program(name: 'pg_dump' | 'psql'): string {
  const newest = postgresInstallations()[0];
  return newest ? join(newest.binDir, name) : name;
}

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (text.length < STDERR_CAP) text += chunk.toString('utf8');
  });
  return () => text.trim().slice(0, STDERR_CAP);
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
}

/** Streams the platform database's dump into the target database. */
export async function dumpInto(source: PostgresConnection, target: PostgresConnection, options: { signal?: AbortSignal } = {}): Promise<{ restoreErrors: string[] }> {
  const dump = spawn(program('pg_dump'), ['--no-owner', '--no-privileges', '--format=plain', '--no-publications', '--no-subscriptions'], {
    env: libpqEnv(source),
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: options.signal,
  });
  const restore = spawn(program('psql'), ['--quiet', '--no-psqlrc', '--set', 'ON_ERROR_STOP=0'], {
    env: libpqEnv(target),
    stdio: ['pipe', 'ignore', 'pipe'],
    signal: options.signal,
  });
  const dumpErrors = collect(dump);
  const restoreErrors = collect(restore);
  dump.stdout.pipe(restore.stdin);
  // psql gone early (it failed to connect): stop pg_dump rather than let it block on a full pipe.
  restore.stdin.on('error', () => dump.kill('SIGTERM'));
  const [dumpCode, restoreCode] = await Promise.all([exited(dump), exited(restore)]);
  if (dumpCode !== 0) throw new DataCopyError(`pg_dump of the platform's database failed (exit ${String(dumpCode)}): ${dumpErrors() || 'no message'}`);
  if (restoreCode !== 0) throw new DataCopyError(`psql into cairn's database failed (exit ${String(restoreCode)}): ${restoreErrors() || 'no message'}`);
  return { restoreErrors: restoreErrors().split('\n').filter((line) => /ERROR/.test(line)) };
}

function clientFor(c: PostgresConnection): pg.Client {
  const tls = c.sslmode === 'disable' ? false : c.sslmode === 'prefer' || c.sslmode === 'allow' ? undefined : { rejectUnauthorized: c.sslmode === 'verify-full' || c.sslmode === 'verify-ca', servername: c.host };
  return new pg.Client({ host: c.hostaddr ?? c.host, port: c.port, user: c.user, password: c.password, database: c.database, connectionTimeoutMillis: 15_000, ...(tls === undefined ? {} : { ssl: tls }) });
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The exact row count of every ordinary table outside the system schemas, by `schema.table`. */
export async function countRows(c: PostgresConnection): Promise<Map<string, number>> {
  const client = clientFor(c);
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string; name: string }>(
      `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND NOT c.relispartition
       ORDER BY 1, 2`,
    );
    const counts = new Map<string, number>();
    for (const { schema, name } of rows) {
      const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteIdent(schema)}.${quoteIdent(name)}`);
      counts.set(`${schema}.${name}`, Number(result.rows[0]?.n ?? 0));
    }
    return counts;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Throws DataCopyError naming the first table whose rows differ (or that is missing) between source and target. */
export function compareRowCounts(source: ReadonlyMap<string, number>, target: ReadonlyMap<string, number>): void {
  for (const [table, rows] of source) {
    const copied = target.get(table);
    if (copied === undefined) throw new DataCopyError(`table ${table} (${rows} rows on the platform) is missing from cairn's database after the copy`);
    if (copied !== rows) throw new DataCopyError(`table ${table} has ${rows} rows on the platform but ${copied} in cairn's database after the copy`);
  }
}

/** Empties the target of what an interrupted copy left (every object its user owns). */
export async function clearTarget(target: PostgresConnection): Promise<void> {
  const client = clientFor(target);
  await client.connect();
  try {
    await client.query('DROP OWNED BY CURRENT_USER CASCADE');
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface CopyReport {
  tables: number;
  rows: number;
  /** Statements of the dump the target refused (an extension it lacks, ...), for the step's detail. */
  restoreErrors: string[];
  /** The target already held exactly the source's rows (a copy finished before a crash). */
  alreadyCopied: boolean;
}

/**
 * Copies `source` into `target` and checks the row counts. A target that already holds tables
 * (an earlier attempt) is left as it is when its counts match the source's, else emptied first.
 */
export async function copyPostgres(source: PostgresConnection, target: PostgresConnection, options: { signal?: AbortSignal } = {}): Promise<CopyReport> {
  const before = await countRows(target);
  if (before.size > 0) {
    const expected = await countRows(source);
    try {
      compareRowCounts(expected, before);
      if (before.size === expected.size) return { tables: expected.size, rows: [...expected.values()].reduce((a, b) => a + b, 0), restoreErrors: [], alreadyCopied: true };
    } catch (error) {
      if (!(error instanceof DataCopyError)) throw error;
    }
    await clearTarget(target);
  }
  const { restoreErrors } = await dumpInto(source, target, options);
  const [sourceCounts, targetCounts] = await Promise.all([countRows(source), countRows(target)]);
  compareRowCounts(sourceCounts, targetCounts);
  return { tables: sourceCounts.size, rows: [...sourceCounts.values()].reduce((a, b) => a + b, 0), restoreErrors, alreadyCopied: false };
}
