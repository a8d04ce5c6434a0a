/**
 * @module The SSH runtime's apps: the local runtime's behaviour (src/drivers/local/apps.ts) on a
 * server reached over SSH. Each deploy is a numbered release: the source (a git checkout cairn
 * makes through its outbound guard, or an allowed path) is uploaded as a tar stream into
 * `<runtime dir>/apps/<id>/releases/<n>`, built there by `sh -c <build>` as the app's own OS user
 * (`cairn-app-<short id>` when cairn logs in as root), started under cairn's supervisor (a systemd
 * unit where the host runs systemd, else detached with setsid + nohup) on a free port,
 * health-checked on the host, and only then put behind the app's stable port — a small proxy
 * cairn installs (python3) — after which the previous release is stopped. A failed release
 * leaves the previous one serving and supervised (`servingRelease`). Everything runs as the
 * host's own processes: apps keep running when the SSH connection drops or cairn restarts, and
 * the host's record of each app (remote-host.ts) says what serves and from which configuration.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AppDesired, AppLogLine, AppObserved, AppRuntime, CallOptions, ExternalRef, VendorAppStatus } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { checkOutGit } from '../local/git-checkout.js';
import { releaseDigestOf } from '../local/apps.js';
import { allowedSourcePath, migrationSourcesRoot } from '../../security/host-access.js';
import { RemoteCommandError } from '../../ssh/session.js';
import { quoteShellArg, shellCommand } from '../../ssh/shell-quote.js';
import { BUILD_SCRIPT, DELETE_SCRIPT, HEALTH_CHECK_SCRIPT, PREPARE_RELEASE_SCRIPT, RETIRE_SCRIPT, START_RELEASE_SCRIPT, SWITCH_SCRIPT } from './app-host-scripts.js';
import { logFiles, parseLogLines } from './app-log-lines.js';
import { AppServices, type ServiceRef } from './app-services.js';
import { planBuild, type BuildPlan } from '../kit/buildpacks.js';
import { uploadDirectory } from './app-upload.js';
import type { RemoteHost } from './remote-host.js';
import type { SshRuntimeOptions } from './runtime-options.js';

const BUILD_TIMEOUT_MS = 15 * 60_000;
const HEALTH_TIMEOUT_S = 60;
const RELEASES_KEPT = 3;
/** How long the old release keeps running after the switch, for the requests it is answering. */
const DRAIN_MS = 1_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type HostAppStatus = 'creating' | 'deploying' | 'running' | 'failed' | 'stopped';

interface ServingRelease {
  release: number;
  port: number;
  commit: string | null;
}

/** What the host keeps of an app (records/apps/<id>.json). */
export interface AppHostRecord {
  id: string;
  key: string;
  name: string;
  serverId: string;
  serverAddress: string | null;
  /** The newest numbered release. */
  release: number;
  releaseDigest: string | null;
  status: HostAppStatus;
  /** The release being rolled out while status is `deploying`. */
  rollingOut: number | null;
  serving: ServingRelease | null;
  /** The stable port the proxy listens on, once it has. */
  proxyPort: number | null;
  /** The port asked for (spec.port) when the proxy was started. */
  proxyWanted: number | null;
  failure: string | null;
  /** The OS user the app runs as ('' when it runs as the SSH user). */
  user: string;
}

interface Rollout {
  release: number;
  abort: AbortController;
  done: Promise<void>;
}

/** argv: log file, text. One system line, stamped with the host's clock like the supervisor's lines. */
const SAY_SCRIPT = `t=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ); case $t in *N*) t=$(date -u +%Y-%m-%dT%H:%M:%S.000Z);; esac; printf '%s system %s\\n' "$t" "$2" >> "$1"`;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function shortId(id: string): string {
  return id.replace(/^app-/, '').replace(/-/g, '').slice(0, 12);
}

/** The env file: one `NAME='value'` line each, quoted for the supervisor's `.` (set -a). */
export function envFileText(env: Record<string, string>): string {
  return Object.entries(env).map(([name, value]) => `${name}=${quoteShellArg(value)}\n`).join('');
}

export class SshApps implements AppRuntime {
  private readonly records = new Map<string, AppHostRecord>();
  private readonly rollouts = new Map<string, Rollout>();
  private readonly services = new WeakMap<RemoteHost, AppServices>();

  constructor(private readonly options: SshRuntimeOptions) {}

  /**
   * Where a path source may be uploaded from: the operator's directories, and the source
   * tarballs migrations unpacked under the data dir (the reconciler keeps each tenant to its own).
   */
  private allowedPath(sourcePath: string): ReturnType<typeof allowedSourcePath> {
    return allowedSourcePath(sourcePath, process.env, [migrationSourcesRoot(this.options.dataDir)]);
  }

