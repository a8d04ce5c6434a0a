/**
 * @module One PostgreSQL cluster on a host reached over SSH, under
 * `<runtime dir>/databases/<id>/` (`data/`, `run/` for its socket, `postgres.log`), owned by and
 * run as the `postgres` OS user when cairn is root (see remote-postgres.ts): made with initdb
 * (scram-sha-256 over TCP, peer on its own socket for cairn's admin work), listening on the
 * loopback address and the server's own address, started with `pg_ctl -w start -l`, and
 * administered with psql whose SQL — and any secret, as a psql variable — travels on stdin.
 * Also the free ports of the host (its listening sockets, read from /proc/net/tcp*).
 */
import { isIP } from 'node:net';
import { VendorRejectedError } from '../errors.js';
import type { RemoteHost } from './remote-host.js';
import { asPostgres, POSTGRES_OS_USER } from './remote-postgres.js';

/** Longest Unix socket path (sun_path is 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107;
/** Ports clusters get: below Linux's ephemeral range, above the usual services. */
const PORT_RANGE = { low: 20_000, high: 32_767 };
/** How long initdb or a start/stop may take. */
const CLUSTER_TIMEOUT_MS = 3 * 60_000;

/** `s` as a single-quoted string in postgresql.conf (a quote doubled, a backslash escaped). */
export function confString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** `s` as a single-quoted argument of a psql meta-command such as `\set` (no line break can end it early). */
export function psqlMetaString(s: string): string {
  if (s.includes('\0')) throw new Error('a psql variable cannot hold a NUL character');
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** psql's input: `variables` set with `\\set` (used as :'name' in `sql`), then `sql`. */
export function psqlInput(sql: string, variables: Record<string, string>): string {
  const sets = Object.entries(variables).map(([name, value]) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`psql variable name ${JSON.stringify(name)} is not a plain name`);
    return `\\set ${name} ${psqlMetaString(value)}\n`;
  });
  return `${sets.join('')}${sql}\n`;
}

/** A role or database name as a quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The listening TCP ports in the text of /proc/net/tcp and /proc/net/tcp6. */
export function listeningPorts(procNetTcp: string): Set<number> {
  const ports = new Set<number>();
  for (const line of procNetTcp.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] !== '0A') continue; // TCP_LISTEN
    const port = Number.parseInt(fields[1]?.split(':').pop() ?? '', 16);
    if (Number.isInteger(port)) ports.add(port);
  }
  return ports;
}

/** A port no socket listens on and no other cluster of the host was given. */
export async function freePortOn(host: RemoteHost, taken: Iterable<number>, signal?: AbortSignal): Promise<number> {
  const text = await host.run(['sh', '-c', 'cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; exit 0'], { signal });
  const busy = listeningPorts(text);
  for (const port of taken) busy.add(port);
  const span = PORT_RANGE.high - PORT_RANGE.low + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i += 1) {
    const port = PORT_RANGE.low + ((start + i) % span);
    if (!busy.has(port)) return port;
  }
  throw new VendorRejectedError(`the host ${host.session.label} has no free port between ${PORT_RANGE.low} and ${PORT_RANGE.high} for another PostgreSQL cluster`);
}

/** Lines of pg_hba.conf that let clients of `addresses` in with scram-sha-256 (the loopback ones initdb already wrote). */
export function hbaLines(addresses: readonly string[]): string {
  const lines = addresses
    .filter((a) => a !== '127.0.0.1' && a !== '::1' && isIP(a) !== 0)
    .map((a) => `host all all ${a}/${isIP(a) === 6 ? 128 : 32} scram-sha-256`);
  return lines.length === 0 ? '' : ['', '# set by cairn', ...lines, ''].join('\n');
}

/**
 * Makes the cluster in one round trip: its directory anew (private to its OS user; the runtime
 * dir opened for traversal only), initdb (one file-system sync after instead of one per file),
 * cairn's settings, started, then stdin (psql's \\set lines and SQL) run as the superuser.
 * Arguments: dir, databases dir, runtime dir, owner ("" for cairn's own user), bin dir, port,
 * postgresql.conf text, pg_hba.conf text.
 */
const BUILD_SCRIPT = [
  'set -e',
  'dir=$1 owner=$4 bin=$5 port=$6',
  'if [ -n "$owner" ]; then id -u postgres >/dev/null 2>&1 || { echo "the host has no postgres OS user to run PostgreSQL as (the distribution\'s postgresql package makes it); reinstall that package" >&2; exit 1; }; fi',
  'cd /',
  'rm -rf -- "$dir"',
  'mkdir -p -m 711 "$2"',
  'chmod 711 "$3" "$2"',
  'mkdir -m 700 "$dir" "$dir/data" "$dir/run"',
  '[ -z "$owner" ] || chown -R "$owner" "$dir"',
  'as_owner() { if [ -n "$owner" ]; then runuser -u postgres -- "$@"; else "$@"; fi; }',
  'as_owner "$bin/initdb" -D "$dir/data" --no-sync --auth=scram-sha-256 --auth-local=peer --encoding=UTF8 --locale=C >/dev/null',
  'sync -f "$dir/data" 2>/dev/null || sync',
  'printf "%s" "$7" | as_owner sh -c \'cat >> "$1"\' sh "$dir/data/postgresql.conf"',
  '[ -z "$8" ] || printf "%s" "$8" | as_owner sh -c \'cat >> "$1"\' sh "$dir/data/pg_hba.conf"',
  'as_owner "$bin/pg_ctl" start -D "$dir/data" -l "$dir/postgres.log" -w -t 60 >/dev/null || { echo "pg_ctl could not start it; its log ends:" >&2; tail -n 5 "$dir/postgres.log" >&2; exit 1; }',
  'as_owner "$bin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$dir/run" -p "$port" -d postgres -f -',
].join('\n');

