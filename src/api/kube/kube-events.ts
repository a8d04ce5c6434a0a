/**
 * @module cairn's event log as core/v1 Events (`/api/v1/namespaces/{ns}/events`), so that
 * `kubectl describe` shows what the reconciler did; kubectl filters by `involvedObject.*`.
 * (`/api/v1/events` across namespaces is the REST API's own event list, so it is not served here.)
 */
import { Router } from 'express';
import type { RecordedEvent } from '../../store/events.js';
import { GROUP_VERSION } from '../../kubernetes/kind-names.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { parseFieldSelector } from './kube-selectors.js';

const FIELDS = ['involvedObject.name', 'involvedObject.namespace', 'involvedObject.kind', 'involvedObject.uid', 'involvedObject.apiVersion', 'metadata.namespace', 'type', 'reason'];
const MAX_EVENTS = 500;

function toKubeEvent(e: RecordedEvent): Record<string, unknown> {
  const at = e.createdAt.replace(/\.\d+Z$/, 'Z');
  const last = e.lastSeenAt.replace(/\.\d+Z$/, 'Z');
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: `${e.name}.${e.id}`, namespace: e.namespace, uid: `event-${e.id}`, resourceVersion: String(e.id), creationTimestamp: at },
    involvedObject: { apiVersion: GROUP_VERSION, kind: e.kind, name: e.name, namespace: e.namespace, uid: e.uid },
    reason: e.reason,
    message: e.message,
    type: e.type,
    count: e.count,
    firstTimestamp: at,
    lastTimestamp: last,
    source: { component: 'cairn' },
    reportingComponent: 'cairn',
    reportingInstance: '',
  };
}

function flatten(event: Record<string, unknown>): Record<string, string> {
  const involved = event.involvedObject as Record<string, string>;
  const meta = event.metadata as Record<string, string>;
  return {
    ...Object.fromEntries(Object.entries(involved).map(([k, v]) => [`involvedObject.${k}`, v])),
    'metadata.namespace': meta.namespace ?? '',
    type: String(event.type),
    reason: String(event.reason),
  };
}

export function kubeEventRoutes(deps: ApiDeps): Router {
  const router = Router();
  const list = (namespace: string | undefined, selector: string | undefined, tenant: string): Record<string, unknown> => {
    const fields = parseFieldSelector(selector, FIELDS);
    const uid = fields.equals['involvedObject.uid'];
    const items = deps.store.events
      .list({ tenant, limit: MAX_EVENTS, ...(uid !== undefined ? { uid } : {}) })
      .filter((e) => namespace === undefined || e.namespace === namespace)
      .map(toKubeEvent)
      .filter((e) => fields.matches(flatten(e)))
      .reverse();
    return { kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: String(deps.store.resources.revision()) }, items };
  };
  router.get('/api/v1/namespaces/:namespace/events', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(list(req.params.namespace, typeof req.query.fieldSelector === 'string' ? req.query.fieldSelector : undefined, principal.tenant));
  });
  return router;
}
