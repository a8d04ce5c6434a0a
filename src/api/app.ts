/**
 * @module The HTTP face of cairn: health, metrics, JWKS and the OpenAPI document at the root;
 * the REST API v1 under `/api/v1` and its alias `/v1`; the Kubernetes API for kubectl
 * (`/apis/cairn.dev/v1`, discovery, OpenAPI v3). Every error is problem+json; every
 * request has an id (in the response header and the log line).
 */
import express, { Router, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { UnsupportedMediaTypeError } from '../model/errors.js';
import { authenticate } from './authentication.js';
import { commitBeforeAnswering } from './durable-answers.js';
import { dashboardAssets, defaultDashboardDir } from './dashboard-assets.js';
import type { ApiDeps } from './deps.js';
import { healthRouter, type ReadinessProbe } from './health.js';
import { httpMetrics } from './http-metrics.js';
import { idempotentPosts } from './idempotency.js';
import { isKubernetesPath, kubeApiRouter } from './kube/kube-api.js';
import type { WatchTiming } from './kube/kube-watch.js';
import { metricsRouter } from './metrics.js';
import { openApiDocument } from './openapi-document.js';
import { notFoundHandler, problemHandler } from './problem.js';
import { ProviderCatalogs } from './provider-catalog.js';
import { requestLog } from './request-log.js';
import { appRoutes } from './routes/app-routes.js';
import { appWebhookRoutes } from './routes/app-webhook-routes.js';
import { billingRoutes, billingWebhookRoutes } from './routes/billing-routes.js';
import { sessionRoutes, signInRoutes } from './routes/auth-routes.js';
import { identityRoutes, identitySignInRoutes } from './routes/identity-routes.js';
import { identitySignInFromEnv } from '../auth/identity-providers/identity-sign-in.js';
import { databaseRoutes } from './routes/database-routes.js';
import { deployRoutes } from './routes/deploy-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { manifestRoutes, YAML_TYPES } from './routes/manifest-routes.js';
import { migrationRoutes } from './routes/migration-routes.js';
import { createMigrationService } from '../migrations/migration-service.js';
import { providerRoutes } from './routes/provider-routes.js';
import { serverRoutes } from './routes/server-routes.js';
import { sshKeyRoutes } from './routes/ssh-key-routes.js';
import { alertRoutes } from './routes/alert-routes.js';
import { reconcileRoutes } from './routes/reconcile-routes.js';
import { sourceRoutes, sourceWebhookRoutes } from './routes/source-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { preferenceRoutes } from './routes/preference-routes.js';
import { watchRoutes } from './routes/watch-routes.js';
import type { DashboardWatchTiming } from './watch-stream.js';
import { bearerFromWebSocketSubprotocol, terminalRoutes } from './terminal/terminal-route.js';

export const BODY_LIMIT = '1mb';
export const API_PREFIXES = ['/api/v1', '/v1'] as const;

export interface ApiAppOptions extends ApiDeps {
  logger: Logger;
  metrics: Registry;
  readiness: ReadinessProbe;
  /** How watches on the Kubernetes endpoint poll and send bookmarks (tests shorten it). */
  watchTiming?: WatchTiming;
  /** How the dashboard's `GET /watch` polls and how often it sends heartbeats (tests shorten it). */
  dashboardWatchTiming?: DashboardWatchTiming;
  /** Where the built dashboard is (default: this package's dist/web); nothing is served at `/` when it was not built. */
  dashboardDir?: string;
}

/** A body that is not JSON (or YAML, where taken) is 415 rather than a confusing 422. */
const requireKnownBodyType: RequestHandler = (req, _res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody || req.is(['application/json', 'application/*+json', ...YAML_TYPES])) {
    next();
    return;
  }
  next(new UnsupportedMediaTypeError(`send the body as application/json${req.path.endsWith('/manifests') ? ' or application/yaml' : ''}, not ${req.get('Content-Type') ?? 'without a Content-Type'}`));
};

/** YAML is only for `POST /manifests`. */
const yamlOnlyForManifests: RequestHandler = (req, _res, next) => {
  if (typeof req.body === 'string' && !req.path.endsWith('/manifests')) {
    next(new UnsupportedMediaTypeError('only POST /manifests takes application/yaml; send application/json'));
    return;
  }
  next();
};

function v1Router(options: ApiAppOptions): Router {
  const catalogs = new ProviderCatalogs(options.drivers);
  const identitySignIn = options.identitySignIn ?? identitySignInFromEnv(options.store, options.auth, process.env);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  router.use(signInRoutes(options.auth));
  router.use(identitySignInRoutes(identitySignIn));
  router.use(sourceWebhookRoutes(options));
  router.use(appWebhookRoutes(options));
  router.use(billingWebhookRoutes(options));
  router.use(bearerFromWebSocketSubprotocol);
  router.use(authenticate(options.auth));
  router.use(idempotentPosts(options.store.idempotencyKeys));
  router.use(sessionRoutes(options.auth));
  router.use(preferenceRoutes(options));
  router.use(watchRoutes(options, options.dashboardWatchTiming));
  router.use(identityRoutes(identitySignIn));
  router.use(providerRoutes(options, catalogs));
  router.use(sshKeyRoutes(options));
  router.use(alertRoutes(options));
  router.use(serverRoutes(options, catalogs));
  router.use(terminalRoutes(options));
  router.use(databaseRoutes(options));
  router.use(appRoutes(options));
  router.use(deployRoutes(options, catalogs));
  router.use(manifestRoutes(options));
  router.use(eventRoutes(options));
  router.use(sourceRoutes(options));
  router.use(webhookRoutes(options));
  router.use(reconcileRoutes(options));
  router.use(billingRoutes(options));
  router.use(migrationRoutes(options, options.migrations ?? createMigrationService(options)));
  router.use(notFoundHandler);
  return router;
}

export function createApiApp(options: ApiAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Records carry the ETag of their desired state (versioning.ts); hashing every other body for
  // an ETag nobody asked for would cost a SHA-1 of each list page on every request.
  app.set('etag', false);
  app.set('trust proxy', false);
  app.use(requestLog(options.logger));
  app.use(httpMetrics(options.metrics));
  app.use(commitBeforeAnswering(options.store.commits));
  app.use(healthRouter(options.readiness));
  app.use(metricsRouter(options.metrics));
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.json(options.auth.jwks());
  });
  // The Kubernetes endpoint (kubectl's paths only) parses its own bodies and answers in Status
  // objects; every other request skips it with one test of its path.
  const kube = kubeApiRouter({ ...options, watchTiming: options.watchTiming });
  app.use((req, res, next) => (isKubernetesPath(req.path) ? kube(req, res, next) : next()));
  app.use(requireKnownBodyType);
  app.use(express.json({
    limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], strict: false,
    // Webhooks are verified against the exact bytes their sender signed.
    verify: (req, _res, buffer) => {
      if (req.url?.endsWith('/webhook')) (req as { rawBody?: Buffer }).rawBody = buffer;
    },
  }));
  app.use(express.text({ limit: BODY_LIMIT, type: YAML_TYPES }));
  app.use(yamlOnlyForManifests);
  const v1 = v1Router(options);
  for (const prefix of API_PREFIXES) app.use(prefix, v1);
  app.use(dashboardAssets(options.dashboardDir ?? defaultDashboardDir()));
  app.use(notFoundHandler);
  app.use(problemHandler((error, req) => {
    options.logger.error({ err: error, req_id: (req as { id?: unknown }).id }, 'request failed');
  }));
  return app;
}
