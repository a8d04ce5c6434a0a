/**
 * @module Which OS user the local vendor's programs run as, and giving that user the paths it
 * needs. Nothing a tenant declares runs as root: when cairn is root, apps and their builds run as
 * CAIRN_APP_USER (default `nobody`) and PostgreSQL clusters as CAIRN_POSTGRES_USER (default
 * `postgres`); a setting that names root is refused. When cairn is not root, they run as
 * cairn's own user.
 */
import { chmodSync, existsSync, lchownSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UnsupportedError } from '../errors.js';
import type { OsUser } from './run-program.js';

/** The user named `name` in /etc/passwd, if there is one. */
export function lookUpOsUser(name: string): OsUser | undefined {
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

export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The unprivileged user to run as when cairn is root (undefined otherwise): the one `setting`
 * names, else `fallback`; what runs there is `what` ("apps and their builds"), for messages.
 */
export function unprivilegedUser(setting: string, fallback: string, what: string, env: NodeJS.ProcessEnv = process.env, asRoot = runningAsRoot()): OsUser | undefined {
  if (!asRoot) return undefined;
  const name = env[setting] && env[setting] !== '' ? env[setting] : fallback;
  const user = lookUpOsUser(name);
  if (!user) {
    throw new UnsupportedError(
      `cairn runs as root, and ${what} never do; the OS user "${name}" to run them as does not exist. ` +
        `Create it (useradd --system ${name}) or name another with ${setting}.`,
    );
  }
  if (user.uid === 0) throw new UnsupportedError(`${setting} names "${name}", which is root; ${what} never run as root`);
  return user;
}

/** Who apps and their builds run as (CAIRN_APP_USER, default `nobody`, when cairn is root). */
export function appOsUser(env: NodeJS.ProcessEnv = process.env, asRoot = runningAsRoot()): OsUser | undefined {
  return unprivilegedUser('CAIRN_APP_USER', 'nobody', 'apps and their builds', env, asRoot);
}

/** Lets `user` reach `dir`: each ancestor cairn owns gets the search bit for others. */
export function makeTraversable(dir: string, user: OsUser): void {
  const me = process.getuid?.() ?? -1;
  let current = resolve(dir);
  const chain: string[] = [];
  while (true) {
    chain.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const path of chain) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    if (stat.uid === user.uid || (stat.mode & 0o001) !== 0) continue;
    if (stat.uid !== me) {
      throw new UnsupportedError(`the OS user "${user.name}" cannot reach ${dir}: ${path} is not searchable by others; use a data dir it can reach`);
    }
    chmodSync(path, stat.mode | 0o001);
  }
}

/** Gives `dir` and everything under it to `user` (symbolic links themselves, never their targets). */
export function chownTree(dir: string, user: OsUser): void {
  lchownSync(dir, user.uid, user.gid);
  if (!statSync(dir).isDirectory()) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, user);
    else lchownSync(path, user.uid, user.gid);
  }
}
