/**
 * @module `POST /{servers|databases|apps}/{id}/reconcile`: ask for a reconcile now, a stalled
 * resource included (the REST twin of `cairn reconcile KIND NAME`). It wakes the resource; the
 * reconciler looks at it at once and `GET` shows what it found.
 */
import { Router } from 'express';
import type { Kind } from '../../model/kinds.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { ResourceLookup } from '../records/lookup.js';
import { validateBody } from '../request-validation.js';
import { pathId } from '../respond.js';

const COLLECTIONS: ReadonlyArray<readonly [string, Exclude<Kind, 'Provider'>]> = [
  ['servers', 'Server'],
  ['databases', 'Database'],
  ['apps', 'App'],
];

export function reconcileRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;
  for (const [collection, kind] of COLLECTIONS) {
    router.post(`/${collection}/:id/reconcile`, (req, res) => {
      const principal = allowed(res, 'write');
      const resource = new ResourceLookup(store, principal.tenant).byId(kind, pathId(req));
      validateBody('post', `/${collection}/{id}/reconcile`, req.body);
      store.resources.touch(resource.uid, { tenant: principal.tenant, kind });
      deps.afterWrite();
      res.status(202).json({ id: resource.uid, kind, status: resource.status.phase, reconcile_requested_at: new Date().toISOString() });
    });
  }
  return router;
}
