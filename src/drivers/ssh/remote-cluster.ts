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
import { COMMAND_TIMEOUT_MS, type RemoteHost } from './remote-host.js';
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

/** Makes the cluster's directory anew, private to its OS user; opens the runtime dir for traversal only. */
const MAKE_DIR_SCRIPT = [
  'set -e',
  'rm -rf -- "$1"',
  'mkdir -p -m 711 "$2"',
  'chmod 711 "$3" "$2"',
  'mkdir -m 700 "$1" "$1/data" "$1/run"',
  '[ -z "$4" ] || chown -R "$4" "$1"',
].join('\n');

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

  /** Makes the cluster anew (whatever an earlier attempt left is removed first); `listen` are the addresses it listens on. */
  async init(listen: readonly string[], signal?: AbortSignal): Promise<void> {
    const socketPath = `${this.socketDir}/.s.PGSQL.${this.port}`;
    if (socketPath.length > MAX_SOCKET_PATH) {
      throw new VendorRejectedError(`the cluster's socket path ${socketPath} on ${this.host.session.label} is longer than ${MAX_SOCKET_PATH} characters (a Unix limit); set a shorter CAIRN_RUNTIME_DIR on the host`);
    }
    const owner = this.host.facts.root ? `${POSTGRES_OS_USER}:` : '';
    if (owner !== '') await this.ensureOsUser(signal);
    await this.host.run(['sh', '-c', MAKE_DIR_SCRIPT, 'sh', this.dir, this.host.path('databases'), this.host.facts.runtimeDir, owner], { signal });
    // initdb's own fsync of each file is slow on a busy host; one sync of the file system after is as durable.
    await this.host.run(
      this.asOwner(['sh', '-c', '"$@" && { sync -f "$2" 2>/dev/null || sync; }', 'sh', this.bin('initdb'), '-D', this.dataDir, '--no-sync', '--auth=scram-sha-256', '--auth-local=peer', '--encoding=UTF8', '--locale=C']),
      { signal, timeoutMs: CLUSTER_TIMEOUT_MS },
    );
    const conf = [
      '',
      '# set by cairn',
      `listen_addresses = ${confString([...new Set(listen)].join(','))}`,
      `port = ${this.port}`,
      `unix_socket_directories = ${confString(this.socketDir)}`,
      "password_encryption = 'scram-sha-256'",
      '',
    ].join('\n');
    await this.append(`${this.dataDir}/postgresql.conf`, conf, signal);
    const hba = hbaLines(listen);
    if (hba !== '') await this.append(`${this.dataDir}/pg_hba.conf`, hba, signal);
  }

  private async ensureOsUser(signal?: AbortSignal): Promise<void> {
    try {
      await this.host.run(['id', '-u', POSTGRES_OS_USER], { signal });
    } catch {
      throw new VendorRejectedError(`the host ${this.host.session.label} has no '${POSTGRES_OS_USER}' OS user to run PostgreSQL as (the distribution's postgresql package makes it); reinstall that package`);
    }
  }

  /** Appends `text` to a file of the cluster, as its owner; the text travels on stdin. */
  private async append(file: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.host.run(this.asOwner(['sh', '-c', 'cat >> "$1"', 'sh', file]), { stdin: text, signal });
  }

  /** Whether its postmaster runs (`pg_ctl status`: 0 runs, 3 stopped, 4 no data dir). */
  async running(signal?: AbortSignal): Promise<boolean> {
    const { code } = await this.host.session.run(this.asOwner([this.bin('pg_ctl'), 'status', '-D', this.dataDir]), {
      allowFailure: true,
      timeoutMs: COMMAND_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    return code === 0;
  }

  /** Starts it unless it runs, waiting until it accepts connections. */
  async start(signal?: AbortSignal): Promise<void> {
    if (await this.running(signal)) return;
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
    if (!(await this.running(signal))) return;
    await this.host.run(this.asOwner([this.bin('pg_ctl'), 'stop', '-D', this.dataDir, '-m', mode, '-w', '-t', '60']), { signal, timeoutMs: CLUSTER_TIMEOUT_MS });
  }

  /** Stops it and removes its directory; destroying one that is gone succeeds. */
  async destroy(signal?: AbortSignal): Promise<void> {
    const exists = (await this.host.session.run(['test', '-d', this.dir], { allowFailure: true, timeoutMs: COMMAND_TIMEOUT_MS, ...(signal ? { signal } : {}) })).code === 0;
    if (!exists) return;
    await this.stop(signal).catch(async () => this.stop(signal, 'immediate'));
    await this.host.run(['rm', '-rf', '--', this.dir], { signal });
  }

  /**
   * Runs `sql` with psql as the superuser over the cluster's own socket. `variables` are set with
   * `\set` ahead of it on stdin (use them as :'name' in the SQL), so no secret is ever on a command line.
   */
  async psql(sql: string, variables: Record<string, string> = {}, database = 'postgres', signal?: AbortSignal): Promise<string> {
    const sets = Object.entries(variables).map(([name, value]) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`psql variable name ${JSON.stringify(name)} is not a plain name`);
      return `\\set ${name} ${psqlMetaString(value)}\n`;
    });
    return this.host.run(
      this.asOwner([this.bin('psql'), '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', this.socketDir, '-p', String(this.port), '-d', database, '-f', '-']),
      { stdin: `${sets.join('')}${sql}\n`, signal },
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
