/**
 * @module PostgreSQL on a host reached over SSH: which server installations it has (by major
 * version: /usr/lib/postgresql/<major>/bin on Debian/Ubuntu, /usr/pgsql-<major>/bin on
 * RHEL-likes, else the initdb on PATH), the one a database gets (the major asked for when
 * installed, else the newest, its observed engineVersion saying which), installing the
 * distribution's package when the host has none (as root, or where `sudo -n` works), and how
 * a command runs as the `postgres` OS user. Every script here is constant text; what varies
 * travels as positional arguments quoted by shellCommand.
 */
import { VendorRejectedError } from '../errors.js';
import type { HostFacts, RemoteHost } from './remote-host.js';

export interface RemotePostgres {
  major: string;
  /** The full version initdb reports, e.g. "15.14". */
  version: string;
  binDir: string;
}

/** The OS user clusters run as when cairn logs in as root (the distribution's packages make it). */
export const POSTGRES_OS_USER = 'postgres';

/** How long installing the distribution's PostgreSQL may take. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Prints `<bin dir>\t<initdb --version>` for every dir holding the server's programs. */
const FIND_SCRIPT = [
  'seen=""',
  'for d in /usr/lib/postgresql/*/bin /usr/pgsql-*/bin $(command -v initdb 2>/dev/null | sed "s,/initdb$,,"); do',
  '  [ -d "$d" ] || continue',
  '  case " $seen " in *" $d "*) continue;; esac',
  '  seen="$seen $d"',
  '  ok=1; for p in initdb pg_ctl pg_dump pg_restore postgres psql; do [ -x "$d/$p" ] || ok=0; done',
  '  [ "$ok" = 1 ] || continue',
  '  printf "%s\\t%s\\n" "$d" "$("$d/initdb" --version 2>/dev/null)"',
  'done',
  'exit 0',
].join('\n');

/** Reads FIND_SCRIPT's answer: installations by major, newest first (the first dir of a major wins). */
export function parseInstallations(text: string): RemotePostgres[] {
  const byMajor = new Map<string, RemotePostgres>();
  for (const line of text.split('\n')) {
    const [binDir, versionText] = line.split('\t');
    const version = /(\d+(?:\.\d+)?)/.exec(versionText ?? '')?.[1];
    if (!binDir?.startsWith('/') || !version) continue;
    const major = version.split('.')[0] ?? version;
    if (!byMajor.has(major)) byMajor.set(major, { major, version, binDir });
  }
  return [...byMajor.values()].sort((a, b) => Number(b.major) - Number(a.major));
}

/** The installation for `requested` ("15" or "15.x"): that major when installed, else the newest; undefined when none. */
export function choosePostgres(installed: readonly RemotePostgres[], requested: string): RemotePostgres | undefined {
  const major = requested.split('.')[0] ?? requested;
  return installed.find((i) => i.major === major) ?? installed[0];
}

/** The command that installs the distribution's PostgreSQL server, or undefined when cairn knows no installer on the host. */
export function installCommand(packageManager: HostFacts['packageManager']): string[] | undefined {
  switch (packageManager) {
    case 'apt-get':
      return ['env', 'DEBIAN_FRONTEND=noninteractive', 'sh', '-c', 'apt-get update -q && apt-get install -y -q postgresql'];
    case 'dnf':
      return ['dnf', 'install', '-y', 'postgresql-server', 'postgresql'];
    case 'yum':
      return ['yum', 'install', '-y', 'postgresql-server', 'postgresql'];
    case 'apk':
      return ['apk', 'add', '--no-progress', 'postgresql', 'postgresql-client'];
    default:
      return undefined;
  }
}

/** What to tell a user whose host has no PostgreSQL that cairn may not install. */
function installByHand(packageManager: HostFacts['packageManager']): string {
  switch (packageManager) {
    case 'apt-get':
      return 'install it by hand (as root: apt-get install postgresql)';
    case 'dnf':
    case 'yum':
      return `install it by hand (as root: ${packageManager} install postgresql-server)`;
    case 'apk':
      return 'install it by hand (as root: apk add postgresql)';
    default:
      return "install the distribution's PostgreSQL server package by hand (initdb, pg_ctl, pg_dump, pg_restore, psql)";
  }
}

/** The installations on `host`, newest first. */
export async function findPostgres(host: RemoteHost, signal?: AbortSignal): Promise<RemotePostgres[]> {
  return parseInstallations(await host.run(['sh', '-c', FIND_SCRIPT], { signal }));
}

/** Whether `sudo -n` runs commands as root on the host without a password. */
async function sudoWorks(host: RemoteHost, signal?: AbortSignal): Promise<boolean> {
  try {
    await host.run(['sudo', '-n', 'true'], { signal, timeoutMs: 15_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The installation a database named `databaseName` gets: what the host has, or — when it has
 * none — the distribution's package installed first (as root or through `sudo -n`); refused
 * with what to install by hand when cairn cannot install it.
 */
export async function postgresOn(host: RemoteHost, databaseName: string, requested: string, signal?: AbortSignal): Promise<RemotePostgres> {
  const found = choosePostgres(await findPostgres(host, signal), requested);
  if (found) return found;
  const install = installCommand(host.facts.packageManager);
  const privileged = host.facts.root ? [] : (await sudoWorks(host, signal)) ? ['sudo', '-n'] : undefined;
  if (!install || !privileged) {
    const why = !install ? 'cairn knows no package installer on it (apt-get, dnf, yum, apk)' : `cairn logs in as ${host.session.label.split('@')[0] ?? 'a user'} who is not root and cannot use sudo without a password`;
    throw new VendorRejectedError(
      `Database/${databaseName}: the host ${host.session.label} has no PostgreSQL server and cairn cannot install it (${why}); ${installByHand(host.facts.packageManager)}, then apply again`,
    );
  }
  try {
    await host.run([...privileged, ...install], { signal, timeoutMs: INSTALL_TIMEOUT_MS });
  } catch (error) {
    throw new VendorRejectedError(`Database/${databaseName}: installing PostgreSQL on ${host.session.label} failed (${(error as Error).message}); ${installByHand(host.facts.packageManager)}, then apply again`, { cause: error });
  }
  const installed = choosePostgres(await findPostgres(host, signal), requested);
  if (!installed) throw new VendorRejectedError(`Database/${databaseName}: PostgreSQL was installed on ${host.session.label}, but no initdb, pg_ctl, pg_dump, pg_restore and psql were found after; ${installByHand(host.facts.packageManager)}`);
  return installed;
}

/**
 * The argv that runs `argv` as the clusters' OS user — `postgres` when cairn is root, else
 * cairn's own SSH user — from `/` (root's home is closed to postgres).
 */
export function asPostgres(facts: HostFacts, argv: readonly string[]): string[] {
  const fromRoot = ['sh', '-c', 'cd / && exec "$@"', 'sh', ...argv];
  return facts.root ? ['runuser', '-u', POSTGRES_OS_USER, '--', ...fromRoot] : fromRoot;
}
