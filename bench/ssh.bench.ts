/**
 * @module Benchmark of the SSH runtime's databases against a real sshd on loopback (this host
 * reached over SSH, as the tests do): time from create to available of one PostgreSQL database
 * (install check, initdb, start, role, all over SSH), and the throughput of a backup of about
 * 100 MB (pg_dump -Fc on the host streamed back over SSH, hashed and sealed in cairn's data dir)
 * and of its restore (verified while streamed into pg_restore on the host).
 */
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import { SshDatabases } from '../src/drivers/ssh/databases.js';
import { startSshRuntimeFixture } from '../test/support/ssh-runtime-fixture.js';
import type { Benchmark } from './support/benchmark.js';
import { seconds } from './support/figures.js';

const TARGET_MB = 100;
const TIMEOUT_MS = 600_000;

export interface SshResult {
  postgres: string;
  databaseCreateMs: number;
  databaseBytes: number;
  dumpBytes: number;
  backupMs: number;
  restoreMs: number;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function run(progress: (line: string) => void): Promise<SshResult> {
  const installed = postgresInstallations()[0];
  if (!installed) throw new Error('this host has no PostgreSQL server installed; the ssh benchmark needs one');
  const fixture = await startSshRuntimeFixture();
  const databases = new SshDatabases(fixture.options);
  let databaseId: string | undefined;
  try {
    const password = 'bench-password-0123456789';
    let started = performance.now();
    const db = await databases.create('bench-db', { name: 'bench-db', type: 'postgresql', version: installed.major, storageGb: 1, placement: fixture.placement, password });
    databaseId = db.id;
    await until('the database', async () => (await databases.observe({ key: 'bench-db', externalId: db.id }))?.status === 'available');
    const databaseCreateMs = performance.now() - started;
    progress(`database available over SSH in ${seconds(databaseCreateMs)}`);

    const endpoint = await databases.endpoint(db.id);
    const pg = (await import('pg')).default;
    const client = new pg.Client({ host: endpoint.host, port: endpoint.port, user: endpoint.username, database: endpoint.database, password });
    await client.connect();
    progress(`filling the database with about ${TARGET_MB} MB`);
    await client.query('create table filler (id int primary key, payload text not null)');
    const rows = TARGET_MB * 1000;
    for (let from = 1; from <= rows; from += 10_000) {
      await client.query(`insert into filler select g, (select string_agg(md5(random()::text || i), '') from generate_series(1, 32) i where g > 0) from generate_series($1::int, $2::int) g`, [from, Math.min(from + 9_999, rows)]);
    }
    const size = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    await client.end();
    const databaseBytes = Number(size.rows[0]?.bytes ?? 0);

    progress(`database is ${(databaseBytes / 1e6).toFixed(0)} MB; backing up over SSH`);
    started = performance.now();
    await databases.createBackup(db.id, 'bench-backup');
    let backup = await databases.observeBackup({ key: 'bench-backup' });
    await until('the backup', async () => {
      backup = await databases.observeBackup({ key: 'bench-backup' });
      return backup?.status === 'completed' || backup?.status === 'failed';
    });
    const backupMs = performance.now() - started;
    if (backup?.status !== 'completed') throw new Error(`the backup failed: ${backup?.message ?? 'unknown'}`);
    progress(`backed up in ${seconds(backupMs)}; restoring over SSH`);
    started = performance.now();
    await databases.restore(db.id, backup.id, 'bench-restore');
    await until('the restore', async () => (await databases.observe({ key: 'bench-db', externalId: db.id }))?.status === 'available');
    const restoreMs = performance.now() - started;
    progress(`restored in ${seconds(restoreMs)}`);
    return { postgres: installed.version, databaseCreateMs, databaseBytes, dumpBytes: backup.sizeBytes ?? 0, backupMs, restoreMs };
  } finally {
    if (databaseId) await databases.delete(databaseId);
    await databases.close();
    await fixture.cleanup();
  }
}

function rate(bytes: number, ms: number): string {
  return ms > 0 ? `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s` : '—';
}

function format(r: SshResult): string[] {
  return [
    `PostgreSQL ${r.postgres} on this host, reached over SSH (loopback sshd)`,
    `  create → available, one database (initdb, start, role over SSH): ${seconds(r.databaseCreateMs)}`,
    `  backup of ${(r.databaseBytes / 1e6).toFixed(0)} MB (pg_dump -Fc streamed over SSH, SHA-256, sealed): ${seconds(r.backupMs)}, ${rate(r.databaseBytes, r.backupMs)}; dump ${(r.dumpBytes / 1e6).toFixed(0)} MB`,
    `  restore (verify pass, then unseal + checksum streamed into pg_restore over SSH): ${seconds(r.restoreMs)}, ${rate(r.databaseBytes, r.restoreMs)}`,
  ];
}

export const sshBenchmark: Benchmark<SshResult> = {
  name: 'ssh',
  description: 'the SSH runtime: create of a database over SSH, backup/restore of 100 MB over SSH',
  run,
  format,
};
