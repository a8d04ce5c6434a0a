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
import { measureBackupAndRestore, rate, until, type ThroughputFigures } from './support/database-throughput.js';
import { seconds } from './support/figures.js';

const TIMEOUT_MS = 600_000;

export interface SshResult extends ThroughputFigures {
  postgres: string;
  databaseCreateMs: number;
}

async function run(progress: (line: string) => void): Promise<SshResult> {
  const installed = postgresInstallations()[0];
  if (!installed) throw new Error('this host has no PostgreSQL server installed; the ssh benchmark needs one');
  // The sshd is on loopback, which the outbound guard closes to what tenants give.
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = 'true';
  const fixture = await startSshRuntimeFixture();
  const databases = new SshDatabases(fixture.options);
  let databaseId: string | undefined;
  try {
    const password = 'bench-password-0123456789';
    const started = performance.now();
    const db = await databases.create('bench-db', { name: 'bench-db', type: 'postgresql', version: installed.major, storageGb: 1, placement: fixture.placement, password });
    databaseId = db.id;
    await until('the database', async () => (await databases.observe({ key: 'bench-db', externalId: db.id }))?.status === 'available', TIMEOUT_MS);
    const databaseCreateMs = performance.now() - started;
    progress(`database available over SSH in ${seconds(databaseCreateMs)}`);
    const throughput = await measureBackupAndRestore(databases, { id: db.id, key: 'bench-db', password }, progress, TIMEOUT_MS);
    return { postgres: installed.version, databaseCreateMs, ...throughput };
  } finally {
    if (databaseId) await databases.delete(databaseId);
    await databases.close();
    await fixture.cleanup();
  }
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
