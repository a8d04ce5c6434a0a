/**
 * @module `GET /events` (what the reconciler did, newest first, optionally for one resource)
 * and `GET /operations/{id}` (how a power action, restore or rotation went).
 */
import { Router } from 'express';
import { NotFoundError } from '../../model/errors.js';
import { decodeCursor, encodeCursor } from '../../store/paging.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { pageRequest, queryText } from '../pagination.js';
import { operationRecord } from '../records/operation-record.js';
import { pathId } from '../respond.js';

export function eventRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.get('/events', (req, res) => {
    const principal = allowed(res, 'read');
    const { limit, cursor } = pageRequest(req);
    const resourceId = queryText(req, 'resource_id');
    const beforeId = cursor === undefined ? undefined : Number(decodeCursor(cursor, 1)[0]);
    const rows = store.events.list({
      tenant: principal.tenant, limit: limit + 1,
      ...(resourceId !== undefined ? { uid: resourceId } : {}), ...(beforeId !== undefined ? { beforeId } : {}),
    });
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    res.json({
      items: items.map((e) => ({
        id: String(e.id), resource_id: e.uid, kind: e.kind, namespace: e.namespace, name: e.name,
        type: e.type, reason: e.reason, message: e.message, created_at: e.createdAt, count: e.count, last_seen_at: e.lastSeenAt,
      })),
      next_cursor: rows.length > limit && last ? encodeCursor([last.id]) : null,
    });
  });

  router.get('/operations/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const action = store.actions.get(pathId(req));
    if (!action || action.tenant !== principal.tenant) throw new NotFoundError(`no operation has id ${pathId(req)}`);
    res.json(operationRecord(action));
  });

  return router;
}
