/**
 * @module One host's commands, streams, files and shells over SSH. An SshSession borrows the
 * pool's shared, multiplexed connection for each operation (so it survives reconnects); every
 * remote command line is built by shellCommand from an argv. Captured output is capped
 * (RUN_STDOUT_CAP, the last STDERR_TAIL_CAP of stderr); a timeout or an abort kills the remote
 * command (a KILL signal request over the channel, then the channel is closed) and rejects.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { shellCommand } from './shell-quote.js';

/** Most stdout `run` keeps; a command writing more is killed (use `stream` for large output). */
export const RUN_STDOUT_CAP = 16 * 1024 * 1024;
/** How much of stderr is kept (the last bytes) by `run`, `stream` and RemoteCommandError. */
export const STDERR_TAIL_CAP = 64 * 1024;
/** How much of stderr a RemoteCommandError's message quotes (its `stderrTail` holds more). */
const MESSAGE_STDERR_CHARS = 2000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface RunOptions {
  /** Fed to the command's standard input, then closed (a Readable is piped, with backpressure). */
  stdin?: string | Buffer | Readable;
  /** Kills the remote command and rejects after this long. */
  timeoutMs?: number;
  /** Kills the remote command and rejects when aborted. */
  signal?: AbortSignal;
  /** Variables set for the command (through `env NAME=value`: sshd refuses most env requests). */
  env?: Record<string, string>;
  /** Resolve with a non-zero exit code instead of rejecting with RemoteCommandError. */
  allowFailure?: boolean;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface StreamedCommand {
  /** The command's standard output, with backpressure on the remote side. */
  stdout: Readable;
  /** Its stderr (the last STDERR_TAIL_CAP bytes) once it ends. */
  stderr: Promise<string>;
  /** Its exit code; rejects with RemoteCommandError on a non-zero one (unless allowFailure), or on timeout/abort. */
  done: Promise<number>;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  term?: string;
}

/** A remote command exited non-zero (or by a signal). */
export class RemoteCommandError extends Error {
  constructor(
    /** The command line as sent (each argument quoted). */
    readonly command: string,
    /** The exit code, or null when the command died of a signal. */
    readonly code: number | null,
    readonly stderrTail: string,
    readonly exitSignal?: string,
  ) {
    const how = code === null ? `died of signal ${exitSignal ?? 'unknown'}` : `exited with code ${code}`;
    const tail = stderrTail.trim().slice(-MESSAGE_STDERR_CHARS);
    super(`remote command ${command} ${how}${tail ? `: ${tail}` : ''}`);
    this.name = 'RemoteCommandError';
  }
}

/** A remote command ran past its time or was aborted; it was killed. */
export class RemoteCommandAbortedError extends Error {
  constructor(readonly command: string, readonly reason: 'timeout' | 'aborted', timeoutMs?: number) {
    super(
      reason === 'timeout'
        ? `remote command ${command} ran longer than ${timeoutMs} ms and was killed`
        : `remote command ${command} was aborted and killed`,
    );
    this.name = 'RemoteCommandAbortedError';
  }
}

/** Lends the connection: resolves with a live client, connecting or reconnecting as needed. */
export interface ConnectionLender {
  /** A ready client for one operation; `release` must be called when the operation ends. */
  borrow(): Promise<{ client: Client; release: () => void }>;
  /** `user@host:port`, for messages. */
  readonly label: string;
}

/** Keeps the last `cap` bytes written. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.cap && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.cap)).toString('utf8');
  }
}

/**
 * Sent before every command: the login shell writes its pid on the first stderr line, then
 * execs the command under that pid (which sshd made a session and process group leader), so a
 * timeout or an abort can kill the command's whole process group.
 */
const PID_PROLOGUE = `printf 'cairn-pid:%s\\n' "$$" >&2; exec `;
const PID_LINE = /^cairn-pid:(\d+)\n/;

/** How far into stderr the pid line is looked for (sshd itself may write lines before it, e.g. at LogLevel DEBUG). */
const PID_LINE_SEARCH_BYTES = 4096;

/** Takes the pid line out of the start of stderr; passes everything else through. */
class PidLineReader {
  private head: Buffer | undefined = Buffer.alloc(0);
  constructor(private readonly onPid: (pid: number) => void) {}

  /** The stderr bytes of `chunk` that belong to the command. */
  push(chunk: Buffer): Buffer {
    if (this.head === undefined) return chunk;
    this.head = Buffer.concat([this.head, chunk]);
    let lineStart = 0;
    for (let newline = this.head.indexOf(10); newline !== -1; newline = this.head.indexOf(10, lineStart)) {
      const match = PID_LINE.exec(this.head.subarray(lineStart, newline + 1).toString('latin1'));
      if (match) {
        const rest = Buffer.concat([this.head.subarray(0, lineStart), this.head.subarray(newline + 1)]);
        this.head = undefined;
        this.onPid(Number(match[1]));
        return rest;
      }
      lineStart = newline + 1;
    }
    if (this.head.length < PID_LINE_SEARCH_BYTES) return Buffer.alloc(0);
    const all = this.head;
    this.head = undefined;
    return all;
  }

  /** What is held back when stderr ends without a pid line. */
  flush(): Buffer {
    const held = this.head ?? Buffer.alloc(0);
    this.head = undefined;
    return held;
  }
}

function commandLine(argv: readonly string[], env: Record<string, string> | undefined): string {
  const pairs = Object.entries(env ?? {});
  for (const [name] of pairs) {
    if (!ENV_NAME.test(name)) throw new Error(`env: ${JSON.stringify(name)} is not a valid variable name (letters, digits and _; not starting with a digit)`);
  }
  if (pairs.length === 0) return shellCommand(argv);
  if (argv[0]?.includes('=')) throw new Error(`argv[0] ${JSON.stringify(argv[0])} contains "=", which env would read as a variable`);
  return shellCommand(['env', ...pairs.map(([name, value]) => `${name}=${value}`), ...argv]);
}

/** How a command's channel ended, recorded from the moment it opens. */
const exitOf = new WeakMap<ClientChannel, { code: number | null; signal: string | undefined }>();

/**
 * Opens an exec channel. Its exit status is recorded in the open callback itself: ssh2 may parse
 * the open confirmation and a fast command's exit status from one packet read, emitting 'exit'
 * before an `await` of this promise resumes, where a listener added then would miss it.
 */
function execChannel(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.exec(command, (error, channel) => {
      if (error) return reject(error);
      channel.on('exit', (code: number | null, signalName?: string) => exitOf.set(channel, { code, signal: signalName ?? undefined }));
      resolve(channel);
    });
  });
}

