/**
 * @module Controller mode (`cairn serve --kubernetes`): leader election through a Lease; the
 * leader runs the informers (custom resources → desired state), the status write-back
 * (status, finalizers, Events) and the reconcile loop; a replica that is not the leader waits.
 */
import { hostname } from 'node:os';
import type { Kind } from '../../model/kinds.js';
import type { Store } from '../../store/store.js';
import type { Cluster } from './cluster.js';
import { clusterEvent } from './cluster-event.js';
import { CustomResourceSync } from './custom-resource-sync.js';
import { CustomResourceInformers, type CustomResource } from './informers.js';
import { LeaderElection } from './leader-election.js';
import { StatusWriteback } from './status-writeback.js';

export interface KubernetesModeOptions {
  /** Watch only this namespace (else all); the Lease lives here too (else POD_NAMESPACE or default). */
  namespace?: string | undefined;
  /** The cairn tenant the custom resources belong to. */
  tenant: string;
  identity?: string;
  leaseName?: string;
  leaseDurationSeconds?: number;
  renewMs?: number;
  pollMs?: number;
  /** How often the informers list every kind afresh (default DEFAULT_RELIST_MS). */
  relistMs?: number;
}

export interface KubernetesModeHooks {
  startReconciling: () => void;
  stopReconciling: () => Promise<void>;
  afterWrite: () => void;
  log: (line: string) => void;
}

/** One line about a failed call: the API server's Status message when it sent one. */
export function describeKubeError(error: unknown): string {
  const e = error as { code?: unknown; body?: unknown } | undefined;
  if (typeof e?.code === 'number' && e.body !== undefined) {
    let message = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
    try {
      const parsed = JSON.parse(message) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: shown as sent
    }
    return `HTTP ${e.code}: ${message.slice(0, 300)}`;
  }
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}

export class KubernetesMode {
  private readonly informers: CustomResourceInformers;
  private readonly writeback: StatusWriteback;
  private readonly election: LeaderElection;
  private transition: Promise<void> = Promise.resolve();

  constructor(private readonly store: Store, private readonly cluster: Cluster, options: KubernetesModeOptions, private readonly hooks: KubernetesModeHooks) {
    const sync = new CustomResourceSync({
      store, cluster, tenant: options.tenant, afterWrite: hooks.afterWrite,
      warn: (object, kind, reason, message) => this.warn(object, kind, reason, message),
    });
    const run = (what: string, work: Promise<void>): void => {
      void work.catch((error: unknown) => hooks.log(`kubernetes: ${what} failed: ${describeKubeError(error)}`));
    };
    this.informers = new CustomResourceInformers(cluster, options.namespace, {
      upsert: (kind, object) => run(`syncing ${kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`, sync.upsert(kind, object)),
      remove: (kind, object) => sync.remove(kind, object),
      error: (kind, error, retryInMs) => hooks.log(`kubernetes: watching ${kind} failed (${describeKubeError(error)}); retrying in ${retryInMs} ms`),
    }, options.relistMs);
    this.writeback = new StatusWriteback({
      store, cluster, tenant: options.tenant, sync,
      lookup: (kind, namespace, name) => this.informers.get(kind, namespace, name),
      onError: (what, error) => hooks.log(`kubernetes: ${what} failed: ${describeKubeError(error)}`),
    }, options.pollMs ?? 250);
    const identity = options.identity ?? `${hostname()}-${process.pid}`;
    this.election = new LeaderElection(cluster, {
      namespace: options.namespace ?? process.env.POD_NAMESPACE ?? 'default',
      name: options.leaseName ?? 'cairn-controller',
      identity,
      leaseDurationSeconds: options.leaseDurationSeconds ?? 15,
      renewMs: options.renewMs ?? 5_000,
      onStartedLeading: () => {
        hooks.log(`kubernetes: ${identity} leads (Lease ${options.leaseName ?? 'cairn-controller'}); watching custom resources at ${cluster.server}`);
        this.transition = this.transition.then(() => {
          this.informers.start();
          this.writeback.start();
          hooks.startReconciling();
        });
      },
      onStoppedLeading: () => {
        hooks.log(`kubernetes: ${identity} no longer leads; waiting for the Lease`);
        this.transition = this.transition.then(async () => {
          await this.informers.stop();
          await this.writeback.stop();
          await hooks.stopReconciling();
        });
      },
      onError: (error) => hooks.log(`kubernetes: the Lease could not be renewed: ${describeKubeError(error)}`),
    });
  }

  isLeader(): boolean {
    return this.election.isLeader();
  }

  start(): void {
    this.election.start();
  }

  async stop(): Promise<void> {
    await this.election.stop();
    await this.transition;
  }

  private warn(object: CustomResource, kind: Kind, reason: string, message: string): void {
    this.hooks.log(`kubernetes: ${kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}: ${message}`);
    void this.cluster.core
      .createNamespacedEvent({ namespace: object.metadata.namespace ?? 'default', body: clusterEvent(kind, object, { type: 'Warning', reason, message, at: new Date() }) })
      .catch((error: unknown) => this.hooks.log(`kubernetes: recording a Warning event failed: ${describeKubeError(error)}`));
  }
}
