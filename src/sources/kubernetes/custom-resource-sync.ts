/**
 * @module Custom resources become desired state owned by source `kubernetes`: each one seen is
 * applied to the store (in one tenant, its namespace kept), after cairn's finalizer is put on
 * it; a Provider's credentialsRef.secret is read from that Kubernetes Secret into cairn's
 * encrypted secrets; a resource being deleted asks the store to delete it (the reconciler then
 * deletes or orphans at the vendor, per deletionPolicy) and the finalizer comes off once the
 * store has let it go. What cannot be applied is said on the resource's Synced condition.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { CairnError } from '../../model/errors.js';
import type { Kind } from '../../model/kinds.js';
import { GROUP, KIND_NAMES, VERSION } from '../../kubernetes/kind-names.js';
import { FINALIZER, toManifest, type KubeObject } from '../../kubernetes/kube-object.js';
import type { Store } from '../../store/store.js';
import type { Cluster } from './cluster.js';
import type { CustomResource } from './informers.js';

export const SOURCE = 'kubernetes';
/** The custom resource's metadata.generation, carried on the stored resource to map observedGeneration back. */
export const GENERATION_ANNOTATION = 'cairn.dev/kubernetes-generation';

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface SyncDeps {
  store: Store;
  cluster: Cluster;
  tenant: string;
  /** Called after each write of desired state. */
  afterWrite: () => void;
  warn: (object: CustomResource, kind: Kind, reason: string, message: string) => void;
}

function finalizersOf(object: CustomResource): string[] {
  return object.metadata.finalizers ?? [];
}

export class CustomResourceSync {
  constructor(private readonly deps: SyncDeps) {}

  private ref(kind: Kind, object: CustomResource): { kind: Kind; namespace: string; name: string } {
    return { kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name ?? '' };
  }

  private async patch(kind: Kind, object: CustomResource, body: Record<string, unknown>): Promise<void> {
    await this.deps.cluster.custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace: object.metadata.namespace ?? 'default', plural: KIND_NAMES[kind].plural, name: object.metadata.name ?? '', body },
      MERGE,
    );
  }

  /** Writes `status` through the status subresource (a merge patch). */
  async patchStatus(kind: Kind, object: CustomResource, status: Record<string, unknown>): Promise<void> {
    await this.deps.cluster.custom.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace: object.metadata.namespace ?? 'default', plural: KIND_NAMES[kind].plural, name: object.metadata.name ?? '', body: { status } },
      MERGE,
    );
  }

  /** Takes cairn's finalizer off (at the resourceVersion seen, so no one else's change is lost). */
  async releaseFinalizer(kind: Kind, object: CustomResource): Promise<void> {
    if (!finalizersOf(object).includes(FINALIZER)) return;
    await this.patch(kind, object, { metadata: { resourceVersion: object.metadata.resourceVersion, finalizers: finalizersOf(object).filter((f) => f !== FINALIZER) } });
  }

  /** A custom resource was added or changed. */
  async upsert(kind: Kind, object: CustomResource): Promise<void> {
    const { store, tenant } = this.deps;
    const ref = this.ref(kind, object);
    const stored = store.resources.find(tenant, ref);
    if (object.metadata.deletionTimestamp) {
      if (stored && stored.source === SOURCE) {
        if (stored.deletionTimestamp === null) {
          store.resources.requestDeletion(tenant, SOURCE, [ref]);
          this.deps.afterWrite();
        }
        return;
      }
      await this.releaseFinalizer(kind, object);
      return;
    }
    if (!finalizersOf(object).includes(FINALIZER)) {
      await this.patch(kind, object, { metadata: { resourceVersion: object.metadata.resourceVersion, finalizers: [...finalizersOf(object), FINALIZER] } });
    }
    try {
      if (kind === 'Provider') await this.copyCredentials(object);
      const generation = String(object.metadata.generation ?? 0);
      const annotations = { ...(object.metadata.annotations ?? {}), [GENERATION_ANNOTATION]: generation };
      const asObject = { ...object, metadata: { ...object.metadata, annotations } } as unknown as KubeObject;
      const manifest = toManifest(asObject, kind, ref.namespace);
      store.resources.apply(tenant, SOURCE, [manifest]);
      this.deps.afterWrite();
    } catch (error) {
      if (!(error instanceof CairnError)) throw error;
      const reason = error.code === 'conflict' ? 'OwnedElsewhere' : error.code === 'validation_failed' ? 'InvalidSpec' : 'SyncFailed';
      this.deps.warn(object, kind, reason, error.message);
      await this.patchStatus(kind, object, {
        conditions: [{ type: 'Synced', status: 'False', reason, message: error.message, lastTransitionTime: new Date().toISOString(), observedGeneration: object.metadata.generation ?? 0 }],
      });
    }
  }

  /** A custom resource is gone from the cluster (without waiting for cairn's finalizer). */
  remove(kind: Kind, object: CustomResource): void {
    const { store, tenant } = this.deps;
    const ref = this.ref(kind, object);
    const stored = store.resources.find(tenant, ref);
    if (stored && stored.source === SOURCE && stored.deletionTimestamp === null) {
      store.resources.requestDeletion(tenant, SOURCE, [ref]);
      this.deps.afterWrite();
    }
  }

  /** credentialsRef.secret names a Kubernetes Secret in the resource's namespace: its data becomes cairn's stored credentials. */
  private async copyCredentials(object: CustomResource): Promise<void> {
    const name = (object.spec as { credentialsRef?: { secret?: string } } | undefined)?.credentialsRef?.secret;
    if (name === undefined) return;
    const secret = await this.deps.cluster.core.readNamespacedSecret({ name, namespace: object.metadata.namespace ?? 'default' }).catch((error: unknown) => {
      this.deps.warn(object, 'Provider', 'SecretUnreadable', `Secret ${name} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
    if (!secret?.data) return;
    const bundle = Object.fromEntries(Object.entries(secret.data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
    this.deps.store.secrets.put(this.deps.tenant, 'provider-credentials', name, JSON.stringify(bundle));
  }
}
