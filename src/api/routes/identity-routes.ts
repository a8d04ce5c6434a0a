/**
 * @module Sign-in through GitHub, Google and GitLab: `GET /auth/{provider}` (302 to the
 * provider), `GET /auth/{provider}/callback` (tokens, or a 302 carrying a one-time code),
 * `POST /auth/exchange` (that code for tokens) — all without a bearer token, being how one gets
 * a token — and, behind authentication, the caller's identities: list and unlink.
 */
import { Router, type Request, type Response } from 'express';
import type { IdentitySignIn } from '../../auth/identity-providers/identity-sign-in.js';
import { displayName, PROVIDER_NAMES } from '../../auth/identity-providers/settings.js';
import type { IdentityRecord } from '../../store/identities.js';
import { MalformedRequestError, UnauthorizedError } from '../../model/errors.js';
import { principalOf } from '../authentication.js';
import { validateBody } from '../request-validation.js';
import { pathId } from '../respond.js';

function optionalQuery(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new MalformedRequestError(`the query parameter ${name} must be given once, as a string`);
  return value;
}

/** A 302 without express's HTML body (the API documents none). */
function redirect(res: Response, location: string): void {
  res.status(302).setHeader('Location', location);
  res.end();
}

function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export function identitySignInRoutes(signIn: IdentitySignIn): Router {
  const router = Router();
  for (const provider of PROVIDER_NAMES) {
    router.get(`/auth/${provider}`, async (req, res) => {
      const redirectUri = optionalQuery(req, 'redirect_uri');
      const tenant = optionalQuery(req, 'tenant');
      const location = await signIn.begin(provider, { ...(redirectUri !== undefined ? { redirectUri } : {}), ...(tenant !== undefined ? { tenant } : {}) });
      res.setHeader('Cache-Control', 'no-store');
      redirect(res, location);
    });
    router.get(`/auth/${provider}/callback`, async (req, res) => {
      const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
      const result = await signIn.callback(provider, query, clientAddress(req));
      res.setHeader('Cache-Control', 'no-store');
      if (result.kind === 'redirect') redirect(res, result.location);
      else res.json(result.tokens);
    });
  }
  // Public: the sign-in page shows a button for each configured provider before anyone signs in.
  router.get('/auth/providers', (_req, res) => {
    res.json({ items: signIn.enabledProviderNames().map((name) => ({ name, display_name: displayName(name), path: `/auth/${name}` })) });
  });
  router.post('/auth/exchange', async (req, res) => {
    const body = validateBody<{ code: string }>('post', '/auth/exchange', req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await signIn.exchange(body.code, clientAddress(req)));
  });
  return router;
}

const identityBody = (identity: IdentityRecord): Record<string, string> => ({
  id: identity.id,
  provider: identity.provider,
  subject: identity.subject,
  email: identity.email,
  created_at: identity.createdAt,
  last_used_at: identity.lastUsedAt,
});

/** The caller's identities; API tokens belong to no user, so they have none. */
export function identityRoutes(signIn: IdentitySignIn): Router {
  const router = Router();
  const userOf = (principal: ReturnType<typeof principalOf>): string => {
    if (principal.userId === null) throw new UnauthorizedError('identities belong to users: sign in as one (an API token has none)');
    return principal.userId;
  };
  router.get('/auth/identities', (_req, res) => {
    res.json({ items: signIn.list(userOf(principalOf(res))).map(identityBody) });
  });
  router.delete('/auth/identities/:id', (req, res) => {
    signIn.unlink(userOf(principalOf(res)), pathId(req));
    res.status(204).end();
  });
  return router;
}
