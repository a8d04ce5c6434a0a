/**
 * @module The local runtime's apps: each deploy is a numbered release — fetch the source, run
 * the build, start the command with its own PORT and the environment (database URLs included),
 * health-check it, and only then switch the app's stable endpoint to it and stop the previous
 * release. A release that fails leaves the previous one serving, still supervised (restarted
 * with backoff), and the app running with `servingRelease` naming it. Apps run inside this cairn process's lifetime: after a
 * restart of cairn the app reports no release digest, and the reconciler deploys it again.
 */
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../model/canonical-json.js';
import type { AppDesired, AppLogLine, AppObserved, AppRuntime, ExternalRef, VendorAppStatus } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { AppLog } from './app-log.js';
import { migrationSourcesRoot } from '../../security/host-access.js';
import { planBuild } from '../kit/buildpacks.js';
import { checkSource, containerEngine, fetchSource, onPath } from './app-source.js';
import { freePort } from './free-port.js';
import { appOsUser, chownTree, makeTraversable } from './os-user.js';
import type { OsUser } from './run-program.js';
import { ownershipEnv, reapOrphanedApps } from './orphaned-apps.js';
import { waitHealthy } from './health-check.js';
import type { LocalHost, Workloads } from './local-host.js';
import { findByRef, type AppRecord } from './state-file.js';
import { StableEndpoint } from './stable-endpoint.js';
import { SupervisedProcess, type ProcessSpec } from './supervised-process.js';

/** How long a new release may take to pass its health check (CAIRN_LOCAL_HEALTH_TIMEOUT_MS). */
function healthTimeoutMs(): number {
  const raw = Number(process.env.CAIRN_LOCAL_HEALTH_TIMEOUT_MS);
  return Number.isFinite(raw) && raw > 0 ? raw : 60_000;
}

const BUILD_TIMEOUT_MS = 15 * 60_000;
const RELEASES_KEPT = 3;
/** What of cairn's own environment an app inherits; nothing else (cairn's keys stay cairn's). */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'NODE_OPTIONS'];

/** The fingerprint of a release's configuration: the same configuration gives the same digest. */
export function releaseDigestOf(desired: AppDesired): string {
  const { source, build, command, port, env, healthCheckPath } = desired;
  return `sha256:${createHash('sha256').update(canonicalJson({ source, build, command, port, env, healthCheckPath })).digest('hex')}`;
}

interface Serving {
  release: number;
  process: SupervisedProcess;
  port: number;
}

/** What this process knows of an app beyond its record. */
interface LiveApp {
  status: VendorAppStatus;
  releaseDigest: string | null;
  commit: string | null;
  serving: Serving | undefined;
  /** The release being rolled out; a newer rollout supersedes it. */
  rollingOut: number | undefined;
  log: AppLog;
  endpoint: StableEndpoint | undefined;
  /** Stopped with its server (started again with it). */
  parked: boolean;
  /** Why the latest release failed, while the app is failed. */
  failure?: string;
}

export class LocalApps implements AppRuntime, Workloads {
  private readonly live = new Map<string, LiveApp>();

  /** Where apps may run from besides the operator's directories: what migrations unpacked (the reconciler keeps each tenant to its own). */
  private readonly sourceDirs: readonly string[];

  constructor(private readonly host: LocalHost) {
    this.sourceDirs = [migrationSourcesRoot(host.dataDir)];
    const reaped = reapOrphanedApps(host.root);
    for (const pid of reaped) process.emitWarning(`stopped app process ${pid}, left running by a cairn process that is gone`);
  }

  private record(ref: ExternalRef): AppRecord | undefined {
    return findByRef(this.host.state.current.apps, ref);
  }

  private byId(externalId: string): AppRecord | undefined {
    return this.host.state.current.apps.find((a) => a.id === externalId);
  }

