/**
 * @module What the reconciler records flows back to the cluster: the status of each resource
 * owned by source `kubernetes` is written to its custom resource through the status
 * subresource (phase, conditions, observedGeneration in the custom resource's own generations,
 * endpoints), the vendor id is written back as the `cairn.dev/external-id` annotation once
 * recorded (so the custom resource alone is enough to adopt it again), cairn's finalizer comes off
 * once the store has removed the resource (after the vendor confirmed the delete, or it was
 * orphaned), and the reconciler's events become core/v1 Events on the custom resource. The store is polled; only
 * what changed since the last look is sent.
 */
import { jsonEqual } from '../../model/canonical-json.js';
import { KINDS, type Kind } from '../../model/kinds.js';
import { EXTERNAL_ID_ANNOTATION, type AnyStoredResource } from '../../model/resource.js';
import type { Store } from '../../store/store.js';
import type { Cluster } from './cluster.js';
import { clusterEvent } from './cluster-event.js';
import { GENERATION_ANNOTATION, SOURCE, type CustomResourceSync } from './custom-resource-sync.js';
import type { CustomResource } from './informers.js';

export interface WritebackDeps {
  store: Store;
  cluster: Cluster;
  tenant: string;
  sync: CustomResourceSync;
  /** The informers' cache. */
  lookup: (kind: Kind, namespace: string, name: string) => CustomResource | undefined;
  onError: (what: string, error: unknown) => void;
}

/** The custom resource's status for a stored resource, generations mapped to the custom resource's. */
export function statusFor(resource: AnyStoredResource, object: CustomResource): Record<string, unknown> {
  const crGeneration = Number(resource.annotations[GENERATION_ANNOTATION] ?? 0);
  const caughtUp = resource.status.observedGeneration === resource.generation;
  const previous = (object.status?.observedGeneration as number | undefined) ?? 0;
  const observedGeneration = caughtUp ? crGeneration : previous;
  const { appliedSpec: _a, incarnation: _i, ...status } = resource.status;
  return {
    ...status,
    observedGeneration,
    conditions: status.conditions.map((c) => ({ ...c, observedGeneration: c.observedGeneration === resource.generation ? crGeneration : previous })),
  };
}

export class StatusWriteback {
  private lastRevision = 0;
  private lastEventId = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: WritebackDeps, private readonly pollMs: number) {}

  start(): void {
    // Everything the store holds now is looked at once; events from before are not replayed.
    this.lastRevision = 0;
    this.lastEventId = this.deps.store.events.lastId();
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick().finally(() => {
        this.running = undefined;
      });
    }, this.pollMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const { store, tenant } = this.deps;
    const revision = store.resources.revision();
    if (revision > this.lastRevision) {
      let complete = true;
      for (const kind of KINDS) {
        const { changed, removed } = store.history.changesSince({ tenant, kind }, this.lastRevision);
        for (const { resource } of changed) if (resource.source === SOURCE) complete = (await this.writeStatus(resource)) && complete;
        for (const resource of removed) if (resource.source === SOURCE) complete = (await this.release(resource)) && complete;
      }
      // A write that failed is tried again on the next look.
      if (complete) this.lastRevision = revision;
    }
    await this.forwardEvents();
  }

  private async writeStatus(resource: AnyStoredResource): Promise<boolean> {
    const object = this.deps.lookup(resource.kind, resource.namespace, resource.name);
    if (!object) return true;
    const status = statusFor(resource, object);
    const externalId = resource.status.externalId;
    try {
      if (!jsonEqual({ ...object.status }, { ...object.status, ...status })) await this.deps.sync.patchStatus(resource.kind, object, status);
      // After the status, which says the id is cairn's own record (see recordedExternalId).
      if (externalId && object.metadata.annotations?.[EXTERNAL_ID_ANNOTATION] !== externalId && object.metadata.deletionTimestamp === undefined) {
        await this.deps.sync.annotate(resource.kind, object, EXTERNAL_ID_ANNOTATION, externalId);
      }
      return true;
    } catch (error) {
      this.deps.onError(`writing the status of ${resource.kind}/${resource.namespace}/${resource.name}`, error);
      return false;
    }
  }

  private async release(resource: AnyStoredResource): Promise<boolean> {
    const object = this.deps.lookup(resource.kind, resource.namespace, resource.name);
    if (!object?.metadata.deletionTimestamp) return true;
    try {
      await this.deps.sync.releaseFinalizer(resource.kind, object);
      return true;
    } catch (error) {
      this.deps.onError(`removing the finalizer of ${resource.kind}/${resource.namespace}/${resource.name}`, error);
      return false;
    }
  }

  private async forwardEvents(): Promise<void> {
    const { store, tenant, cluster } = this.deps;
    for (const event of store.events.after(this.lastEventId)) {
      this.lastEventId = event.id;
      if (event.tenant !== tenant) continue;
      const object = this.deps.lookup(event.kind, event.namespace, event.name);
      if (!object) continue;
      try {
        await cluster.core.createNamespacedEvent({
          namespace: event.namespace,
          body: clusterEvent(event.kind, object, { name: `${event.name}.cairn-${event.id}`, type: event.type, reason: event.reason, message: event.message, at: new Date(event.createdAt) }),
        });
      } catch (error) {
        this.deps.onError(`recording event ${event.reason} on ${event.kind}/${event.namespace}/${event.name}`, error);
      }
    }
  }
}
