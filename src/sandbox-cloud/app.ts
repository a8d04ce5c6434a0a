/**
 * @module The sandbox cloud's express app: stats, latency, bearer auth, rate limit and fault
 * injection in front of every /v1 route, then the routes, then one JSON error middleware.
 */
import express, { type Express } from 'express';
import { SandboxApiError } from './api-error.js';
import { bearerAuth } from './bearer-auth.js';
import type { FaultInjector } from './fault-injection.js';
import { errorMiddleware } from './reply.js';
import type { RequestStats } from './request-stats.js';
import { appLogRoutes } from './routes/app-log-routes.js';
import { appRoutes } from './routes/app-routes.js';
import { backupRoutes } from './routes/backup-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { databaseAccessRoutes } from './routes/database-access-routes.js';
import { databaseRoutes } from './routes/database-routes.js';
import type { RouteContext } from './routes/route-context.js';
import { serverRoutes } from './routes/server-routes.js';

export interface SandboxAppDeps extends RouteContext {
  stats: RequestStats;
  faults: FaultInjector;
  token: string | undefined;
}

export function createSandboxApp(deps: SandboxAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/v1', (req, res, next) => {
    deps.stats.recordRequest(req.method, req.baseUrl + req.path);
    res.setHeader('X-Sandbox-Simulated', 'true');
    next();
  });
  // The body is read as it arrives, before the added latency: a slow vendor has the whole request
  // and acts on it even when the caller stops waiting for the answer (as a real one does).
  app.use(express.json({ limit: '1mb' }));
  app.use('/v1', deps.faults.latency(), bearerAuth(deps.token), deps.faults.inject());
  app.use(catalogRoutes());
  app.use(serverRoutes(deps));
  app.use(databaseRoutes(deps));
  app.use(databaseAccessRoutes(deps));
  app.use(backupRoutes(deps));
  app.use(appRoutes(deps));
  app.use(appLogRoutes(deps));
  app.use((req, _res, next) => {
    next(new SandboxApiError(404, 'not_found', `no route ${req.method} ${req.path} in the sandbox cloud's API`));
  });
  app.use(errorMiddleware);
  return app;
}
