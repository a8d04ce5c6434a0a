/**
 * @module The core/v1 Event cairn records on a custom resource in the cluster (what the
 * reconciler did, and warnings about what could not be synced), so `kubectl describe` shows it.
 */
import { hostname } from 'node:os';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { Kind } from '../../model/kinds.js';
import { GROUP_VERSION } from '../../kubernetes/kind-names.js';
import type { CustomResource } from './informers.js';

export interface ClusterEventFields {
  /** The Event's own name; without it the API server generates one from the object's name. */
  name?: string;
  type: string;
  reason: string;
  message: string;
  at: Date;
}

/** The Event about `object` (a `kind`), as `createNamespacedEvent` takes it. */
export function clusterEvent(kind: Kind, object: CustomResource, fields: ClusterEventFields): CoreV1Event {
  const namespace = object.metadata.namespace ?? 'default';
  return {
    metadata: { ...(fields.name !== undefined ? { name: fields.name } : { generateName: `${object.metadata.name ?? 'cairn'}.` }), namespace },
    involvedObject: {
      apiVersion: GROUP_VERSION, kind, name: object.metadata.name, namespace: object.metadata.namespace, uid: object.metadata.uid,
      ...(object.metadata.resourceVersion !== undefined ? { resourceVersion: object.metadata.resourceVersion } : {}),
    },
    reason: fields.reason,
    message: fields.message,
    type: fields.type,
    count: 1,
    firstTimestamp: fields.at,
    lastTimestamp: fields.at,
    source: { component: 'cairn' },
    reportingComponent: 'cairn',
    reportingInstance: hostname(),
  };
}
