/**
 * @module The PostgreSQL server installations on this host, by major version: the bin dirs
 * under /usr/lib/postgresql/<major>/bin, the one `pg_config --bindir` names, and the one of
 * the `initdb` on PATH. A version that is not installed is refused with the ones that are.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UnsupportedError, VendorRejectedError } from '../errors.js';

export interface PostgresInstallation {
  major: string;
  /** The full version initdb reports, e.g. "15.14". */
  version: string;
  binDir: string;
}

const SERVER_PROGRAMS = ['initdb', 'pg_ctl', 'pg_dump', 'pg_restore', 'postgres'];

function versionOf(binDir: string): string | null {
  if (!SERVER_PROGRAMS.every((program) => existsSync(join(binDir, program)))) return null;
  try {
    const out = execFileSync(join(binDir, 'initdb'), ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return /(\d+(?:\.\d+)?)/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

function candidateBinDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs: string[] = [];
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) for (const entry of readdirSync(root)) dirs.push(join(root, entry, 'bin'));
  try {
    dirs.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', timeout: 10_000, env }).trim());
  } catch {
    // no pg_config on PATH
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir !== '' && existsSync(join(dir, 'initdb'))) dirs.push(dir);
  return dirs;
}

let cached: PostgresInstallation[] | undefined;

/** Installed versions, newest first (looked up once per process). */
export function postgresInstallations(env: NodeJS.ProcessEnv = process.env): PostgresInstallation[] {
  if (cached) return cached;
  const byMajor = new Map<string, PostgresInstallation>();
  for (const binDir of candidateBinDirs(env)) {
    const version = versionOf(binDir);
    if (!version) continue;
    const major = version.split('.')[0] ?? version;
    if (!byMajor.has(major)) byMajor.set(major, { major, version, binDir });
  }
  cached = [...byMajor.values()].sort((a, b) => Number(b.major) - Number(a.major));
  return cached;
}

/** The installation of `requested` (a major like "15", or "15.x"); refuses one that is not installed. */
export function postgresFor(databaseName: string, requested: string): PostgresInstallation {
  const installed = postgresInstallations();
  if (installed.length === 0) {
    throw new UnsupportedError(
      `Database/${databaseName}: this host has no PostgreSQL server installed (looked in /usr/lib/postgresql/*/bin, pg_config and PATH for initdb, pg_ctl, pg_dump, pg_restore); install one, e.g. apt-get install postgresql`,
    );
  }
  const major = requested.split('.')[0] ?? requested;
  const found = installed.find((i) => i.major === major);
  if (!found) {
    throw new VendorRejectedError(
      `Database/${databaseName}: PostgreSQL ${requested} is not installed on this host; installed: ${installed.map((i) => `${i.major} (${i.version})`).join(', ')}. Set spec.version to one of them.`,
      { field: 'version' },
    );
  }
  return found;
}