function openSftp(client: Client): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => {
    client.sftp((error, sftp) => (error ? reject(error) : resolve(sftp)));
  });
}

function feedStdin(channel: ClientChannel, stdin: RunOptions['stdin'], onError: (error: Error) => void): void {
  if (stdin === undefined) {
    channel.end();
  } else if (stdin instanceof Readable) {
    stdin.once('error', onError);
    stdin.pipe(channel);
  } else {
    channel.end(stdin);
  }
}

/**
 * Sends a signal request on an exec channel. ssh2's `channel.signal` sends nothing once our side
 * of the channel has ended (its `writable` check), which is the case for every command whose
 * stdin is done, so the request is written through ssh2's protocol object while the channel is
 * still open (an SSH channel takes requests after our EOF). sshd delivers it with killpg to the command's process group.
 */
function sendSignal(channel: ClientChannel, name: 'KILL' | 'TERM'): void {
  const internals = channel as unknown as {
    outgoing?: { id: number; state: string };
    _client?: { _protocol?: { signal(id: number, signal: string): void } };
  };
  try {
    const outgoing = internals.outgoing;
    const protocol = internals._client?._protocol;
    if (outgoing && (outgoing.state === 'open' || outgoing.state === 'eof') && protocol) protocol.signal(outgoing.id, name);
    else channel.signal(name);
  } catch {
    // the channel is closing already
  }
}

