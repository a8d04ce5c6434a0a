/**
 * @module Custom resources become desired state owned by source `kubernetes`: each one seen is
 * applied to the store (in one tenant, its namespace kept), after cairn's finalizer is put on
 * it; a Provider's credentialsRef.secret is read from that Kubernetes Secret into cairn's
 * encrypted secrets; a resource being deleted asks the store to delete it (the reconciler then
 * deletes or orphans at the vendor, per deletionPolicy) and the finalizer comes off once the
 * store has let it go. What cannot be applied is said on the resource's Synced condition.
 *
 * The custom resource is the record (as crossplane's `crossplane.io/external-name`): cairn writes
 * the vendor id back as `cairn.dev/external-id` (status-writeback.ts), so a replica that starts
 * with an empty data dir adopts what was made instead of creating it again — told apart from a
 * user's import because the custom resource's own status says cairn recorded that id and did not
 * import it — and deletes it at the vendor before the finalizer comes off.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { CairnError } from '../../model/errors.js';
import type { Kind } from '../../model/kinds.js';
import { GROUP, KIND_NAMES, VERSION } from '../../kubernetes/kind-names.js';
import { FINALIZER, toManifest, type KubeObject } from '../../kubernetes/kube-object.js';
import { CREATED_BY_CAIRN_ANNOTATION, EXTERNAL_ID_ANNOTATION, IMPORTED_DETAIL, KEY_IDENTITY_ANNOTATION } from '../../model/resource.js';
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

  /** Sets one annotation on the custom resource (a merge patch of metadata.annotations only). */
  async annotate(kind: Kind, object: CustomResource, key: string, value: string): Promise<void> {
    await this.patch(kind, object, { metadata: { annotations: { [key]: value } } });
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
      if (!stored && finalizersOf(object).includes(FINALIZER) && recordedExternalId(object) !== undefined) {
        // Made by cairn, but this data dir never knew it: take it in, then delete it at the vendor first.
        store.resources.apply(tenant, SOURCE, [this.manifestOf(kind, object, ref.namespace)]);
        store.resources.requestDeletion(tenant, SOURCE, [ref]);
        this.deps.afterWrite();
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
      store.resources.apply(tenant, SOURCE, [this.manifestOf(kind, object, ref.namespace)]);
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

  /**
   * The manifest a custom resource stands for, with cairn's bookkeeping annotations: its
   * generation, its uid (what vendor idempotency keys derive from, so a create retried by a replica
   * that lost its data dir before the id was written back gets the first one back), and whether
   * its `cairn.dev/external-id` is one cairn created and wrote back.
   */
  private manifestOf(kind: Kind, object: CustomResource, namespace: string): ReturnType<typeof toManifest> {
    const generation = String(object.metadata.generation ?? 0);
    const own = recordedExternalId(object);
    const annotations = {
      ...(object.metadata.annotations ?? {}),
      [GENERATION_ANNOTATION]: generation,
      ...(object.metadata.uid ? { [KEY_IDENTITY_ANNOTATION]: `k8s-${object.metadata.uid}` } : {}),
      ...(own === undefined ? {} : { [CREATED_BY_CAIRN_ANNOTATION]: own }),
    };
    const asObject = { ...object, metadata: { ...object.metadata, annotations } } as unknown as KubeObject;
    return toManifest(asObject, kind, namespace);
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

/**
 * The custom resource's `cairn.dev/external-id` when cairn wrote it back for something it created:
 * its status (written only by cairn) holds the same id and does not say it was imported.
 */
export function recordedExternalId(object: CustomResource): string | undefined {
  const id = object.metadata.annotations?.[EXTERNAL_ID_ANNOTATION];
  const status = object.status as { externalId?: unknown; details?: Record<string, unknown> } | undefined;
  if (id === undefined || id === '' || status?.externalId !== id) return undefined;
  return status.details?.[IMPORTED_DETAIL] === true ? undefined : id;
}
