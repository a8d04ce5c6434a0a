/**
 * @module This host as the local vendor sees it, one per data dir per process: the record of
 * what the local vendor made (state-file.ts), the metrics sampler, the PostgreSQL clusters and
 * the apps' supervisors, and the work they run in the background. Shared by the cloud and
 * runtime drivers made for the data dir, and closed when the last of them lets go.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sealedBackupsDir } from '../../secrets/sealed-files.js';
import { HostMetricsSampler } from './host-metrics.js';
import { processAlive } from './orphaned-apps.js';
import { PostgresCluster } from './postgres-cluster.js';
import { postgresFor } from './postgres-installations.js';
import { postgresOsUser } from './postgres-os-user.js';
import type { OsUser } from './run-program.js';
import { StateFile, type DatabaseRecord } from './state-file.js';

/** Something a stopped or rebooted server does to what runs on it. */
export interface Workloads {
  stopOn(serverId: string): Promise<void>;
  startOn(serverId: string): Promise<void>;
}

export class LocalHost {
  readonly root: string;
  /** The data dir this host's records live in. */
  readonly dataDir: string;
  /** Where backups go: where `cairn keys rotate` looks for the sealed files whose keys it re-wraps. */
  private readonly backupsDir: string;
  readonly state: StateFile;
  readonly sampler: HostMetricsSampler;
  private readonly tasks = new Set<Promise<void>>();
  private readonly workloads: Workloads[] = [];
  private readonly parts = new Map<string, unknown>();
  private readonly closers: Array<() => Promise<void>> = [];
  /** Who clusters run as, once known (see postgres-os-user.ts). */
  private clusterUser: { user: OsUser | undefined } | undefined;

  constructor(dataDir: string) {
    this.dataDir = resolve(dataDir);
    this.root = join(this.dataDir, 'local');
    this.backupsDir = sealedBackupsDir(dataDir);
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    this.state = new StateFile(join(this.root, 'state.json'));
    this.sampler = new HostMetricsSampler(this.root);
    this.recoverInterruptedWork();
  }

  /**
   * Backups and restores whose cairn process is gone (it stopped or was killed) never finish:
   * say so. Work of a cairn process still running is left to it. A database whose creation was
   * interrupted stays `creating`: observe reports it, and `update` creates it again.
   */
  private recoverInterruptedWork(): void {
    const orphaned = (pid: number | undefined): boolean => pid === undefined || !processAlive(pid);
    const state = this.state.current;
    const stale =
      state.backups.some((b) => b.status === 'running' && orphaned(b.workerPid)) ||
      state.databases.some((d) => d.restores.some((r) => r.status === 'running' && orphaned(r.workerPid)));
    if (!stale) return;
    const now = new Date().toISOString();
    this.state.update((s) => {
      for (const b of s.backups) {
        if (b.status === 'running' && orphaned(b.workerPid)) Object.assign(b, { status: 'failed', completedAt: now, message: 'cairn stopped while this backup ran' });
      }
      for (const d of s.databases) {
        for (const r of d.restores) {
          if (r.status === 'running' && orphaned(r.workerPid)) Object.assign(r, { status: 'failed', message: 'cairn stopped while this restore ran' });
        }
        const busy = s.backups.some((b) => b.databaseId === d.id && b.status === 'running') || d.restores.some((r) => r.status === 'running');
        if ((d.status === 'backing_up' || d.status === 'restoring') && !busy) d.status = 'available';
      }
    });
  }

  newId(prefix: string): string {
    return `${prefix}-${randomUUID()}`;
  }

  /** The cluster of a database record. */
  cluster(db: DatabaseRecord): PostgresCluster {
    // Looked up once (it reads /etc/passwd when cairn is root): observe asks for a cluster on every resync.
    this.clusterUser ??= { user: postgresOsUser() };
    return new PostgresCluster(join(this.root, 'postgres', db.id), postgresFor(db.name, db.version), this.clusterUser.user, db.port);
  }

  backupFile(backupId: string): string {
    return join(this.backupsDir, `${backupId}.dump`);
  }

  appDir(appId: string): string {
    return join(this.root, 'apps', appId);
  }

  /** Runs `work` in the background; it records its own outcome. close() waits for it. */
  background(work: () => Promise<void>): void {
    const task = work().catch(() => undefined);
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /** The host's one `name` part (its databases, its apps), made on first use; `close` runs when the host closes. */
  part<T extends Workloads>(name: string, make: () => T, close?: (part: T) => Promise<void>): T {
    const existing = this.parts.get(name) as T | undefined;
    if (existing) return existing;
    const made = make();
    this.parts.set(name, made);
    this.workloads.push(made);
    if (close) this.closers.push(() => close(made));
    return made;
  }

  async stopWorkloads(serverId: string): Promise<void> {
    for (const w of this.workloads) await w.stopOn(serverId);
  }

  async startWorkloads(serverId: string): Promise<void> {
    for (const w of this.workloads) await w.startOn(serverId);
  }

  /** Stops what its parts run in this process (apps), waits for background work, stops the sampler. Clusters keep running. */
  async close(): Promise<void> {
    for (const close of this.closers) await close();
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
    this.sampler.close();
  }
}

interface SharedHost {
  host: LocalHost;
  holders: number;
}

const shared = new Map<string, SharedHost>();
const closing = new Map<string, Promise<void>>();

export interface LocalHostLease {
  host: LocalHost;
  release(): Promise<void>;
}

/** The data dir's local host, made on first use and shared by every local driver of this process. */
export async function acquireLocalHost(dataDir: string): Promise<LocalHostLease> {
  const key = resolve(dataDir);
  await closing.get(key);
  let entry = shared.get(key);
  if (!entry) {
    entry = { host: new LocalHost(key), holders: 0 };
    shared.set(key, entry);
  }
  entry.holders += 1;
  const held = entry;
  let released = false;
  return {
    host: held.host,
    release: async (): Promise<void> => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      shared.delete(key);
      const done = held.host.close();
      closing.set(key, done);
      try {
        await done;
      } finally {
        closing.delete(key);
      }
    },
  };
}