/** A small file of the host read over SFTP, or undefined when it cannot be read (missing, say). */
export async function readRemoteFile(host: RemoteHost, path: string): Promise<string | undefined> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await host.session.download(path)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return undefined;
  }
}

export class RemoteCluster {
  constructor(
    private readonly host: RemoteHost,
    readonly id: string,
    readonly binDir: string,
    readonly port: number,
  ) {}

  get dir(): string {
    return this.host.path('databases', this.id);
  }

  get dataDir(): string {
    return `${this.dir}/data`;
  }

  get socketDir(): string {
    return `${this.dir}/run`;
  }

  private bin(program: string): string {
    return `${this.binDir}/${program}`;
  }

  private asOwner(argv: readonly string[]): string[] {
    return asPostgres(this.host.facts, argv);
  }

  /**
   * Makes the cluster anew (whatever an earlier attempt left is removed first), listening on
   * `listen`, starts it and runs `sql` as the superuser with `variables` (see psql).
   */
  async build(listen: readonly string[], sql: string, variables: Record<string, string>, signal?: AbortSignal): Promise<void> {
    const socketPath = `${this.socketDir}/.s.PGSQL.${this.port}`;
    if (socketPath.length > MAX_SOCKET_PATH) {
      throw new VendorRejectedError(`the cluster's socket path ${socketPath} on ${this.host.session.label} is longer than ${MAX_SOCKET_PATH} characters (a Unix limit); set a shorter CAIRN_RUNTIME_DIR on the host`);
    }
    const conf = [
      '',
      '# set by cairn',
      `listen_addresses = ${confString([...new Set(listen)].join(','))}`,
      `port = ${this.port}`,
      `unix_socket_directories = ${confString(this.socketDir)}`,
      "password_encryption = 'scram-sha-256'",
      '',
    ].join('\n');
    const owner = this.host.facts.root ? `${POSTGRES_OS_USER}:` : '';
    await this.host.run(
      ['sh', '-c', BUILD_SCRIPT, 'sh', this.dir, this.host.path('databases'), this.host.facts.runtimeDir, owner, this.binDir, String(this.port), conf, hbaLines(listen)],
      { stdin: psqlInput(sql, variables), signal, timeoutMs: CLUSTER_TIMEOUT_MS },
    );
  }

  /**
   * Whether its postmaster runs: the pid in `postmaster.pid` is a live postgres process (both read
   * over SFTP, much cheaper than a command); a stale pid file counts as not running.
   */
  async running(): Promise<boolean> {
    const pidFile = await readRemoteFile(this.host, `${this.dataDir}/postmaster.pid`);
    const pid = Number(pidFile?.split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    const cmdline = await readRemoteFile(this.host, `/proc/${pid}/cmdline`);
    return cmdline !== undefined && cmdline.includes('postgres');
  }

  /** Starts it unless it runs, waiting until it accepts connections. */
  async start(signal?: AbortSignal): Promise<void> {
    if (await this.running()) return;
    const log = `${this.dir}/postgres.log`;
    try {
      await this.host.run(this.asOwner([this.bin('pg_ctl'), 'start', '-D', this.dataDir, '-l', log, '-w', '-t', '60']), { signal, timeoutMs: CLUSTER_TIMEOUT_MS });
    } catch (error) {
      const tail = await this.host.run(['tail', '-n', '5', '--', log], { signal }).catch(() => '');
      throw new Error(`${(error as Error).message}${tail.trim() ? `; its log ends: ${tail.trim()}` : ''}`, { cause: error });
    }
  }

  /** Stops it (fast: sessions are ended; `immediate`: no shutdown checkpoint) unless it is stopped. */
  async stop(signal?: AbortSignal, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!(await this.running())) return;
    await this.host.run(this.asOwner([this.bin('pg_ctl'), 'stop', '-D', this.dataDir, '-m', mode, '-w', '-t', '60']), { signal, timeoutMs: CLUSTER_TIMEOUT_MS });
  }

  /** Stops it and removes its directory; destroying one that is gone succeeds. */
  async destroy(signal?: AbortSignal): Promise<void> {
    await this.stop(signal).catch(async () => this.stop(signal, 'immediate'));
    await this.host.run(['rm', '-rf', '--', this.dir], { signal });
  }

  /**
   * Runs `sql` with psql as the superuser over the cluster's own socket. `variables` are set with
   * `\set` ahead of it on stdin (use them as :'name' in the SQL), so no secret is ever on a command line.
   */
  async psql(sql: string, variables: Record<string, string> = {}, database = 'postgres', signal?: AbortSignal): Promise<string> {
    return this.host.run(
      this.asOwner([this.bin('psql'), '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', this.socketDir, '-p', String(this.port), '-d', database, '-f', '-']),
      { stdin: psqlInput(sql, variables), signal },
    );
  }

  /** argv of pg_dump of `database` in custom format to stdout, as the superuser. */
  dumpArgv(database: string): string[] {
    return this.asOwner([this.bin('pg_dump'), '--format=custom', '-h', this.socketDir, '-p', String(this.port), '-d', database]);
  }

  /** argv of pg_restore from stdin into `database` in one transaction, as the superuser. */
  restoreArgv(database: string): string[] {
    return this.asOwner([this.bin('pg_restore'), '--clean', '--if-exists', '--single-transaction', '--exit-on-error', '-h', this.socketDir, '-p', String(this.port), '-d', database]);
  }
}
