/**
 * @module Who PostgreSQL clusters run as. initdb and postgres refuse to run as root, so when
 * cairn is root its clusters run as an unprivileged user: CAIRN_POSTGRES_USER, else `postgres`
 * (the user the distribution's packages create). Otherwise they run as cairn's own user.
 */
import { readFileSync } from 'node:fs';
import { UnsupportedError } from '../errors.js';
import type { OsUser } from './run-program.js';

function lookUp(name: string): OsUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/** The user to run clusters as, or undefined for cairn's own user. */
export function postgresOsUser(env: NodeJS.ProcessEnv = process.env): OsUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const name = env.CAIRN_POSTGRES_USER && env.CAIRN_POSTGRES_USER !== '' ? env.CAIRN_POSTGRES_USER : 'postgres';
  const user = lookUp(name);
  if (!user) {
    throw new UnsupportedError(
      `cairn runs as root, and PostgreSQL refuses to run as root; the OS user "${name}" to run clusters as does not exist. ` +
        'Create it (useradd --system postgres, or install the postgresql package) or name another with CAIRN_POSTGRES_USER.',
    );
  }
  if (user.uid === 0) throw new UnsupportedError(`CAIRN_POSTGRES_USER names "${name}", which is root; PostgreSQL refuses to run as root`);
  return user;
}
