/**
 * @module Who is calling: the bearer token (an access token or an API token) becomes a
 * Principal on `res.locals`, and each route states the permission it needs. A missing or bad
 * token is 401 with `WWW-Authenticate: Bearer`; a role that does not allow it is 403.
 */
import type { RequestHandler, Response } from 'express';
import type { AuthService } from '../auth/auth-service.js';
import type { Principal } from '../auth/principal.js';
import { roleAllows, type Permission } from '../auth/roles.js';
import { ForbiddenError } from '../model/errors.js';

const WORDS: Record<Permission, string> = {
  read: 'read resources',
  write: 'create, change or delete resources',
  read_credentials: 'read or rotate credentials',
  manage_tokens: 'manage API tokens',
  manage_members: 'manage members',
  manage_billing: 'manage billing',
};

export function authenticate(auth: AuthService): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await auth.authenticate(req.get('Authorization'));
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('route reached without authentication; mount it behind authenticate()');
  return principal;
}

/** The caller's principal, once its role allows `permission` (403 otherwise). */
export function allowed(res: Response, permission: Permission): Principal {
  const principal = principalOf(res);
  if (!roleAllows(principal.role, permission)) {
    throw new ForbiddenError(`role ${principal.role} may not ${WORDS[permission]}`);
  }
  return principal;
}
