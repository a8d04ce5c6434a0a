/**
 * @module Test clean-up for the local vendor: its PostgreSQL clusters outlive cairn by design,
 * so a test stops those of its data dir itself (pg_ctl, as the cluster's owner), and finds
 * their postmaster's pid to kill one on purpose.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fallbackSocketDir } from '../../src/drivers/local/postgres-cluster.js';
import { postgresInstallations } from '../../src/drivers/local/postgres-installations.js';
import { runProgram } from '../../src/drivers/local/run-program.js';

function clusterDataDirs(dataDir: string): string[] {
  const root = join(dataDir, 'local', 'postgres');
  if (!existsSync(root)) return [];
  return readdirSync(root).map((id) => join(root, id, 'data')).filter((dir) => existsSync(join(dir, 'PG_VERSION')));
}

/** The postmaster pid of each running cluster of the data dir. */
export function clusterPids(dataDir: string): number[] {
  return clusterDataDirs(dataDir).flatMap((dir) => {
    const pidFile = join(dir, 'postmaster.pid');
    if (!existsSync(pidFile)) return [];
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try {
      process.kill(pid, 0);
      return [pid];
    } catch {
      return [];
    }
  });
}

/** Stops every cluster of the data dir (immediate mode: they are thrown away next). */
export async function stopLocalClusters(dataDir: string): Promise<void> {
  const bin = postgresInstallations()[0]?.binDir;
  if (!bin) return;
  for (const dir of clusterDataDirs(dataDir)) {
    if (existsSync(join(dir, 'postmaster.pid'))) {
      const owner = statSync(dir);
      await runProgram(join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', '-w', 'stop'], { runAs: { name: 'owner', uid: owner.uid, gid: owner.gid } }).catch(() => undefined);
    }
    rmSync(fallbackSocketDir(dirname(dir)), { recursive: true, force: true });
  }
}
