/**
 * @module API tokens for CI: created by a signed-in user with a role no higher than their own
 * (never by another API token), shown once, stored hashed, listed and revoked per tenant.
 * Members see and revoke only their own; owners and admins all of the tenant's. A token acts
 * with the lower of its role and its creator's current role, and stops working when its
 * creator leaves the tenant.
 */
import { randomUUID } from 'node:crypto';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError, type FieldIssue } from '../model/errors.js';
import type { ApiTokenRecord } from '../store/api-tokens.js';
import type { Page, PageRequest } from '../store/paging.js';
import type { Store } from '../store/store.js';
import { API_TOKEN_PREFIX, isOpaqueToken, newOpaqueToken, tokenHash } from './opaque-tokens.js';
import type { Principal } from './principal.js';
import { isRole, lowerRole, managesAllTokens, roleAllows, roleAtMost, type Role } from './roles.js';

export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 365;
const MAX_NAME_LENGTH = 100;
/** last_used_at is written at most this often per token, so authenticating rarely writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface NewApiTokenRequest {
  name: string;
  role: Role;
  /** 1–365; omitted or null: 90. */
  expiresInDays?: number | null;
}

export interface CreatedApiToken {
  /** The token itself: shown this once, never stored. */
  token: string;
  record: ApiTokenRecord;
}

export class ApiTokenService {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  create(principal: Principal, request: NewApiTokenRequest): CreatedApiToken {
    requireTokenManager(principal);
    if (principal.tokenId !== null) throw new ForbiddenError('an API token cannot create API tokens; sign in as a user to create one');
    const { name, role, days } = validate(request);
    if (!roleAtMost(role, principal.role)) throw new ForbiddenError(`a token's role cannot exceed yours: you are ${principal.role}, the token asks for ${role}`);
    const token = newOpaqueToken(API_TOKEN_PREFIX);
    const now = this.now();
    const record = this.store.apiTokens.create({
      id: randomUUID(),
      tenant: principal.tenant,
      name,
      role,
      tokenHash: tokenHash(token),
      createdBy: principal.subject,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + days * 86_400_000).toISOString(),
    });
    this.store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'api_token.create', target: `token:${record.id}` });
    return { token, record };
  }

  list(principal: Principal, page: PageRequest): Page<ApiTokenRecord> {
    requireTokenManager(principal);
    return this.store.apiTokens.list(principal.tenant, page, managesAllTokens(principal.role) ? undefined : principal.subject);
  }

  revoke(principal: Principal, id: string): void {
    requireTokenManager(principal);
    const token = this.store.apiTokens.get(principal.tenant, id);
    if (!token) throw new NotFoundError(`API token ${id} not found`);
    if (!managesAllTokens(principal.role) && token.createdBy !== principal.subject) {
      throw new ForbiddenError('you can revoke only the API tokens you created; an owner or admin can revoke this one');
    }
    this.store.apiTokens.revoke(principal.tenant, id, new Date(this.now()).toISOString());
    this.store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'api_token.revoke', target: `token:${id}` });
  }

  /** The principal an API token stands for; UnauthorizedError when it is unknown, revoked or expired. */
  authenticate(token: string): Principal {
    const found = isOpaqueToken(token, API_TOKEN_PREFIX) ? this.store.apiTokens.findByHash(tokenHash(token)) : undefined;
    if (!found) throw new UnauthorizedError('the API token is not valid');
    if (found.revokedAt !== null) throw new UnauthorizedError('the API token has been revoked');
    const now = this.now();
    if (found.expires_at !== null && Date.parse(found.expires_at) <= now) throw new UnauthorizedError(`the API token expired at ${found.expires_at}`);
    let role = found.role;
    if (found.createdBy.startsWith('user:')) {
      if (found.creatorRole === null) throw new UnauthorizedError('the API token is no longer valid: the user who created it has left the tenant');
      role = lowerRole(role, found.creatorRole);
    }
    if (found.last_used_at === null || Date.parse(found.last_used_at) + LAST_USED_RESOLUTION_MS <= now) {
      this.store.apiTokens.recordUse(found.id, new Date(now).toISOString());
    }
    return { tenant: found.tenant, role, subject: `token:${found.id}`, userId: null, email: null, tokenId: found.id, sessionId: null };
  }
}

function requireTokenManager(principal: Principal): void {
  if (!roleAllows(principal.role, 'manage_tokens')) throw new ForbiddenError(`role ${principal.role} may not manage API tokens`);
}

function validate(request: NewApiTokenRequest): { name: string; role: Role; days: number } {
  const issues: FieldIssue[] = [];
  const name = typeof request.name === 'string' ? request.name.trim() : '';
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) issues.push({ pointer: '/name', message: `must be 1–${MAX_NAME_LENGTH} characters` });
  if (!isRole(request.role)) issues.push({ pointer: '/role', message: 'must be one of owner, admin, member, viewer' });
  const days = request.expiresInDays ?? DEFAULT_TOKEN_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS) {
    issues.push({ pointer: '/expires_in_days', message: `must be a whole number of days from 1 to ${MAX_TOKEN_DAYS}` });
  }
  if (issues.length > 0) throw new ValidationError(`the API token request is not valid: ${issues.map((i) => `${i.pointer} ${i.message}`).join('; ')}`, issues);
  return { name, role: request.role, days };
}