  private liveOf(record: AppRecord): LiveApp {
    let app = this.live.get(record.id);
    if (!app) {
      app = {
        status: 'stopped', releaseDigest: null, commit: null, serving: undefined, rollingOut: undefined,
        log: new AppLog(join(this.host.appDir(record.id), 'logs')), endpoint: undefined, parked: false,
      };
      this.live.set(record.id, app);
    }
    return app;
  }

  private toObserved(record: AppRecord): AppObserved {
    const app = this.liveOf(record);
    const serving = app.serving?.release;
    return {
      id: record.id, name: record.name, clientToken: record.clientToken, serverId: record.serverId, status: app.status,
      url: `http://127.0.0.1:${app.endpoint?.port ?? record.proxyPort}`, releaseDigest: app.releaseDigest, release: record.release, commit: app.commit,
      ...(app.failure !== undefined ? { failure: app.failure } : {}),
      servingRelease: serving !== undefined && serving !== record.release ? serving : null,
    };
  }

  observe(ref: ExternalRef): Promise<AppObserved | null> {
    const record = this.record(ref);
    return Promise.resolve(record ? this.toObserved(record) : null);
  }

  async create(key: string, desired: AppDesired): Promise<AppObserved> {
    const existing = this.record({ key });
    if (existing) return this.toObserved(existing);
    if (!this.host.state.current.servers.some((s) => s.id === desired.placement.serverExternalId)) {
      throw new VendorRejectedError(`App/${desired.name}: server ${desired.placement.serverExternalId} is not a server of this host: the local vendor's servers live on the cairn that made them, so with several replicas on one store use the ssh vendor or a cloud`, { field: 'server' });
    }
    await checkSource(desired, this.sourceDirs);
    const endpoint = await StableEndpoint.listen(0);
    const record: AppRecord = { id: this.host.newId('app'), name: desired.name, clientToken: key, serverId: desired.placement.serverExternalId, proxyPort: endpoint.port, release: 0 };
    this.host.state.update((s) => s.apps.push(record));
    this.liveOf(record).endpoint = endpoint;
    return this.deploy(record.id, desired);
  }

  update(externalId: string, desired: AppDesired): Promise<AppObserved> {
    return this.deploy(externalId, desired);
  }

  /** Numbers a new release and rolls it out in the background. */
  private async deploy(externalId: string, desired: AppDesired): Promise<AppObserved> {
    const record = this.byId(externalId);
    if (!record) throw new VendorRejectedError(`app ${externalId} does not exist on this host`, { status: 404 });
    if (this.host.state.current.servers.find((s) => s.id === record.serverId)?.status === 'stopped') {
      throw new Error(`App/${desired.name}: its server ${record.serverId} is stopped; the app is deployed once the server runs again`);
    }
    await checkSource(desired, this.sourceDirs);
    const app = this.liveOf(record);
    app.endpoint ??= await StableEndpoint.listen(record.proxyPort);
    if (app.endpoint.port !== record.proxyPort) {
      const port = app.endpoint.port;
      app.log.write('system', `port ${record.proxyPort} of the stable endpoint was taken; the endpoint is now on port ${port}`);
      this.host.state.update((s) => {
        const r = s.apps.find((a) => a.id === externalId);
        if (r) r.proxyPort = port;
      });
    }
    const release = this.host.state.update((s) => {
      const r = s.apps.find((a) => a.id === externalId);
      if (!r) return record.release + 1;
      r.release += 1;
      return r.release;
    });
    app.status = 'deploying';
    app.failure = undefined;
    app.releaseDigest = releaseDigestOf(desired);
    app.rollingOut = release;
    app.parked = false;
    this.host.background(() => this.rollOut(externalId, app, release, desired));
    return this.toObserved(this.byId(externalId) ?? record);
  }

