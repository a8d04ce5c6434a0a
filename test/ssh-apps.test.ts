/**
 * The SSH runtime's apps against a real sshd on loopback (this machine is the "remote" host,
 * reached as root): the runtime contract's apps half with a small Node HTTP server uploaded as a
 * path source, and what only a host of its own shows — the stable port switching to a new
 * release without a failed request, a failing release leaving the old one serving and
 * supervised (killed, it comes back), apps outliving the SSH connection and the driver, logs
 * with the supervisor's timestamps, and delete leaving no process, directory or OS user.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDesired, AppObserved, RuntimeDriver } from '../src/drivers/contract.js';
import { runRuntimeDriverContract } from '../src/drivers/runtime-driver.contract.js';
import { SshApps } from '../src/drivers/ssh/apps.js';
import { SshHosts } from '../src/drivers/ssh/hosts.js';
import { RuntimeIndex } from '../src/drivers/ssh/runtime-index.js';
import type { SshRuntimeOptions } from '../src/drivers/ssh/runtime-options.js';
import { waitUntil } from '../src/drivers/waiting.contract.js';
import { migrationSourcesRoot } from '../src/security/host-access.js';
import { MemoryHostKeyPins, SshConnections } from '../src/ssh/index.js';
import type { SshAccess } from '../src/ssh/access.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';


const SERVER_JS = `
const http = require('http');
if (process.env.FAIL) { console.error('refusing to start: FAIL is set'); process.exit(3); }
console.log('starting ' + (process.env.GREETING || ''));
http.createServer((req, res) => {
  if (req.url === '/healthz') { res.end('ok'); return; }
  res.end((process.env.GREETING || '') + ' ' + process.pid);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

function makeAppSource(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-ssh-app-src-'));
  writeFileSync(join(dir, 'server.js'), SERVER_JS);
  return dir;
}

const sourceDir = makeAppSource();
process.env.CAIRN_LOCAL_SOURCE_DIRS = sourceDir;

function driverOf(apps: SshApps, vendor: string): RuntimeDriver {
  const databases = new Proxy({}, { get: () => () => Promise.reject(new Error('databases are not under test')) }) as RuntimeDriver['databases'];
  return { vendor, databases, apps, close: () => apps.close() };
}

/** One GET without keep-alive (a new connection each time, as a switch must serve them). */
function fetchText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`status ${res.statusCode}: ${body}`))));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/** Whatever a failed case left running under a test's runtime dir (its path is unique to the test), ended by pid, and its OS users removed. */
function sweep(runtimeDir: string): void {
  // TERM first: a supervisor stops its app's process group; what is left after a second is killed.
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const pids = pgrep(runtimeDir);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), signal);
      } catch {
        // gone already
      }
    }
    if (pids.length > 0 && signal === 'SIGTERM') execFileSync('sleep', ['1']);
  }
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , , , , home] = line.split(':');
    if (name?.startsWith('cairn-app-') && home?.startsWith(`${runtimeDir}/`)) execFileSync('userdel', [name]);
  }
}

