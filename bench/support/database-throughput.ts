/**
 * @module What the runtime benchmarks measure alike on any DatabaseRuntime (the local vendor's,
 * the SSH runtime's): a PostgreSQL database filled with about 100 MB of incompressible-ish hex
 * text, then the time of a backup (dump, SHA-256, sealed) and of its restore, as throughput.
 */
import type { DatabaseRuntime } from '../../src/drivers/contract.js';
import { seconds } from './figures.js';

const TARGET_MB = 100;

export interface ThroughputFigures {
  databaseBytes: number;
  dumpBytes: number;
  backupMs: number;
  restoreMs: number;
}

/** Polls `check` every 20 ms until it holds, for at most `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Megabytes per second of `bytes` moved in `ms`. */
export function rate(bytes: number, ms: number): string {
  return ms > 0 ? `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s` : '—';
}

/** Fills database `id` with about 100 MB; returns its size in bytes. */
async function fill(databases: DatabaseRuntime, id: string, password: string, progress: (line: string) => void): Promise<number> {
  const endpoint = await databases.endpoint(id);
  const pg = (await import('pg')).default;
  const client = new pg.Client({ host: endpoint.host, port: endpoint.port, user: endpoint.username, database: endpoint.database, password });
  client.on('error', (error) => progress(`database connection: ${error.message}`));
  await client.connect();
  try {
    progress(`filling the database with about ${TARGET_MB} MB`);
    await client.query('create table filler (id int primary key, payload text not null)');
    // ~1 KB of random hex per row: random enough that the dump's compression does not make it trivial.
    const rows = TARGET_MB * 1000;
    for (let from = 1; from <= rows; from += 10_000) {
      await client.query(`insert into filler select g, (select string_agg(md5(random()::text || i), '') from generate_series(1, 32) i where g > 0) from generate_series($1::int, $2::int) g`, [from, Math.min(from + 9_999, rows)]);
    }
    const size = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    return Number(size.rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** Fills the available database `id` (keyed `key`), backs it up and restores it, timing both. */
export async function measureBackupAndRestore(databases: DatabaseRuntime, database: { id: string; key: string; password: string }, progress: (line: string) => void, timeoutMs: number): Promise<ThroughputFigures> {
  const databaseBytes = await fill(databases, database.id, database.password, progress);
  progress(`database is ${(databaseBytes / 1e6).toFixed(0)} MB; backing up`);
  let started = performance.now();
  await databases.createBackup(database.id, 'bench-backup');
  let backup = await databases.observeBackup({ key: 'bench-backup' });
  await until('the backup', async () => {
    backup = await databases.observeBackup({ key: 'bench-backup' });
    return backup?.status === 'completed' || backup?.status === 'failed';
  }, timeoutMs);
  const backupMs = performance.now() - started;
  if (backup?.status !== 'completed') throw new Error(`the backup failed: ${backup?.message ?? 'unknown'}`);
  progress(`backed up in ${seconds(backupMs)}; restoring`);
  started = performance.now();
  await databases.restore(database.id, backup.id, 'bench-restore');
  await until('the restore', async () => (await databases.observe({ key: database.key, externalId: database.id }))?.status === 'available', timeoutMs);
  const restoreMs = performance.now() - started;
  progress(`restored in ${seconds(restoreMs)}`);
  return { databaseBytes, dumpBytes: backup.sizeBytes ?? 0, backupMs, restoreMs };
}
