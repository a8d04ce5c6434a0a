/**
 * @module The web dashboard at `/`: its built assets (`dist/web`, made by `npm run build`) served
 * as static files, and `index.html` for any other page path the browser asks for (the app
 * routes on the client). The fallback never shadows the API, health, metrics, JWKS or
 * Kubernetes paths: those answer as before, 404 included. Every answer carries a Content
 * Security Policy allowing this origin's scripts only (no inline script, no CDN).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import { findPackageRoot } from '../model/schema-files.js';
import { isKubernetesPath } from './kube/kube-api.js';

/** Scripts, styles, images and connections from this origin only; inline styles for xterm.js's cells. */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** Paths that belong to the server, never to the dashboard's client-side routes. */
const SERVER_PATHS = /^\/(api|v1|healthz|readyz|metrics|\.well-known|openapi)(\/|$)/;

/** Where `npm run build` puts the dashboard, in this package. */
export function defaultDashboardDir(): string {
  return join(findPackageRoot(dirname(fileURLToPath(import.meta.url))), 'dist', 'web');
}

/** Whether the dashboard was built into `dir`. */
export function dashboardBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** A page path of the dashboard's own (no file extension, not a server path). */
export function isDashboardPage(path: string): boolean {
  return !SERVER_PATHS.test(path) && !isKubernetesPath(path) && !/\.[A-Za-z0-9]+$/.test(path);
}

/** Serves the built dashboard from `dir`; a no-op when it was not built. */
export function dashboardAssets(dir: string): RequestHandler {
  if (!dashboardBuilt(dir)) return (_req, _res, next) => next();
  const files = express.static(dir, {
    index: false, fallthrough: true, redirect: false,
    setHeaders: (res, path) => {
      res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // Built assets are named by their content hash; index.html must be looked at every time.
      res.setHeader('Cache-Control', path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const index = join(dir, 'index.html');
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || SERVER_PATHS.test(req.path) || isKubernetesPath(req.path)) {
      next();
      return;
    }
    files(req, res, () => {
      if (!isDashboardPage(req.path)) {
        next();
        return;
      }
      res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index, (error) => {
        if (error) next(error);
      });
    });
  };
}