  // ---------------------------------------------------------------- finding apps and hosts

  private async hostOf(entry: { target: Parameters<SshRuntimeOptions['hosts']['host']>[0] }, options?: CallOptions): Promise<RemoteHost> {
    return this.options.hosts.host(entry.target, options);
  }

  private servicesOf(host: RemoteHost): AppServices {
    let services = this.services.get(host);
    if (!services) {
      services = new AppServices(host);
      this.services.set(host, services);
    }
    return services;
  }

  /** The host's record of an app (this process's copy once read). */
  private async recordOf(host: RemoteHost, id: string, options?: CallOptions): Promise<AppHostRecord | undefined> {
    const cached = this.records.get(id);
    if (cached) return cached;
    const found = (await host.records<AppHostRecord>('apps', options)).find((r) => r.id === id);
    if (found) this.records.set(id, found);
    return found;
  }

  private async save(host: RemoteHost, record: AppHostRecord): Promise<void> {
    this.records.set(record.id, record);
    await host.putRecord('apps', record.id, record);
  }

  private appDir(host: RemoteHost, id: string): string {
    return host.path('apps', id);
  }

  private service(host: RemoteHost, id: string, name: string): ServiceRef {
    const app = this.appDir(host, id);
    return { dir: `${app}/services/${name}`, log: `${app}/logs/app.log`, unit: `cairn-${id}-${name}.service` };
  }

  private toObserved(record: AppHostRecord): AppObserved {
    const live = this.rollouts.get(record.id);
    let status: VendorAppStatus = record.status === 'creating' ? 'deploying' : record.status;
    let failure = record.failure;
    let releaseDigest = record.releaseDigest;
    if (record.status === 'deploying' && live?.release !== record.rollingOut) {
      // Cut short by a cairn that stopped: what serves keeps serving; no digest, so the reconciler rolls it out again.
      status = record.serving ? 'running' : 'failed';
      failure = `release ${record.rollingOut ?? record.release} was cut short (cairn stopped during its rollout); it is rolled out again by the next update`;
      releaseDigest = null;
    }
    const serving = record.serving?.release;
    return {
      id: record.id, name: record.name, clientToken: record.key, serverId: record.serverId, status,
      url: record.proxyPort === null || record.serverAddress === null ? null : `http://${record.serverAddress}:${record.proxyPort}`,
      releaseDigest, release: record.release, commit: record.serving?.commit ?? null,
      ...(failure !== null ? { failure } : {}),
      servingRelease: serving !== undefined && serving !== record.release ? serving : null,
    };
  }

  async observe(ref: ExternalRef, options?: CallOptions): Promise<AppObserved | null> {
    const entry = this.options.index.find('app', ref);
    if (!entry) return null;
    const record = await this.recordOf(await this.hostOf(entry, options), entry.id, options);
    return record ? this.toObserved(record) : null;
  }

  // ---------------------------------------------------------------- create, update

  async create(key: string, desired: AppDesired, options?: CallOptions): Promise<AppObserved> {
    const indexed = this.options.index.find('app', { key });
    if (indexed) {
      const record = await this.recordOf(await this.hostOf(indexed, options), indexed.id, options);
      if (record) return record.status === 'creating' && !this.rollouts.has(record.id) ? this.deploy(record.id, desired, options) : this.toObserved(record);
    }
    const target = this.options.targetFor(desired.placement);
    const host = await this.options.hosts.host(target, options);
    await this.checkSource(host, desired);
    // A lost data dir must not make a second app: the host's own records are asked by key.
    const onHost = (await host.records<AppHostRecord>('apps', options)).find((r) => r.key === key);
    const id = onHost?.id ?? indexed?.id ?? `app-${randomUUID()}`;
    this.options.index.put({ kind: 'app', id, key, serverId: desired.placement.serverExternalId, target });
    if (onHost) {
      this.records.set(id, onHost);
      return onHost.status === 'creating' && !this.rollouts.has(id) ? this.deploy(id, desired, options) : this.toObserved(onHost);
    }
    await this.save(host, {
      id, key, name: desired.name, serverId: desired.placement.serverExternalId, serverAddress: desired.placement.serverAddress ?? null,
      release: 0, releaseDigest: null, status: 'creating', rollingOut: null, serving: null, proxyPort: null, proxyWanted: null, failure: null,
      user: host.facts.root ? `cairn-app-${shortId(id)}` : '',
    });
    return this.deploy(id, desired, options);
  }

