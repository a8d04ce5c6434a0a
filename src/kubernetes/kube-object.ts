/**
 * @module The one codec between cairn's stored resources and Kubernetes objects: metadata in
 * Kubernetes' shape (uid, resourceVersion = the store revision, generation, finalizer while the
 * vendor's side exists), status as the reconciler recorded it; and back, from an object a
 * client sent to the manifest the store takes (server-set metadata and status dropped).
 */
import { ValidationError } from '../model/errors.js';
import type { Kind } from '../model/kinds.js';
import type { AnyManifest, AnyStoredResource } from '../model/resource.js';
import { validateManifest } from '../model/schema-validator.js';
import { GROUP_VERSION, KIND_NAMES } from './kind-names.js';

export const FINALIZER = 'cairn.dev/finalizer';

/** A Kubernetes object as sent over the wire. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec?: unknown;
  status?: unknown;
  [field: string]: unknown;
}

/** Metadata the server sets; a client's values for them are ignored on writes. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'finalizers', 'selfLink', 'ownerReferences'];

export function toKubeObject(r: AnyStoredResource): KubeObject {
  const { appliedSpec: _applied, incarnation: _incarnation, ...status } = r.status;
  return {
    apiVersion: GROUP_VERSION,
    kind: r.kind,
    metadata: {
      name: r.name,
      namespace: r.namespace,
      uid: r.uid,
      resourceVersion: String(r.resourceVersion),
      generation: r.generation,
      creationTimestamp: r.createdAt.replace(/\.\d+Z$/, 'Z'),
      ...(r.deletionTimestamp ? { deletionTimestamp: r.deletionTimestamp.replace(/\.\d+Z$/, 'Z'), deletionGracePeriodSeconds: 0 } : {}),
      ...(Object.keys(r.labels).length > 0 ? { labels: r.labels } : {}),
      ...(Object.keys(r.annotations).length > 0 ? { annotations: r.annotations } : {}),
      finalizers: [FINALIZER],
    },
    spec: r.spec,
    status,
  };
}

/** The object's `metadata.resourceVersion` as a number, when the client sent one. */
export function resourceVersionOf(object: KubeObject): number | undefined {
  const value = object.metadata.resourceVersion;
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isSafeInteger(n) || n < 0) {
    throw new ValidationError(`metadata.resourceVersion must be a resourceVersion this server gave out, got ${JSON.stringify(value)}`, [{ pointer: '/metadata/resourceVersion', message: 'not a resourceVersion of this server' }]);
  }
  return n;
}

/** Checks that a body is an object of the expected kind; returns it typed. */
export function asKubeObject(body: unknown, kind: Kind): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError(`the body must be a ${kind} object`, [{ pointer: '', message: 'not an object' }]);
  }
  const object = body as Partial<KubeObject>;
  const issues = [];
  if (object.apiVersion !== GROUP_VERSION) issues.push({ pointer: '/apiVersion', message: `must be ${GROUP_VERSION}, got ${JSON.stringify(object.apiVersion)}` });
  if (object.kind !== kind) issues.push({ pointer: '/kind', message: `must be ${kind} (this is the ${KIND_NAMES[kind].plural} endpoint), got ${JSON.stringify(object.kind)}` });
  if (typeof object.metadata !== 'object' || object.metadata === null || Array.isArray(object.metadata)) issues.push({ pointer: '/metadata', message: 'must be an object' });
  if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer.slice(1)}: ${i.message}`).join('; '), issues);
  return object as KubeObject;
}

/**
 * The manifest a client's object stands for, in `namespace` (the request's): server-set
 * metadata and status dropped, everything else checked against the kind's schema.
 */
export function toManifest(object: KubeObject, kind: Kind, namespace: string): AnyManifest {
  const metadata = Object.fromEntries(Object.entries(object.metadata).filter(([key, value]) => !SERVER_METADATA.includes(key) && value !== null));
  if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
    throw new ValidationError(`the namespace of the object (${JSON.stringify(metadata.namespace)}) does not match the namespace of the request (${namespace})`, [{ pointer: '/metadata/namespace', message: 'does not match the request' }]);
  }
  const { status: _status, ...rest } = object;
  const candidate = { ...rest, metadata: { ...metadata, namespace } };
  const result = validateManifest(candidate);
  if (!result.valid) {
    throw new ValidationError(`${kind} "${typeof metadata.name === 'string' ? metadata.name : ''}" is invalid: ${result.issues.map((i) => `${i.pointer.slice(1).replaceAll('/', '.')}: ${i.message}`).join('; ')}`, result.issues);
  }
  return candidate as unknown as AnyManifest;
}
