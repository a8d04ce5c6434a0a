/**
 * @module `/auth` and `/tokens`: sign-in with e-mail and password, refresh (rotating), logout,
 * who am I, and API tokens for CI (shown once, stored hashed).
 */
import { Router, type RequestHandler } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import type { Role } from '../../auth/roles.js';
import { allowed, principalOf } from '../authentication.js';
import { listBody, pageRequest } from '../pagination.js';
import { validateBody } from '../request-validation.js';
import { pathId } from '../respond.js';

/** Routes that need no bearer token: they are how one gets a token. */
export function signInRoutes(auth: AuthService): Router {
  const router = Router();
  router.post('/auth/login', async (req, res) => {
    const body = validateBody<{ email: string; password: string; tenant?: string }>('post', '/auth/login', req.body);
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    res.setHeader('Cache-Control', 'no-store');
    res.json(await auth.login(body.email, body.password, address, body.tenant));
  });
  router.post('/auth/refresh', async (req, res) => {
    const body = validateBody<{ refresh_token: string }>('post', '/auth/refresh', req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await auth.refresh(body.refresh_token));
  });
  return router;
}

export function sessionRoutes(auth: AuthService): Router {
  const router = Router();
  router.post('/auth/logout', (req, res) => {
    validateBody('post', '/auth/logout', req.body ?? {});
    auth.logout(principalOf(res));
    res.status(204).end();
  });
  router.get('/auth/me', (_req, res) => {
    res.json(auth.me(principalOf(res)));
  });

  router.post('/tokens', (req, res) => {
    const principal = allowed(res, 'manage_tokens');
    const body = validateBody<{ name: string; role: Role; expires_in_days?: number }>('post', '/tokens', req.body);
    const created = auth.createApiToken(principal, { name: body.name, role: body.role, expiresInDays: body.expires_in_days ?? null });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ ...created.record, token: created.token });
  });
  router.get('/tokens', (req, res) => {
    const principal = allowed(res, 'manage_tokens');
    res.json(listBody(auth.listApiTokens(principal, pageRequest(req)), (t) => t));
  });
  const revoke: RequestHandler = (req, res) => {
    const principal = allowed(res, 'manage_tokens');
    auth.revokeApiToken(principal, pathId(req));
    res.status(204).end();
  };
  router.delete('/tokens/:id', revoke);
  return router;
}
