/**
 * @module cairn's Kubernetes endpoint, served by `cairn serve` next to the REST API so that
 * `kubectl --server http://127.0.0.1:PORT --token TOKEN` works without a cluster: discovery,
 * OpenAPI v3, the kinds' resource paths, events. It only takes requests on Kubernetes paths
 * (`/apis/...`, `/openapi/v3...`, `/version`, exactly `/api` and `/api/v1`, and namespaced
 * events); everything else passes on to the REST API untouched. Errors are `Status` objects.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { NotFoundError } from '../../model/errors.js';
import { findPackageRoot } from '../../model/schema-files.js';
import { authenticate } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { kubeDiscoveryRoutes } from './kube-discovery.js';
import { kubeEventRoutes } from './kube-events.js';
import { kubeOpenApiRoutes } from './kube-openapi.js';
import { PATCH_TYPES } from './kube-patch.js';
import { kubeResourceRoutes } from './kube-routes.js';
import { kubeStatusHandler } from './kube-status.js';
import { DEFAULT_WATCH_TIMING, type WatchTiming } from './kube-watch.js';

/** Kubernetes allows 3 MiB request bodies. */
const KUBE_BODY_LIMIT = '3mb';
const KUBE_PATH = /^\/(?:apis(?:\/.*)?|openapi\/v[23](?:\/.*)?|version\/?|api\/?|api\/v1\/?|api\/v1\/namespaces\/[^/]+\/events\/?)$/;

/** Whether a path belongs to the Kubernetes endpoint rather than the REST API. */
export function isKubernetesPath(path: string): boolean {
  return KUBE_PATH.test(path);
}

/** Runs `handler` on Kubernetes paths only. */
function onKubePaths(handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (!isKubernetesPath(req.path)) {
      next();
      return;
    }
    void Promise.resolve(handler(req, res, next)).catch(next);
  };
}

const notServed: RequestHandler = (req: Request) => {
  throw new NotFoundError(`the server could not find the requested resource (${req.method} ${req.path})`);
};

export interface KubeApiOptions extends ApiDeps {
  logger: Logger;
  watchTiming?: WatchTiming | undefined;
}

/** cairn's version, from its package.json. */
function cairnVersion(): string {
  const root = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : '0.0.0';
}

export function kubeApiRouter(options: KubeApiOptions): Router {
  const router = Router();
  router.use(onKubePaths(express.json({ limit: KUBE_BODY_LIMIT, type: ['application/json', PATCH_TYPES.merge, PATCH_TYPES.json, PATCH_TYPES.strategic], strict: false })));
  router.use(onKubePaths(express.text({ limit: KUBE_BODY_LIMIT, type: PATCH_TYPES.apply })));
  router.use(onKubePaths((req, res, next) => (req.path.replace(/\/$/, '') === '/version' ? next() : authenticate(options.auth)(req, res, next))));
  router.use(kubeDiscoveryRoutes(cairnVersion()));
  router.use(kubeOpenApiRoutes());
  router.use(kubeEventRoutes(options));
  router.use(kubeResourceRoutes(options, options.watchTiming ?? DEFAULT_WATCH_TIMING));
  router.use(onKubePaths(notServed));
  router.use(kubeStatusHandler((error, req) => {
    options.logger.error({ err: error, req_id: (req as { id?: unknown }).id }, 'kubernetes request failed');
  }));
  return router;
}
