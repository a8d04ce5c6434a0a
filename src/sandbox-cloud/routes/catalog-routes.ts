/**
 * @module The sandbox's read-only catalog: `/v1/regions`, `/v1/sizes`, and `/v1/account`
 * (which says plainly that this account lives in a simulated cloud).
 */
import { Router } from 'express';
import { REGIONS, SIZES } from '../catalog.js';
import { route } from '../reply.js';

export function catalogRoutes(): Router {
  const router = Router();
  router.get('/v1/regions', route(() => ({ status: 200, body: { regions: REGIONS } })));
  router.get('/v1/sizes', route(() => ({ status: 200, body: { sizes: SIZES } })));
  router.get('/v1/account', route(() => ({
    status: 200,
    body: {
      account: {
        status: 'active',
        simulated: true,
        vendor: 'sandbox',
        email: 'sandbox@cairn.invalid',
        server_limit: 1000,
        description: "cairn's sandbox cloud: a simulated vendor for tests, demos and benchmarks. Nothing it creates is real.",
      },
    },
  })));
  return router;
}