  update(externalId: string, desired: AppDesired, options?: CallOptions): Promise<AppObserved> {
    return this.deploy(externalId, desired, options);
  }

  /** Refuses at once what can never work on this host; changes nothing. */
  private async checkSource(host: RemoteHost, desired: AppDesired): Promise<void> {
    const { source } = desired;
    for (const name of Object.keys(desired.env)) {
      if (!ENV_NAME.test(name)) throw new VendorRejectedError(`App/${desired.name}: spec.env name ${JSON.stringify(name)} is not a valid variable name (letters, digits and _, not starting with a digit)`, { field: 'env' });
    }
    if (!host.facts.python3) {
      throw new VendorRejectedError(`App/${desired.name}: the server ${host.session.label} has no python3, which cairn's proxy for the app's stable port needs; install python3 on it (e.g. apt-get install python3)`, { field: 'server' });
    }
    if (source.image !== undefined) {
      const { code } = await host.session.run(['sh', '-c', 'command -v docker || command -v podman'], { allowFailure: true, timeoutMs: 30_000 });
      const engine = code === 0 ? 'is installed there, but image sources are not yet run by the SSH runtime' : 'neither is installed there';
      throw new VendorRejectedError(`App/${desired.name}: an image source needs docker or podman on the server ${host.session.label}; ${engine}. Use a git or path source.`, { field: 'source' });
    }
    if (source.path !== undefined) {
      const allowed = this.allowedPath(source.path);
      if ('refusal' in allowed) throw new VendorRejectedError(`App/${desired.name}: ${allowed.refusal}`, { field: 'source' });
      if (!existsSync(allowed.path) || !statSync(allowed.path).isDirectory()) {
        throw new VendorRejectedError(`App/${desired.name}: spec.source.path ${allowed.path} is not a directory on cairn's host (a path source is uploaded from there)`, { field: 'source' });
      }
    }
    // Without spec.command, the build and start are detected from the tree before it is uploaded (../kit/buildpacks.ts).
  }

  /** Numbers a new release and rolls it out in the background. */
  private async deploy(id: string, desired: AppDesired, options?: CallOptions): Promise<AppObserved> {
    const entry = this.options.index.byId('app', id);
    if (!entry) throw new VendorRejectedError(`app ${id} does not exist on this runtime`, { status: 404 });
    const host = await this.hostOf(entry, options);
    const record = await this.recordOf(host, id, options);
    if (!record) throw new VendorRejectedError(`app ${id} has no record on the server ${host.session.label}`, { status: 404 });
    await this.checkSource(host, desired);
    const release = record.release + 1;
    Object.assign(record, {
      release, status: 'deploying', rollingOut: release, releaseDigest: releaseDigestOf(desired), failure: null, name: desired.name,
      serverAddress: desired.placement.serverAddress ?? record.serverAddress,
    });
    this.rollouts.get(id)?.abort.abort();
    const abort = new AbortController();
    const rollout: Rollout = { release, abort, done: Promise.resolve() };
    this.rollouts.set(id, rollout);
    await this.save(host, record);
    rollout.done = this.rollOut(host, record, release, desired, abort.signal).finally(() => {
      if (this.rollouts.get(id) === rollout) this.rollouts.delete(id);
    });
    return this.toObserved(record);
  }

