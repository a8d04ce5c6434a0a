/**
 * @module One PostgreSQL cluster per database: made with initdb, started and stopped with
 * pg_ctl (it keeps running when cairn stops), listening on 127.0.0.1 on a port of its own
 * (password logins, scram-sha-256) and on a Unix socket in a directory only its OS user and
 * root can reach (trusted: that is how cairn itself administers it).
 */
import { chownSync, mkdirSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { UnsupportedError } from '../errors.js';
import { makeTraversable } from './os-user.js';
import type { PostgresInstallation } from './postgres-installations.js';
import { runProgram, type OsUser } from './run-program.js';

/** The superuser initdb makes; reachable only through the cluster's socket. */
export const SUPERUSER = 'postgres';
const MAX_SOCKET_PATH = 100;

/** Where the socket of the cluster in `clusterDir` goes when its own dir's path is too long for one. */
export function fallbackSocketDir(clusterDir: string): string {
  return join(tmpdir(), `cairn-pg-${createHash('sha256').update(resolve(clusterDir)).digest('hex').slice(0, 16)}`);
}

export class PostgresCluster {
  constructor(
    readonly dir: string,
    readonly installation: PostgresInstallation,
    readonly runAs: OsUser | undefined,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /**
   * The socket's directory: `run/` in the cluster's dir, or — when that path would pass the Unix
   * limit on socket paths — a directory of its own under the system's temp dir, named after it.
   */
  get socketDir(): string {
    const inside = join(this.dir, 'run');
    if (join(inside, `.s.PGSQL.${this.port}`).length <= MAX_SOCKET_PATH) return inside;
    return fallbackSocketDir(this.dir);
  }

  private bin(program: string): string {
    return join(this.installation.binDir, program);
  }

  /** A directory only the cluster's OS user (and root) can enter. */
  private makeOwnDir(dir: string): void {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (this.runAs) chownSync(dir, this.runAs.uid, this.runAs.gid);
  }

  /** Makes the cluster anew (whatever a crashed earlier attempt left is removed first). */
  async init(): Promise<void> {
    const socketPath = join(this.socketDir, `.s.PGSQL.${this.port}`);
    if (socketPath.length > MAX_SOCKET_PATH) {
      throw new UnsupportedError(`the cluster's socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} characters (a Unix limit); set TMPDIR to a shorter directory`);
    }
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.socketDir, { recursive: true, force: true });
    for (const dir of [this.dir, this.dataDir, this.socketDir]) this.makeOwnDir(dir);
    if (this.runAs) makeTraversable(this.dir, this.runAs);
    await runProgram(this.bin('initdb'), ['-D', this.dataDir, '-U', SUPERUSER, '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--locale=C'], {
      runAs: this.runAs,
      timeoutMs: 120_000,
    });
    appendFileSync(
      join(this.dataDir, 'postgresql.conf'),
      [
        '',
        '# set by cairn',
        "listen_addresses = '127.0.0.1'",
        `port = ${this.port}`,
        `unix_socket_directories = '${this.socketDir}'`,
        "password_encryption = 'scram-sha-256'",
        '',
      ].join('\n'),
    );
  }

  /** The postmaster's pid when it runs, else null (a stale pid file counts as not running). */
  runningPid(): number | null {
    let text: string;
    try {
      text = readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8');
    } catch {
      return null;
    }
    const pid = Number(text.split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    try {
      process.kill(pid, 0);
      return pid;
    } catch {
      return null;
    }
  }

  /** Starts it unless it runs; waits until it accepts connections (or until `signal` fires: the cluster goes on starting). */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.runningPid() !== null) return;
    this.makeOwnDir(this.socketDir); // a socket dir under the temp dir may have been cleaned away
    await runProgram(this.bin('pg_ctl'), ['-D', this.dataDir, '-l', join(this.dir, 'postgres.log'), '-w', '-t', '60', 'start'], {
      runAs: this.runAs,
      timeoutMs: 90_000,
      ownSession: true, // the cluster outlives cairn, and Ctrl-C in cairn's terminal must not stop it
      ...(signal ? { signal } : {}),
    });
  }

  /** Stops it (fast: open sessions are ended) unless it is stopped. */
  async stop(signal?: AbortSignal): Promise<void> {
    if (this.runningPid() === null) return;
    await runProgram(this.bin('pg_ctl'), ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop'], { runAs: this.runAs, timeoutMs: 90_000, ...(signal ? { signal } : {}) });
  }

  /** Stops it and removes its files (nothing is removed when `signal` fires before it has stopped). */
  async destroy(signal?: AbortSignal): Promise<void> {
    await this.stop(signal);
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.socketDir, { recursive: true, force: true });
  }

  /** Runs `work` as the superuser over the cluster's socket. */
  async admin<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
    // pg is loaded on first use: commands that never reach a cluster should not pay for it.
    const { default: postgres } = await import('pg');
    const client = new postgres.Client({ host: this.socketDir, port: this.port, user: SUPERUSER, database });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  /** Arguments that point a client program (pg_dump, pg_restore) at `database` as the superuser. */
  connectionArgs(database: string): string[] {
    return ['-h', this.socketDir, '-p', String(this.port), '-U', SUPERUSER, '-d', database];
  }

  program(name: 'pg_dump' | 'pg_restore'): string {
    return this.bin(name);
  }
}