export class SshSession {
  constructor(private readonly lender: ConnectionLender) {}

  /** `user@host:port` of this session. */
  get label(): string {
    return this.lender.label;
  }

  /** Runs `argv` and collects its output (stdout capped at RUN_STDOUT_CAP). */
  async run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const started = await this.start(argv, options);
    const out: Buffer[] = [];
    let outBytes = 0;
    started.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > RUN_STDOUT_CAP) {
        started.kill(new Error(`remote command ${started.command} wrote more than ${RUN_STDOUT_CAP} bytes to stdout; use stream() for large output`));
        return;
      }
      out.push(chunk);
    });
    const code = await started.done;
    return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: await started.stderr };
  }

  /** Runs `argv` with `input` streamed to its stdin (e.g. pg_restore of a large dump). */
  runWithInput(argv: readonly string[], input: Readable, options: Omit<RunOptions, 'stdin'> = {}): Promise<RunResult> {
    return this.run(argv, { ...options, stdin: input });
  }

  /** Runs `argv` with its stdout streamed back (e.g. pg_dump). */
  async stream(argv: readonly string[], options: RunOptions = {}): Promise<StreamedCommand> {
    const started = await this.start(argv, options);
    return { stdout: started.stdout, stderr: started.stderr, done: started.done };
  }

  /** Writes `data` to `remotePath` through SFTP: a temporary name beside it, then a rename over it. */
  async upload(remotePath: string, data: Buffer | Readable, mode = 0o644): Promise<void> {
    await this.withSftp(async (sftp) => {
      const temporary = `${remotePath}.cairn-upload-${randomBytes(6).toString('hex')}`;
      try {
        await new Promise<void>((resolve, reject) => {
          const target = sftp.createWriteStream(temporary, { mode });
          target.once('error', reject);
          target.once('close', () => resolve());
          const source = Buffer.isBuffer(data) ? Readable.from([data]) : data;
          source.once('error', (error) => {
            target.destroy();
            reject(error);
          });
          source.pipe(target);
        });
        await new Promise<void>((resolve, reject) => sftp.chmod(temporary, mode, (error) => (error ? reject(error) : resolve())));
        await new Promise<void>((resolve, reject) => sftp.ext_openssh_rename(temporary, remotePath, (error) => (error ? reject(error) : resolve())));
      } catch (error) {
        await new Promise<void>((resolve) => sftp.unlink(temporary, () => resolve()));
        throw new Error(`upload to ${this.label}:${remotePath} failed: ${(error as Error).message}`, { cause: error });
      }
    });
  }

  /** Reads `remotePath` through SFTP as a stream (the SFTP channel closes when it ends). */
  async download(remotePath: string): Promise<Readable> {
    const { client, release } = await this.lender.borrow();
    let sftp: SFTPWrapper;
    try {
      sftp = await openSftp(client);
    } catch (error) {
      release();
      throw error;
    }
    const out = new PassThrough();
    const source = sftp.createReadStream(remotePath);
    const finish = (): void => {
      sftp.end();
      release();
    };
    source.once('error', (error: Error) => {
      finish();
      out.destroy(new Error(`download of ${this.label}:${remotePath} failed: ${error.message}`, { cause: error }));
    });
    source.once('end', finish);
    source.pipe(out);
    return out;
  }

  /** A PTY shell (login shell of the user) for a terminal; the caller closes the channel. */
  async shell(options: ShellOptions): Promise<ClientChannel> {
    const { client, release } = await this.lender.borrow();
    try {
      const channel = await new Promise<ClientChannel>((resolve, reject) => {
        client.shell({ cols: options.cols, rows: options.rows, term: options.term ?? 'xterm-256color' }, (error, stream) => (error ? reject(error) : resolve(stream)));
      });
      channel.once('close', release);
      return channel;
    } catch (error) {
      release();
      throw error;
    }
  }

  private async withSftp<T>(work: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    const { client, release } = await this.lender.borrow();
    try {
      const sftp = await openSftp(client);
      try {
        return await work(sftp);
      } finally {
        sftp.end();
      }
    } finally {
      release();
    }
  }

  /** Kills the process group of a remote command (sshd made it a session leader) over another channel. */
  private async killProcessGroup(pid: number): Promise<void> {
    try {
      const { client, release } = await this.lender.borrow();
      try {
        const channel = await execChannel(client, `kill -KILL -- -${pid} 2>/dev/null || kill -KILL ${pid} 2>/dev/null`);
        channel.resume();
        channel.stderr.resume();
        channel.end();
        await new Promise<void>((resolve) => channel.once('close', () => resolve()));
      } finally {
        release();
      }
    } catch {
      // the connection is gone: so is the command's session
    }
  }

  private async start(argv: readonly string[], options: RunOptions): Promise<{
    command: string;
    stdout: Readable;
    stderr: Promise<string>;
    done: Promise<number>;
    kill: (reason: Error) => void;
  }> {
    const command = commandLine(argv, options.env);
    if (options.signal?.aborted) throw new RemoteCommandAbortedError(command, 'aborted');
    const { client, release } = await this.lender.borrow();
    let channel: ClientChannel;
    try {
      channel = await execChannel(client, `${PID_PROLOGUE}${command}`);
    } catch (error) {
      release();
      throw new Error(`could not start remote command ${command} on ${this.label}: ${(error as Error).message}`, { cause: error });
    }
    const stderrTail = new TailBuffer(STDERR_TAIL_CAP);
    let remotePid: number | undefined;
    let killedBy: Error | undefined;
    const pidLine = new PidLineReader((pid) => {
      remotePid = pid;
      if (killedBy) void this.killProcessGroup(pid);
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      const rest = pidLine.push(chunk);
      if (rest.length > 0) stderrTail.push(rest);
    });
    const stdout = new PassThrough();
    channel.pipe(stdout);

    const kill = (reason: Error): void => {
      if (killedBy) return;
      killedBy = reason;
      // The signal request reaches the command where sshd runs sessions privilege-separated
      // (not for root logins); killing its process group by pid works everywhere else.
      sendSignal(channel, 'KILL');
      if (remotePid !== undefined) void this.killProcessGroup(remotePid);
      channel.close();
    };
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => kill(new RemoteCommandAbortedError(command, 'timeout', options.timeoutMs)), options.timeoutMs);
    const onAbort = (): void => kill(new RemoteCommandAbortedError(command, 'aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });


    const closed = new Promise<void>((resolve) =>
      channel.once('close', () => {
        const held = pidLine.flush();
        if (held.length > 0) stderrTail.push(held);
        resolve();
      }),
    );
    const done = closed.then(() => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      release();
      if (killedBy) {
        stdout.destroy(killedBy);
        throw killedBy;
      }
      const exit = exitOf.get(channel);
      const exitCode = exit?.code ?? null;
      const exitSignal = exit?.signal;
      if (exitCode === 0 || (options.allowFailure && exitCode !== null)) return exitCode;
      throw new RemoteCommandError(command, exitCode, stderrTail.text(), exitSignal);
    });
    // Callers that only read stdout still see failures there; `done` itself must not be an unhandled rejection.
    done.catch(() => undefined);
    feedStdin(channel, options.stdin, (error) => kill(new Error(`the input of remote command ${command} failed: ${error.message}`, { cause: error })));
    return { command, stdout, stderr: closed.then(() => stderrTail.text()), done, kill };
  }
}

