/**
 * @module A real OpenSSH server on loopback for the SSH tests: a temporary directory with an
 * ed25519 host key made by ssh-keygen, an authorized_keys file and a config, and
 * `/usr/sbin/sshd -D -e` run on a free port of 127.0.0.1, stopped by the test. Also client key
 * pairs for tests. Without sshd the suites skip, except under CI, where they fail (`.ci/run`
 * installs openssh-server).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprint, generateKeyPair } from '../../src/ssh-keys/key-pairs.js';

export const SSHD_PATH = '/usr/sbin/sshd';


export interface SshdOptions {
  /** authorized_keys lines for the user the tests log in as (the user running the tests). */
  authorizedKeys: string[];
  /** Environment variables sshd sets in every session (sshd_config SetEnv). */
  setEnv?: Record<string, string>;
  /**
   * A home directory for the sessions (SetEnv HOME) whose `.ssh/authorized_keys` sshd also
   * reads, so a test can watch what a session adds there without touching the real home.
   */
  homeDir?: string;
  /** sshd's LogLevel (default ERROR); its log is read with `log()`. */
  logLevel?: 'ERROR' | 'INFO' | 'VERBOSE' | 'DEBUG' | 'DEBUG3';
}

export interface RunningSshd {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The user the tests log in as (the one running them). */
  readonly user: string;
  /** The current host key's fingerprint as `ssh-keygen -lf` prints it (SHA256:...). */
  hostKeyFingerprint: string;
  /** The current host key's public line (`ssh-ed25519 AAAA...`). */
  hostPublicKey: string;
  /** The temporary directory holding the config, keys and pid file. */
  readonly dir: string;
  /** Path of the host public key file. */
  hostPublicKeyPath(): string;
  /** The last few kB sshd wrote to stderr (its log, at LogLevel ERROR unless logLevel says otherwise). */
  log(): string;
  /** How many connections the listening sshd is serving now (its child processes). */
  connectionCount(): number;
  /** Stops sshd (connections included); the directory stays until `stop({ remove: true })`. */
  stop(options?: { remove?: boolean }): Promise<void>;
  /** Starts sshd again on the same port with the same host key. */
  restart(): Promise<void>;
  /** Stops sshd, makes a new host key, starts again on the same port; returns the new fingerprint. */
  restartWithNewHostKey(): Promise<string>;
}

/** A client key pair for tests: OpenSSH private key, authorized_keys line, fingerprint. */
export function makeClientKeyPair(comment = 'cairn-test'): { privateKey: string; publicKey: string; fingerprint: string } {
  // cairn's own generator, as for the runtime keys it logs in with.
  const { privateKey, publicKey, fingerprint } = generateKeyPair({ comment });
  return { privateKey, publicKey, fingerprint };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True once something on the port answers with an SSH banner. */
async function answersSsh(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString('latin1').startsWith('SSH-')));
  });
}

function currentUser(): string {
  return execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
}

export async function startSshd(options: SshdOptions): Promise<RunningSshd> {
  // A missing sshd fails the suite (never a skip): .ci/run installs it.
  if (!existsSync(SSHD_PATH)) throw new Error(`${SSHD_PATH} is missing: the SSH tests need OpenSSH's server (Debian/Ubuntu: apt-get install openssh-server; .ci/run installs it)`);
  // The privilege separation directory sshd insists on.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'cairn-sshd-'));
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  const authorizedKeys = join(dir, 'authorized_keys');
  const config = join(dir, 'sshd_config');
  const port = await freePort();
  writeFileSync(authorizedKeys, options.authorizedKeys.map((line) => `${line.trim()}\n`).join(''), { mode: 0o600 });
  // Sessions get a home of their own (sshd's SetEnv overrides HOME), so the login shell reads
  // no startup files of the machine's real user: a host as a fresh server has it, and a command
  // costs a few ms instead of whatever that user's .bashrc runs (pyenv init: ~0.5 s here).
  const home = options.homeDir ?? join(dir, 'home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const environment = { ...(options.setEnv ?? {}), HOME: home };
  const setEnv = Object.entries(environment).map(([name, value]) => `SetEnv ${name}=${JSON.stringify(value)}`);
  writeFileSync(
    config,
    [
      `ListenAddress 127.0.0.1`,
      `Port ${port}`,
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorizedKeys} ${join(home, '.ssh', 'authorized_keys')}`,
      `StrictModes no`,
      `PasswordAuthentication no`,
      `KbdInteractiveAuthentication no`,
      `PubkeyAuthentication yes`,
      `PermitRootLogin prohibit-password`,
      `UsePAM no`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `MaxSessions 64`,
      `MaxStartups 64`,
      `LogLevel ${options.logLevel ?? 'ERROR'}`,
      `Subsystem sftp internal-sftp`,
      ...setEnv,
      '',
    ].join('\n'),
  );

  const makeHostKey = (): void => {
    rmSync(hostKey, { force: true });
    rmSync(`${hostKey}.pub`, { force: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cairn-test-host', '-f', hostKey]);
  };
  makeHostKey();

  let child: ChildProcess | undefined;
  let log = '';
  const launch = async (): Promise<void> => {
    log = '';
    const started = spawn(SSHD_PATH, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    started.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-4000);
    });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (started.exitCode !== null) throw new Error(`sshd exited with ${started.exitCode} at start: ${log}`);
      if (await answersSsh(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    started.kill('SIGKILL');
    throw new Error(`sshd did not answer on 127.0.0.1:${port} within 10 s: ${log}`);
  };

  const halt = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // Its connection children first, so that open sessions end with it.
    for (const pid of childPids(running.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    running.kill('SIGTERM');
    await exited;
  };

  const readHostKey = (): { line: string; fingerprint: string } => {
    const line = readFileSync(`${hostKey}.pub`, 'utf8').trim();
    return { line, fingerprint: fingerprint(line) };
  };

  await launch();
  const first = readHostKey();
  const sshd: RunningSshd = {
    host: '127.0.0.1',
    port,
    user: currentUser(),
    hostKeyFingerprint: first.fingerprint,
    hostPublicKey: first.line,
    dir,
    hostPublicKeyPath: () => `${hostKey}.pub`,
    log: () => log,
    connectionCount: () => childPids(child?.pid).length,
    stop: async (stopOptions = {}) => {
      await halt();
      if (stopOptions.remove) rmSync(dir, { recursive: true, force: true });
    },
    restart: async () => {
      await halt();
      await launch();
    },
    restartWithNewHostKey: async () => {
      await halt();
      makeHostKey();
      const key = readHostKey();
      sshd.hostKeyFingerprint = key.fingerprint;
      sshd.hostPublicKey = key.line;
      await launch();
      return key.fingerprint;
    },
  };
  return sshd;
}

/** The pids whose parent is `pid` (read from /proc). */
function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}