  private async rollOut(host: RemoteHost, record: AppHostRecord, release: number, desired: AppDesired, signal: AbortSignal): Promise<void> {
    const { id } = record;
    const label = `release ${release}`;
    const current = (): boolean => this.rollouts.get(id)?.release === release && !signal.aborted;
    const services = this.servicesOf(host);
    const app = this.appDir(host, id);
    const releaseDir = `${app}/releases/${release}`;
    const log = `${app}/logs/app.log`;
    let candidate: ServiceRef | undefined;
    try {
      const started = Date.now();
      const python = await services.install();
      const what = desired.source.git ? `${desired.source.git.url} at ${desired.source.git.ref}` : desired.source.path ?? '';
      const unpack = ['sh', '-c', PREPARE_RELEASE_SCRIPT, 'sh', host.facts.runtimeDir, app, releaseDir, record.user, log, `${label}: uploading ${what}`, `${label}: runs as OS user ${record.user}`];
      const { commit, plan } = await this.upload(desired, unpack, host, signal, python);
      const cwd = desired.source.git ? `${releaseDir}/${desired.source.git.path}`.replace(/\/(\.\/?)?$/, '') : releaseDir;
      const env = envFileText({ HOME: `${app}/home`, ...desired.env });
      if (plan.detected) await this.say(host, log, `${label}: detected ${plan.detected}: build ${plan.build ?? '(none)'}; start ${plan.command}`);
      if (plan.build !== null) await this.build(host, record, release, plan.build, cwd, env, commit, signal);
      if (!current()) return;
      if (desired.state === 'stopped') {
        const serving = record.serving;
        if (serving) await services.stop([this.service(host, id, `r${serving.release}`)]);
        Object.assign(record, { status: 'stopped', rollingOut: null, serving: null });
        await this.save(host, record);
        await this.say(host, log, `${label}: ready and stopped, as spec.state asks`);
        return;
      }
      candidate = this.service(host, id, `r${release}`);
      const unit = await services.unitFor(candidate, `cairn app ${desired.name} (${id}) release ${release}`);
      const { code, stdout } = await host.session.run(
        ['sh', '-c', START_RELEASE_SCRIPT, 'sh', candidate.dir, cwd, record.user, plan.command, services.supervisor, log, python,
          HEALTH_CHECK_SCRIPT, desired.healthCheckPath ?? '', String(HEALTH_TIMEOUT_S), unit],
        { stdin: env, allowFailure: true, timeoutMs: (HEALTH_TIMEOUT_S + 30) * 1000, signal },
      );
      const port = Number(/^port=(\d+)$/m.exec(stdout)?.[1]);
      if (code !== 0) throw new Error(stdout.replace(/^port=\d+\n?/m, '').trim() || `starting the release exited with code ${code}`);
      if (!current()) {
        await services.stop([candidate]);
        return;
      }
      await this.switchTo(host, record, desired, port, python, `${label}: healthy after ${Date.now() - started} ms; serving on the stable port`);
      candidate = undefined;
      // The older releases are stopped before the record says the new one serves: a cairn that
      // dies in between leaves the rollout unfinished (no digest), and the next rollout stops
      // every release but its own, so no release is left running unsupervised by the record.
      const previous = record.serving;
      if (previous && previous.release !== release) await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
      const retired = previous && previous.release !== release ? [this.service(host, id, `r${previous.release}`)] : [];
      try {
        if (host.facts.systemd && retired.length > 0) await services.stop(retired);
        await host.run(['sh', '-c', RETIRE_SCRIPT, 'sh', app, String(release - RELEASES_KEPT), String(release), ...retired.map((s) => s.dir)], { timeoutMs: 60_000 });
      } catch (error) {
        await this.say(host, log, `${label}: serving, but stopping the older releases failed (${message(error)}); the next rollout tries again`).catch(() => undefined);
      }
      Object.assign(record, { status: 'running', rollingOut: null, serving: { release, port, commit }, failure: null });
      await this.save(host, record);
    } catch (error) {
      if (candidate) await services.stop([candidate]).catch(() => undefined);
      const why = message(error);
      await this.say(host, log, `${label} failed: ${why}${record.serving ? `; release ${record.serving.release} keeps serving` : ''}`).catch(() => undefined);
      // The release that keeps serving stays supervised, so the app is still running (and says which release serves).
      if (current()) {
        Object.assign(record, { status: record.serving ? 'running' : 'failed', rollingOut: null, failure: why });
        await this.save(host, record).catch(() => undefined);
      }
    }
  }

