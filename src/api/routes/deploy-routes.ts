/**
 * @module `POST /deploy`: the seed's one-call deploy of a server, database or app by provider,
 * region and size (src/api/deploy-request.ts); all of it is written at once, then converged
 * like any other resource.
 */
import { Router } from 'express';
import { allowed } from '../authentication.js';
import { deployManifests, endpointOf, recordDeploy } from '../deploy-request.js';
import type { ApiDeps } from '../deps.js';
import type { ProviderCatalogs } from '../provider-catalog.js';

export function deployRoutes(deps: ApiDeps, catalogs: ProviderCatalogs): Router {
  const router = Router();
  const { store } = deps;

  router.post('/deploy', async (req, res) => {
    const principal = allowed(res, 'write');
    const target = recordDeploy(store, principal.tenant, await deployManifests(store, principal.tenant, req.body, catalogs));
    deps.afterWrite();
    res.status(202).json({ id: target.uid, status: target.status.phase, endpoint: endpointOf(target) });
  });

  return router;
}