  private async rollOut(appId: string, app: LiveApp, release: number, desired: AppDesired): Promise<void> {
    const label = `release ${release}`;
    const current = (): boolean => app.rollingOut === release && this.live.get(appId) === app;
    const dir = join(this.host.appDir(appId), 'releases', String(release));
    let candidate: SupervisedProcess | undefined;
    try {
      const started = Date.now();
      const what = desired.source.git ? `${desired.source.git.url} at ${desired.source.git.ref}` : desired.source.path ?? desired.source.image ?? '';
      app.log.write('system', `${label}: fetching ${what}`);
      await rm(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const runAs = appOsUser();
      const fetched = await fetchSource(desired, dir, this.sourceDirs);
      if (fetched.commit) app.log.write('system', `${label}: commit ${fetched.commit}`);
      const env = this.environment(desired, runAs && this.homeFor(appId, runAs));
      if (runAs) {
        // The release directory becomes the app's; a path source is only made reachable (it must be readable by others).
        chownTree(dir, runAs);
        makeTraversable(fetched.cwd, runAs);
        app.log.write('system', `${label}: runs as OS user ${runAs.name}`);
      }
      const plan = desired.source.image === undefined
        ? planBuild(desired.name, fetched.cwd, desired, { python: onPath('python3') ?? null })
        : { build: null, command: desired.command ?? '' };
      if (plan.detected) app.log.write('system', `${label}: detected ${plan.detected}: build ${plan.build ?? '(none)'}; start ${plan.command}`);
      if (plan.build !== null) {
        app.log.write('system', `${label}: building: ${plan.build}`);
        await this.build(plan.build, fetched.cwd, env, app.log, runAs);
      }
      if (!current()) return;
      if (desired.state === 'stopped') {
        await this.stopServing(app);
        app.commit = fetched.commit;
        app.status = 'stopped';
        app.log.write('system', `${label}: ready and stopped, as spec.state asks`);
        return;
      }
      const port = await freePort();
      // An image runs in its container engine's isolation; the engine's client runs as cairn (it needs the engine's socket).
      const asUser = runAs && desired.source.image === undefined ? { runAs } : {};
      candidate = new SupervisedProcess({ ...(await this.processSpec(desired, plan.command, fetched.cwd, env, port)), ...asUser }, app.log, label);
      candidate.start();
      const checked = candidate;
      await waitHealthy({ port, path: desired.healthCheckPath, timeoutMs: healthTimeoutMs(), exited: () => checked.exited });
      if (!current()) {
        await candidate.stop();
        return;
      }
      const previous = app.serving;
      candidate.supervise = true;
      app.serving = { release, process: candidate, port };
      app.endpoint?.switchTo(port);
      app.status = 'running';
      app.commit = fetched.commit;
      app.log.write('system', `${label}: healthy after ${Date.now() - started} ms; serving at ${app.endpoint?.url ?? '(no endpoint)'}`);
      if (previous) await previous.process.stop();
      await this.pruneReleases(appId, release);
    } catch (error) {
      await candidate?.stop();
      const message = error instanceof Error ? error.message : String(error);
      app.log.write('system', `${label} failed: ${message}${app.serving ? `; release ${app.serving.release} keeps serving` : ''}`);
      // The release that keeps serving stays supervised, so the app is still running (and says
      // which release serves); the configuration digest stays the failed one's, so the
      // reconciler does not roll the changed source out again by itself.
      if (current()) {
        app.status = app.serving && !app.parked ? 'running' : 'failed';
        app.failure = message;
      }
    }
  }

  private environment(desired: AppDesired, home: string | undefined): NodeJS.ProcessEnv {
    const inherited = Object.fromEntries(INHERITED_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
    return { ...inherited, ...(home === undefined ? {} : { HOME: home }), ...desired.env, ...ownershipEnv(this.host.root) };
  }

  /** A home directory of the app's own, for an app that runs as another user than cairn. */
  private homeFor(appId: string, runAs: OsUser): string {
    const home = join(this.host.appDir(appId), 'home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chownSync(home, runAs.uid, runAs.gid);
    return home;
  }

  private async build(command: string, cwd: string, env: NodeJS.ProcessEnv, log: AppLog, runAs: OsUser | undefined): Promise<void> {
    const builder = new SupervisedProcess({ argv: ['/bin/sh', '-c', command], cwd, env, ...(runAs ? { runAs } : {}) }, log, 'build');
    builder.start();
    const deadline = Date.now() + BUILD_TIMEOUT_MS;
    while (builder.exited === null) {
      if (Date.now() > deadline) {
        await builder.stop();
        throw new Error(`the build did not finish within ${BUILD_TIMEOUT_MS / 60_000} minutes`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (builder.exited !== 'exited with code 0') throw new Error(`the build ${builder.exited}`);
  }

  private async processSpec(desired: AppDesired, command: string, cwd: string, env: NodeJS.ProcessEnv, port: number): Promise<ProcessSpec> {
    const withPort = { ...env, PORT: String(port) };
    if (desired.source.image === undefined) return { argv: ['/bin/sh', '-c', command], cwd, env: withPort };
    const engine = await containerEngine(desired.name);
    const inner = desired.port ?? port;
    const envArgs = Object.entries({ ...desired.env, PORT: String(inner) }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const inImage = desired.command === null ? [] : ['/bin/sh', '-c', desired.command];
    return { argv: [engine, 'run', '--rm', '--security-opt=no-new-privileges', '-p', `127.0.0.1:${port}:${inner}`, ...envArgs, desired.source.image, ...inImage], cwd, env: withPort };
  }

  private async pruneReleases(appId: string, keepFrom: number): Promise<void> {
    const releasesDir = join(this.host.appDir(appId), 'releases');
    for (const entry of await readdir(releasesDir)) {
      if (Number(entry) <= keepFrom - RELEASES_KEPT) await rm(join(releasesDir, entry), { recursive: true, force: true });
    }
  }

  private async stopServing(app: LiveApp): Promise<void> {
    app.endpoint?.switchTo(null);
    const serving = app.serving;
    app.serving = undefined;
    await serving?.process.stop();
  }

  async delete(externalId: string): Promise<void> {
    const record = this.byId(externalId);
    if (!record) return;
    const app = this.liveOf(record);
    app.rollingOut = undefined;
    await this.stopServing(app);
    await app.endpoint?.close();
    this.live.delete(externalId);
    this.host.state.update((s) => {
      s.apps = s.apps.filter((a) => a.id !== externalId);
    });
    await rm(this.host.appDir(externalId), { recursive: true, force: true });
  }

  async logs(externalId: string, query: { tail?: number; since?: string }): Promise<AppLogLine[]> {
    await Promise.resolve(); // refusals below reject the promise rather than throw
    const record = this.byId(externalId);
    if (!record) throw new VendorRejectedError(`app ${externalId} does not exist on this host`, { status: 404 });
    return this.liveOf(record).log.read(query);
  }

  async stopOn(serverId: string): Promise<void> {
    for (const record of this.host.state.current.apps.filter((a) => a.serverId === serverId)) {
      const app = this.live.get(record.id);
      if (!app?.serving) continue;
      app.endpoint?.switchTo(null);
      await app.serving.process.stop();
      app.parked = true;
      app.status = 'stopped';
    }
  }

  startOn(serverId: string): Promise<void> {
    for (const record of this.host.state.current.apps.filter((a) => a.serverId === serverId)) {
      const app = this.live.get(record.id);
      if (!app?.parked || !app.serving) continue;
      app.parked = false;
      app.serving.process.start();
      app.endpoint?.switchTo(app.serving.port);
      app.status = 'running';
    }
    return Promise.resolve();
  }

  /** Stops every app process this cairn process runs, and their endpoints. */
  async close(): Promise<void> {
    for (const app of this.live.values()) {
      app.rollingOut = undefined;
      await this.stopServing(app);
      await app.endpoint?.close();
    }
    this.live.clear();
  }
}