  /**
   * Sends the source to the host, where `unpack` writes it into the release directory; the commit
   * for a git source, and the build and start commands (detected from the tree when not given).
   */
  private async upload(desired: AppDesired, unpack: readonly string[], host: RemoteHost, signal: AbortSignal, python: string): Promise<{ commit: string | null; plan: BuildPlan }> {
    const { source } = desired;
    if (source.path !== undefined) {
      const allowed = this.allowedPath(source.path);
      if ('refusal' in allowed) throw new Error(allowed.refusal);
      const plan = planBuild(desired.name, allowed.path, desired, { python });
      await uploadDirectory(host, allowed.path, unpack, signal);
      return { commit: null, plan };
    }
    if (!source.git) throw new Error('the app has no git or path source');
    const scratch = mkdtempSync(join(tmpdir(), 'cairn-ssh-app-'));
    try {
      const checkout = join(scratch, 'tree');
      const commit = await checkOutGit({ url: source.git.url, ref: source.git.ref }, checkout);
      const plan = planBuild(desired.name, resolve(checkout, source.git.path), desired, { python });
      await uploadDirectory(host, checkout, unpack, signal);
      return { commit, plan };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  private async build(host: RemoteHost, record: AppHostRecord, release: number, build: string, cwd: string, env: string, commit: string | null, signal: AbortSignal): Promise<void> {
    const service = this.service(host, record.id, `build-${release}`);
    const buildLog = `${this.appDir(host, record.id)}/logs/build-${release}.log`;
    const say = `release ${release}: ${commit ? `commit ${commit}; ` : ''}building: ${build.replace(/[\r\n]+/g, ' ')}`;
    try {
      await host.run(['sh', '-c', BUILD_SCRIPT, 'sh', service.dir, cwd, record.user, build, this.servicesOf(host).supervisor, service.log, buildLog, say], { stdin: env, timeoutMs: BUILD_TIMEOUT_MS, signal });
    } catch (error) {
      if (!(error instanceof RemoteCommandError)) throw error;
      const tail = await host.run(['tail', '-n', '5', '--', buildLog]).catch(() => '');
      const lines = tail.split('\n').filter((l) => l !== '').map((l) => l.replace(/^\S+ \S+ /, ''));
      throw new Error(`the build exited with code ${error.code ?? 'unknown'}${lines.length > 0 ? `: ${lines.join(' | ')}` : ''}`, { cause: error });
    }
  }

  /** Points the stable port at `port`: the proxy reads its target file at start and on SIGHUP. */
  private async switchTo(host: RemoteHost, record: AppHostRecord, desired: AppDesired, port: number, python: string, say: string): Promise<void> {
    const services = this.servicesOf(host);
    const proxy = this.service(host, record.id, 'proxy');
    const servicesDir = `${this.appDir(host, record.id)}/services`;
    const targetFile = `${servicesDir}/proxy-target`;
    const portFile = `${servicesDir}/proxy-port`;
    if (record.proxyPort !== null && record.proxyWanted !== desired.port) await services.stop([proxy]);
    const wanted = [desired.port, record.proxyPort].filter((p): p is number => p !== null && p > 0);
    const command = shellCommand(['exec', python, services.proxy, wanted.join(','), targetFile, portFile]);
    const unit = await services.unitFor(proxy, `cairn app ${desired.name} (${record.id}) stable port`);
    const out = await host.run(['sh', '-c', SWITCH_SCRIPT, 'sh', targetFile, String(port), proxy.dir, services.supervisor, proxy.log, portFile, command, unit, say], { timeoutMs: 60_000 });
    const bound = Number(out.trim());
    if (!Number.isInteger(bound) || bound <= 0) throw new Error(`the proxy for the stable port did not say which port it listens on (${out.trim()})`);
    Object.assign(record, { proxyPort: bound, proxyWanted: desired.port });
  }

  private async say(host: RemoteHost, log: string, text: string): Promise<void> {
    await host.run(['sh', '-c', SAY_SCRIPT, 'sh', log, text.replace(/[\r\n]+/g, ' ')]);
  }

  // ---------------------------------------------------------------- logs, delete, close

  async logs(externalId: string, query: { tail?: number; since?: string }, options?: CallOptions): Promise<AppLogLine[]> {
    const entry = this.options.index.byId('app', externalId);
    if (!entry) throw new VendorRejectedError(`app ${externalId} does not exist on this runtime`, { status: 404 });
    const host = await this.hostOf(entry, options);
    const log = `${this.appDir(host, externalId)}/logs/app.log`;
    const text = await host.run(['sh', '-c', 'for f in "$@"; do if [ -f "$f" ]; then cat "$f"; fi; done; exit 0', 'sh', ...logFiles(log)], { signal: options?.signal });
    return parseLogLines(text, query);
  }

  async delete(externalId: string, options?: CallOptions): Promise<void> {
    const entry = this.options.index.byId('app', externalId);
    if (!entry) return;
    const rollout = this.rollouts.get(externalId);
    this.rollouts.delete(externalId);
    rollout?.abort.abort();
    await rollout?.done;
    const host = await this.hostOf(entry, options);
    const record = await this.recordOf(host, externalId, options);
    const user = record?.user ?? (host.facts.root ? `cairn-app-${shortId(externalId)}` : '');
    await host.run(['sh', '-c', DELETE_SCRIPT, 'sh', this.appDir(host, externalId), externalId, user, host.facts.systemd ? '1' : '0'], { timeoutMs: 120_000 });
    await host.dropRecord('apps', externalId);
    this.records.delete(externalId);
    this.options.index.remove('app', externalId);
  }

  /** Waits for rollouts under way (cut short); the apps themselves keep running on their hosts. */
  async close(): Promise<void> {
    const running = [...this.rollouts.values()];
    this.rollouts.clear();
    for (const rollout of running) rollout.abort.abort();
    await Promise.allSettled(running.map((r) => r.done));
  }
}