function pgrep(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

runRuntimeDriverContract('the SSH runtime (apps)', async () => {
  const fixture = await startSshRuntimeFixture();
  const apps = new SshApps(fixture.options);
  return {
    driver: driverOf(apps, 'ssh'), placement: fixture.placement,
    async cleanup() {
      sweep(fixture.runtimeDir);
      await fixture.cleanup();
    },
  };
}, {
  parts: ['apps'],
  settleTimeoutMs: 20_000,
  app: { source: { path: sourceDir }, build: 'test -f server.js', command: 'exec node server.js', healthCheckPath: '/healthz' },
});

describe('the SSH runtime\'s apps on a host', () => {
  let fixture: SshRuntimeFixture;
  let apps: SshApps;
  let options: SshRuntimeOptions;
  const marker = `cairn-ssh-app-${randomUUID()}`;
  const laterConnections: SshConnections[] = [];

  function desired(env: Record<string, string>, extra: Partial<AppDesired> = {}): AppDesired {
    return {
      name: 'greeter', placement: fixture.placement, source: { path: sourceDir }, build: null,
      command: `exec node server.js ${marker}`, port: null, env, healthCheckPath: '/healthz', state: 'running', ...extra,
    };
  }

  async function settled(id: string, key: string, ready: (a: AppObserved | null) => boolean, what: string): Promise<AppObserved> {
    const app = await waitUntil(() => apps.observe({ key, externalId: id }), ready, 30_000, what);
    if (!app) throw new Error(`${what}: the app vanished`);
    return app;
  }

  beforeAll(async () => {
    fixture = await startSshRuntimeFixture();
    options = fixture.options;
    apps = new SshApps(options);
  });

  afterAll(async () => {
    await apps?.close();
    for (const connections of laterConnections) await connections.close();
    if (fixture) sweep(fixture.runtimeDir);
    await fixture?.cleanup();
    rmSync(sourceDir, { recursive: true, force: true });
  });

  const key = `greeter-${randomUUID()}`;
  let id = '';
  let url = '';

  it('serves through its stable port, and a new release takes over with no failed request', async () => {
    const created = await apps.create(key, desired({ GREETING: 'v1' }));
    id = created.id;
    const running = await settled(id, key, (a) => a?.status === 'running', 'v1 to run');
    url = running.url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await fetchText(url)).toMatch(/^v1 /);

    let stop = false;
    const answers: string[] = [];
    const failures: string[] = [];
    const loop = (async () => {
      while (!stop) {
        try {
          answers.push(await fetchText(url));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    })();
    const updated = await apps.update(id, desired({ GREETING: 'v2' }));
    const v2 = await settled(id, key, (a) => a?.status === 'running' && a.release === updated.release && a.servingRelease === null, 'v2 to serve');
    await waitUntil(() => Promise.resolve(answers.at(-1) ?? ''), (a) => a.startsWith('v2 '), 10_000, 'v2 to answer');
    stop = true;
    await loop;
    expect(failures).toEqual([]);
    expect(answers.some((a) => a.startsWith('v1 '))).toBe(true);
    expect(v2.url).toBe(url);
    expect(v2.releaseDigest).not.toBe(running.releaseDigest);
    // The old release is stopped: one process of the app is left.
    await waitUntil(() => Promise.resolve(pgrep(`node server.js ${marker}`).length), (n) => n === 1, 20_000, 'one app process');
  });

  it('keeps the serving release when a new one fails, supervised: killed, it is back within seconds', async () => {
    const before = await apps.observe({ key, externalId: id });
    const failing = await apps.update(id, desired({ GREETING: 'v2', FAIL: '1' }));
    const failed = await settled(id, key, (a) => a?.release === failing.release && a.status !== 'deploying', 'the failing release to settle');
    expect(failed).toMatchObject({ status: 'running', servingRelease: before?.release, url });
    expect(failed.failure).toMatch(/exited with code 3/);
    expect(await fetchText(url)).toMatch(/^v2 /);

    const [pid] = pgrep(`node server.js ${marker}`);
    expect(pid).toBeDefined();
    execFileSync('kill', ['-KILL', pid ?? '']);
    const back = await waitUntil(() => fetchText(url).catch(() => ''), (a) => a.startsWith('v2 ') && !a.endsWith(` ${pid}`), 15_000, 'the app to be back');
    expect(back).toMatch(/^v2 \d+$/);
    expect((await apps.observe({ key, externalId: id }))?.servingRelease).toBe(before?.release);
  });

  it('keeps serving when the SSH connection and the driver are gone; a new driver finds it running', async () => {
    const before = await apps.observe({ key, externalId: id });
    await apps.close();
    await fixture.access.connections.close();
    expect(await fetchText(url)).toMatch(/^v2 /);

    const connections = new SshConnections();
    const access: SshAccess = { connections, identity: () => fixture.access.identity(), pins: new MemoryHostKeyPins() };
    options = { ...fixture.options, hosts: new SshHosts(access) };
    apps = new SshApps(options);
    const after = await apps.observe({ key, externalId: id });
    expect(after).toMatchObject({ status: 'running', releaseDigest: before?.releaseDigest, release: before?.release, servingRelease: before?.servingRelease, url });
    laterConnections.push(connections);
  });

  it('reads the logs: the app\'s own lines and cairn\'s, timestamped on the host, oldest first', async () => {
    const lines = await apps.logs(id, { tail: 1000 });
    expect(lines.some((l) => l.stream === 'stdout' && l.line === 'starting v1')).toBe(true);
    expect(lines.some((l) => l.stream === 'stderr' && l.line === 'refusing to start: FAIL is set')).toBe(true);
    expect(lines.some((l) => l.stream === 'system' && /release \d+ failed: .*keeps serving/.test(l.line))).toBe(true);
    expect(lines.some((l) => l.stream === 'system' && /restarting it in/.test(l.line))).toBe(true);
    const times = lines.map((l) => Date.parse(l.ts));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(await apps.logs(id, { tail: 2 })).toEqual(lines.slice(-2));
  });

  it('stops with state stopped, and runs again with state running', async () => {
    await apps.update(id, desired({ GREETING: 'v3' }, { state: 'stopped' }));
    await settled(id, key, (a) => a?.status === 'stopped', 'the app to stop');
    await waitUntil(() => Promise.resolve(pgrep(`node server.js ${marker}`).length), (n) => n === 0, 20_000, 'no app process');
    await expect(fetchText(url)).rejects.toThrow();
    await apps.update(id, desired({ GREETING: 'v3' }));
    await settled(id, key, (a) => a?.status === 'running', 'the app to run again');
    expect(await fetchText(url)).toMatch(/^v3 /);
  });

  it('keeps serving when a build fails, and says why', async () => {
    const before = await apps.observe({ key, externalId: id });
    const broken = await apps.update(id, desired({ GREETING: 'v4' }, { build: 'echo compiling; echo broken >&2; exit 4' }));
    const after = await settled(id, key, (a) => a?.release === broken.release && a.status !== 'deploying', 'the broken build to settle');
    expect(after).toMatchObject({ status: 'running', servingRelease: before?.release });
    expect(after.failure).toMatch(/the build exited with code 4: .*broken/);
    expect(await fetchText(url)).toMatch(/^v3 /);
    const logs = await apps.logs(id, { tail: 20 });
    expect(logs).toContainEqual(expect.objectContaining({ stream: 'stdout', line: 'compiling' }));
  });

  it('starts a release with no command from the Procfile web: line it detects before the upload', async () => {
    writeFileSync(join(sourceDir, 'Procfile'), `web: exec node server.js ${marker}\n`);
    try {
      // The same greeting as the serving release (the next tests expect v3), from a new process.
      const before = await fetchText(url);
      const detected = await apps.update(id, desired({ GREETING: 'v3' }, { command: null }));
      const after = await settled(id, key, (a) => a?.release === detected.release && a.status !== 'deploying', 'the detected release to settle');
      expect(after).toMatchObject({ status: 'running', release: detected.release });
      expect(after.servingRelease ?? null).toBeNull();
      const served = await fetchText(url);
      expect(served).toMatch(/^v3 /);
      expect(served).not.toBe(before);
      const logs = await apps.logs(id, { tail: 50 });
      expect(logs).toContainEqual(expect.objectContaining({ stream: 'system', line: expect.stringContaining(`detected procfile: build (none); start exec node server.js ${marker}`) }));
    } finally {
      rmSync(join(sourceDir, 'Procfile'), { force: true });
    }
  });

  it('finds the app on its host by key when cairn\'s data dir is lost: no second app', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-ssh-lost-'));
    const fresh = new SshApps({ ...options, dataDir, index: RuntimeIndex.of(dataDir) });
    try {
      const again = await fresh.create(key, desired({ GREETING: 'v3' }));
      expect(again.id).toBe(id);
      expect(again.status).toBe('running');
      expect(readdirSync(join(fixture.runtimeDir, 'records', 'apps'))).toEqual([`${id}.json`]);
    } finally {
      await fresh.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reports a rollout cut short by cairn stopping with no digest, the old release serving; the next update rolls out', async () => {
    const before = await apps.observe({ key, externalId: id });
    const cut = await apps.update(id, desired({ GREETING: 'v5' }));
    await apps.close();
    apps = new SshApps(options);
    const seen = await apps.observe({ key, externalId: id });
    expect(seen).toMatchObject({ status: 'running', release: cut.release, releaseDigest: null, servingRelease: before?.servingRelease ?? before?.release });
    expect(seen?.failure).toMatch(/cut short/);
    expect(await fetchText(url)).toMatch(/^v3 /);
    const again = await apps.update(id, desired({ GREETING: 'v5' }));
    const done = await settled(id, key, (a) => a?.release === again.release && a.status === 'running' && a.servingRelease === null, 'the next rollout');
    expect(done.releaseDigest).toBe(cut.releaseDigest);
    expect(await fetchText(url)).toMatch(/^v5 /);
  });

  it('deletes the app: no process, no directory, no OS user, no record', async () => {
    const appDir = join(fixture.runtimeDir, 'apps', id);
    expect(existsSync(appDir)).toBe(true);
    const user = `cairn-app-${id.replace(/^app-/, '').replace(/-/g, '').slice(0, 12)}`;
    expect(readFileSync('/etc/passwd', 'utf8')).toContain(`${user}:`);
    await apps.delete(id);
    expect(pgrep(marker)).toEqual([]);
    expect(existsSync(appDir)).toBe(false);
    expect(existsSync(join(fixture.runtimeDir, 'records', 'apps', `${id}.json`))).toBe(false);
    expect(readFileSync('/etc/passwd', 'utf8')).not.toContain(`${user}:`);
    await expect(fetchText(url)).rejects.toThrow();
    expect(await apps.observe({ key, externalId: id })).toBeNull();
  });

  it('refuses bad input before anything is made', async () => {
    await expect(apps.create(`bad-${randomUUID()}`, desired({ 'NOT-A-NAME': 'x' }))).rejects.toThrow(/spec.env name "NOT-A-NAME"/);
    await expect(apps.create(`bad-${randomUUID()}`, desired({}, { source: { path: '/etc' } }))).rejects.toThrow(/outside the directories apps may run from/);
    await expect(apps.create(`bad-${randomUUID()}`, desired({}, { source: { image: 'nginx:1' } }))).rejects.toThrow(/docker or podman/);
    // A migration's unpacked source under the data dir is a place apps may come from (CAIRN_LOCAL_SOURCE_DIRS does not name it): only its absence is refused.
    const unpacked = join(migrationSourcesRoot(options.dataDir), 'default', randomUUID(), 'shop');
    await expect(apps.create(`bad-${randomUUID()}`, desired({}, { source: { path: unpacked } }))).rejects.toThrow(`spec.source.path ${unpacked} is not a directory on cairn's host`);
    expect(existsSync(join(fixture.runtimeDir, 'records', 'apps')) ? execFileSync('ls', [join(fixture.runtimeDir, 'records', 'apps')], { encoding: 'utf8' }).trim() : '').toBe('');
  });
});
