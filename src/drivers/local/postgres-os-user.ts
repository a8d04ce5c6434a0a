/**
 * @module Who PostgreSQL clusters run as. initdb and postgres refuse to run as root, so when
 * cairn is root its clusters run as an unprivileged user: CAIRN_POSTGRES_USER, else `postgres`
 * (the user the distribution's packages create). Otherwise they run as cairn's own user.
 */
import { unprivilegedUser } from './os-user.js';
import type { OsUser } from './run-program.js';

/** The user to run clusters as, or undefined for cairn's own user. */
export function postgresOsUser(env: NodeJS.ProcessEnv = process.env): OsUser | undefined {
  return unprivilegedUser('CAIRN_POSTGRES_USER', 'postgres', 'PostgreSQL clusters', env);
}
