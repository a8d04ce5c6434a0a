/**
 * The SSH transport against a real OpenSSH server on loopback (test/support/sshd.ts): quoting
 * end to end, exit codes, stdin, 50 MB streams both ways, timeouts and aborts that kill the
 * remote process, one shared connection, reconnects, host key pinning, auth errors, SFTP and
 * /proc metrics.
 */
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import ssh2, { type ParsedKey } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HostKeyChangedError,
  MemoryHostKeyPins,
  readProcMetrics,
  RemoteCommandAbortedError,
  RemoteCommandError,
  RUN_STDOUT_CAP,
  SshConnectError,
  SshConnections,
  type SshIdentity,
  type SshTarget,
} from '../src/ssh/index.js';
import { HOSTILE_ARGUMENTS } from './support/hostile-arguments.js';
import { makeClientKeyPair, startSshd, type RunningSshd } from './support/sshd.js';


/** Whether any process's command line holds `marker` (pgrep -f). */
function processWith(marker: string): boolean {
  try {
    execFileSync('pgrep', ['-f', marker]);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** The error `promise` rejects with (failing the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(outcome)}`);
  return outcome;
}

/** `size` pseudo-random bytes in 1 MiB chunks, and their SHA-256 once read. */
function randomSource(size: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let left = size;
  const stream = new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const chunk = randomBytes(Math.min(left, 1024 * 1024));
      left -= chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

describe('SSH transport against a loopback sshd', () => {
  const client = makeClientKeyPair('cairn-transport-test');
  const identity: SshIdentity = { privateKey: client.privateKey };
  // An RSA key in PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), the other format ssh2 reads.
  const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  const rsaPublic = (ssh2.utils.parseKey(rsaPem) as ParsedKey).getPublicSSH().toString('base64');
  let sshd: RunningSshd;
  let target: SshTarget;
  let pool: SshConnections;
  const pins = new MemoryHostKeyPins();

  beforeAll(async () => {
    sshd = await startSshd({ authorizedKeys: [client.publicKey, `ssh-rsa ${rsaPublic} rsa-pem`], setEnv: { CAIRN_SSHD_TEST: 'set by sshd' } });
    target = { host: sshd.host, port: sshd.port, user: sshd.user };
    pool = new SshConnections({ connectTimeoutMs: 5000, retryDelayMs: 100 });
  });

  afterAll(async () => {
    await pool?.close();
    await sshd?.stop({ remove: true });
  });

  it('pins the host key on first contact, with the fingerprint ssh-keygen -l prints', async () => {
    await pool.session(target, identity, pins);
    const keygen = execFileSync('ssh-keygen', ['-lf', sshd.hostPublicKeyPath()], { encoding: 'utf8' }).split(/\s+/)[1];
    expect(pins.pinned(`127.0.0.1:${sshd.port}`)).toBe(keygen);
    expect(keygen).toBe(sshd.hostKeyFingerprint);
  });

  it('delivers hostile arguments intact, byte for byte', async () => {
    const session = await pool.session(target, identity, pins);
    const { stdout } = await session.run(['printf', '%s\\0', ...HOSTILE_ARGUMENTS]);
    expect(stdout.split('\0').slice(0, -1)).toEqual(HOSTILE_ARGUMENTS);
  });

  it('reports exit codes, stderr, stdin, env and sshd SetEnv', async () => {
    const session = await pool.session(target, identity, pins);
    const failed = await session.run(['sh', '-c', 'echo oops >&2; exit 3'], { allowFailure: true });
    expect(failed).toEqual({ code: 3, stdout: '', stderr: 'oops\n' });
    const error = await rejection(session.run(['sh', '-c', 'echo "it broke" >&2; exit 7']));
    expect(error).toBeInstanceOf(RemoteCommandError);
    expect((error as RemoteCommandError).code).toBe(7);
    expect((error as RemoteCommandError).message).toContain(`sh -c 'echo "it broke" >&2; exit 7' exited with code 7: it broke`);
    expect((await session.run(['cat'], { stdin: 'from stdin\n' })).stdout).toBe('from stdin\n');
    expect((await session.run(['sh', '-c', 'printf %s "$X"'], { env: { X: "a 'b' $c" } })).stdout).toBe("a 'b' $c");
    expect((await session.run(['sh', '-c', 'printf %s "$CAIRN_SSHD_TEST"'])).stdout).toBe('set by sshd');
  });

  it('streams 50 MB in and out with equal SHA-256', async () => {
    const session = await pool.session(target, identity, pins);
    const size = 50 * 1024 * 1024;
    const sent = randomSource(size);
    const remote = await session.runWithInput(['sha256sum'], sent.stream);
    expect(remote.stdout.split(' ')[0]).toBe(sent.digest());

    const echoed = randomSource(size);
    const streamed = await session.stream(['cat'], { stdin: echoed.stream });
    const received = createHash('sha256');
    let bytes = 0;
    for await (const chunk of streamed.stdout) {
      received.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    expect(await streamed.done).toBe(0);
    expect(bytes).toBe(size);
    expect(received.digest('hex')).toBe(echoed.digest());
  });

  it('kills the remote command (its whole process group) on timeout and on abort', async () => {
    const session = await pool.session(target, identity, pins);
    const timedMarker = `3600.${Date.now()}1`;
    const timed = session.run(['sleep', timedMarker], { timeoutMs: 500 });
    await expect(timed).rejects.toBeInstanceOf(RemoteCommandAbortedError);
    expect(await until(() => !processWith(`sleep ${timedMarker}`))).toBe(true);

    const abortedMarker = `3600.${Date.now()}2`;
    const controller = new AbortController();
    // sleep runs as a child of sh here (not exec'd): the whole process group must die.
    const aborted = session.run(['sh', '-c', `sleep ${abortedMarker}; true`], { signal: controller.signal });
    expect(await until(() => processWith(`sleep ${abortedMarker}`))).toBe(true);
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted and killed/);
    expect(await until(() => !processWith(`sleep ${abortedMarker}`))).toBe(true);
  });

  it('runs 20 concurrent commands over one shared connection', async () => {
    const fresh = new SshConnections();
    try {
      const sessions = await Promise.all(Array.from({ length: 20 }, () => fresh.session(target, identity, pins)));
      const results = await Promise.all(sessions.map((s, i) => s.run(['sh', '-c', `sleep 0.3; echo ${i}`])));
      expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
      expect(fresh.connectsMade).toBe(1);
      expect(fresh.openCount()).toBe(1);
      // Seen from the server: one connection for this pool plus the shared pool's.
      expect(sshd.connectionCount()).toBeLessThanOrEqual(2);
    } finally {
      await fresh.close();
    }
  });

  it('reconnects after sshd restarts on the same port', async () => {
    const session = await pool.session(target, identity, pins);
    expect((await session.run(['echo', 'before'])).stdout).toBe('before\n');
    const before = pool.connectsMade;
    await sshd.restart();
    await until(() => pool.openCount() === 0);
    expect((await session.run(['echo', 'after'])).stdout).toBe('after\n');
    expect(pool.connectsMade).toBe(before + 1);
  });

  it('closes an idle connection and connects again on next use', async () => {
    const idle = new SshConnections({ idleMs: 200 });
    try {
      const session = await idle.session(target, identity, pins);
      expect(idle.openCount()).toBe(1);
      expect(await until(() => idle.openCount() === 0, 2000)).toBe(true);
      expect((await session.run(['echo', 'again'])).stdout).toBe('again\n');
      expect(idle.connectsMade).toBe(2);
    } finally {
      await idle.close();
    }
  });

  it('kills a command whose stdout passes the run cap, pointing at stream()', async () => {
    const session = await pool.session(target, identity, pins);
    await expect(session.run(['head', '-c', String(RUN_STDOUT_CAP + 1), '/dev/zero'])).rejects.toThrow(/more than 16777216 bytes to stdout; use stream\(\)/);
  });

  it('times out a connect to a port that never speaks SSH', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const quick = new SshConnections({ connectTimeoutMs: 300, connectAttempts: 1 });
    try {
      const port = (silent.address() as AddressInfo).port;
      await expect(quick.session({ ...target, port }, identity, new MemoryHostKeyPins())).rejects.toThrow(`ssh to ${sshd.user}@127.0.0.1:${port}: timed out after 300 ms while connecting`);
    } finally {
      await quick.close();
      silent.close();
    }
  });

  it('uploads atomically and downloads through SFTP', async () => {
    const session = await pool.session(target, identity, pins);
    const path = `${sshd.dir}/uploaded file's name`;
    const data = randomBytes(3 * 1024 * 1024 + 7);
    await session.upload(path, data, 0o600);
    const chunks: Buffer[] = [];
    for await (const chunk of await session.download(path)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect((await session.run(['stat', '-c', '%a', path])).stdout.trim()).toBe('600');
    expect((await session.run(['ls', sshd.dir])).stdout).not.toMatch(/cairn-upload/);
    await expect(session.download(`${sshd.dir}/missing`).then(async (s) => { for await (const _ of s) void _; })).rejects.toThrow(/download of .*missing failed/);
  });

  it('opens a PTY shell', async () => {
    const session = await pool.session(target, identity, pins);
    const shell = await session.shell({ cols: 80, rows: 24, term: 'xterm' });
    let seen = '';
    shell.on('data', (d: Buffer) => (seen += d.toString('utf8')));
    shell.write('echo "pty=$(tty | cut -c1-8)"; exit\n');
    await new Promise((resolve) => shell.once('close', resolve));
    expect(seen).toContain('pty=/dev/pts');
  });

  it('reads sane metrics from /proc', async () => {
    const session = await pool.session(target, identity, pins);
    const metrics = await readProcMetrics(session);
    expect(metrics.simulated).toBe(false);
    for (const value of [metrics.cpuPercent, metrics.memoryPercent, metrics.diskPercent]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
    }
    expect(metrics.memoryPercent).toBeGreaterThan(0);
    expect(metrics.diskPercent).toBeGreaterThan(0);
  });

  it('logs in with an RSA key in PKCS#1 PEM', async () => {
    const session = await pool.session(target, { privateKey: rsaPem }, pins);
    expect((await session.run(['echo', 'rsa'])).stdout).toBe('rsa\n');
  });

  it('names user and key fingerprint when the key is refused', async () => {
    const stranger = makeClientKeyPair('not-authorized');
    const error = await rejection(pool.session(target, { privateKey: stranger.privateKey }, pins));
    expect(error.message).toContain(`authentication failed`);
    expect(error.message).toContain(`user "${sshd.user}"`);
    expect(error.message).toContain(stranger.fingerprint);
    expect(error).toBeInstanceOf(SshConnectError);
    expect((error as SshConnectError).refusedKey).toBe(true);
  });

  it('says connection refused for a port nothing listens on', async () => {
    const quick = new SshConnections({ connectAttempts: 1 });
    try {
      await sshd.stop();
      await expect(quick.session(target, identity, pins)).rejects.toThrow(/connection refused/);
    } finally {
      await quick.close();
      await sshd.restart();
    }
  });

  // Last: it replaces the host key.
  it('refuses a changed host key, naming both fingerprints, and runs nothing', async () => {
    const old = sshd.hostKeyFingerprint;
    const session = await pool.session(target, identity, pins);
    const marker = `${sshd.dir}/ran-${Date.now()}`;
    const renewed = await sshd.restartWithNewHostKey();
    await until(() => pool.openCount() === 0);
    const error = await rejection(session.run(['touch', marker]));
    expect(error).toBeInstanceOf(HostKeyChangedError);
    expect(error.message).toContain(old);
    expect(error.message).toContain(renewed);
    expect(error.message).toContain(`127.0.0.1:${sshd.port}`);
    expect(error.message).toMatch(/unpin/);
    await expect(pool.session(target, identity, pins)).rejects.toBeInstanceOf(HostKeyChangedError);
    expect(processWith(marker)).toBe(false);
    expect(execFileSync('ls', [sshd.dir], { encoding: 'utf8' })).not.toContain('ran-');
    // Accepted by removing the pin: the new key is pinned on next contact.
    pins.unpin(`127.0.0.1:${sshd.port}`);
    await (await pool.session(target, identity, pins)).run(['true']);
    expect(pins.pinned(`127.0.0.1:${sshd.port}`)).toBe(renewed);
  });
});
