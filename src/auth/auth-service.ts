/**
 * @module Authentication for the API: sign-in with email and password (throttled), refresh-token
 * rotation with reuse detection, logout, bearer-token checks on every request (access tokens
 * and API tokens), the JWKS, signing-key rotation, and adding users.
 */
import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../model/errors.js';
import type { ApiTokenRecord } from '../store/api-tokens.js';
import type { Page, PageRequest } from '../store/paging.js';
import type { Store } from '../store/store.js';
import { normalizeEmail } from '../store/users.js';
import { AccessTokenVerifier, signAccessToken, type AccessTokenIssuer } from './access-tokens.js';
import { ApiTokenService, type CreatedApiToken, type NewApiTokenRequest } from './api-tokens.js';
import { LoginThrottle, type ThrottleLimits } from './login-throttle.js';
import { API_TOKEN_PREFIX, isOpaqueToken, newOpaqueToken, REFRESH_TOKEN_PREFIX, tokenHash } from './opaque-tokens.js';
import { preparePasswordTiming, spendPasswordTime, verifyPassword } from './passwords.js';
import type { Principal } from './principal.js';
import type { Role } from './roles.js';
import { ACCESS_TOKEN_TTL_SECONDS, SigningKeyring } from './signing-keyring.js';
import { addUser, type AddedUser, type NewUser } from './user-accounts.js';

export const DEFAULT_ISSUER = 'cairn';
export const DEFAULT_AUDIENCE = 'cairn-api';
export const REFRESH_TOKEN_TTL_DAYS = 30;
const WRONG_CREDENTIALS = 'wrong email or password';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export interface AuthOptions {
  /** The `iss` of access tokens (default `cairn`). */
  issuer?: string;
  /** The `aud` of access tokens (default `cairn-api`). */
  audience?: string;
  /** Milliseconds since the epoch (tests move time). */
  now?: () => number;
  /** Sign-in throttling (default: 5 failures per account, 20 per address, per 15 minutes). */
  throttle?: ThrottleLimits;
}

export interface Me {
  user: { id: string; email: string } | null;
  tenant: { id: string; name: string };
  role: Role;
  token: { id: string; name: string } | null;
}

export class AuthService {
  private readonly settings: AccessTokenIssuer;
  private readonly throttle: LoginThrottle;
  private readonly tokens: ApiTokenService;
  private readonly verifier: AccessTokenVerifier;

  private constructor(
    private readonly store: Store,
    private readonly keyring: SigningKeyring,
    options: AuthOptions,
  ) {
    const now = options.now ?? Date.now;
    this.settings = { issuer: options.issuer ?? DEFAULT_ISSUER, audience: options.audience ?? DEFAULT_AUDIENCE, now };
    this.throttle = new LoginThrottle(now, options.throttle);
    this.tokens = new ApiTokenService(store, now);
    this.verifier = new AccessTokenVerifier(keyring, this.settings);
  }

  /** Opens the service, generating the first signing key (Ed25519) when there is none. */
  static async open(store: Store, options: AuthOptions = {}): Promise<AuthService> {
    const keyring = new SigningKeyring(store.signingKeys, options.now ?? Date.now);
    keyring.ensureKey();
    const service = new AuthService(store, keyring, options);
    await Promise.all([keyring.signingKey(), preparePasswordTiming()]);
    return service;
  }

  async login(email: string, password: string, clientAddress: string, tenantName?: string): Promise<TokenPair> {
    const account = normalizeEmail(String(email));
    this.throttle.check(account, clientAddress);
    const user = this.store.users.findByEmail(account);
    // An account made by sign-in through a provider has no password ('') and takes none.
    const matches = user && user.passwordHash !== '' ? await verifyPassword(String(password), user.passwordHash) : (await spendPasswordTime(String(password)), false);
    if (!user || !matches) {
      this.throttle.recordFailure(account, clientAddress);
      throw new UnauthorizedError(WRONG_CREDENTIALS);
    }
    this.throttle.recordSuccess(account);
    return this.signIn(user.id, clientAddress, tenantName);
  }

  /**
   * Starts a sign-in of a user whose identity was proven some other way (an identity
   * provider): the same tokens, session and membership choice as `login`.
   */
  async signIn(userId: string, clientAddress: string, tenantName?: string): Promise<TokenPair> {
    const user = { id: userId };
    const membership = this.chooseMembership(user.id, tenantName);
    const sessionId = randomUUID();
    const refreshToken = newOpaqueToken(REFRESH_TOKEN_PREFIX);
    const now = this.settings.now();
    this.store.sessions.create({
      id: sessionId,
      userId: user.id,
      tenant: membership.tenantId,
      clientAddress,
      refreshTokenHash: tokenHash(refreshToken),
      refreshExpiresAt: refreshExpiry(now),
      now: iso(now),
    });
    return this.pair({ userId: user.id, tenant: membership.tenantId, role: membership.role, sessionId }, refreshToken);
  }

  /** A new token pair for a refresh token, which stops working; a reused one revokes its sign-in. */
  async refresh(refreshToken: string): Promise<TokenPair> {
    if (!isOpaqueToken(String(refreshToken), REFRESH_TOKEN_PREFIX)) throw new UnauthorizedError('the refresh token is not valid');
    const next = newOpaqueToken(REFRESH_TOKEN_PREFIX);
    const now = this.settings.now();
    const result = this.store.sessions.useRefreshToken(tokenHash(refreshToken), { tokenHash: tokenHash(next), expiresAt: refreshExpiry(now) }, iso(now));
    switch (result.outcome) {
      case 'rotated':
        return this.pair({ userId: result.session.userId, tenant: result.session.tenant, role: result.session.role, sessionId: result.session.sessionId }, next);
      case 'reused':
        throw new UnauthorizedError('the refresh token was used already, so this sign-in has been revoked (every token of it); sign in again');
      case 'revoked':
        throw new UnauthorizedError('the sign-in was revoked; sign in again');
      case 'expired':
        throw new UnauthorizedError('the refresh token has expired; sign in again');
      case 'not-a-member':
        throw new UnauthorizedError('you are no longer a member of the tenant of this sign-in');
      case 'unknown':
        throw new UnauthorizedError('the refresh token is not valid');
    }
  }

  /** Revokes the principal's sign-in: its refresh token and its access tokens stop working. */
  logout(principal: Principal): void {
    if (principal.sessionId !== null) this.store.sessions.revoke(principal.sessionId, 'logout', iso(this.settings.now()));
  }

  /** Revokes the sign-in a refresh token belongs to (used or not); unknown tokens are ignored. */
  logoutRefreshToken(refreshToken: string): void {
    this.store.sessions.revokeByRefreshToken(tokenHash(String(refreshToken)), 'logout', iso(this.settings.now()));
  }

  /** The caller of a request, from its `Authorization` header; UnauthorizedError when there is none or it is not valid. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = authorization === undefined ? null : /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization);
    if (!match?.[1]) {
      throw new UnauthorizedError(authorization === undefined ? 'this needs a bearer token: Authorization: Bearer <token>' : 'the Authorization header must be "Bearer <token>"');
    }
    const token = match[1];
    if (token.startsWith(API_TOKEN_PREFIX)) return this.tokens.authenticate(token);
    const claims = await this.verifier.verify(token);
    const session = this.store.sessions.lookup(claims.sessionId);
    if (!session || session.userId !== claims.userId || session.tenant !== claims.tenant) throw new UnauthorizedError('the access token is not valid: unknown sign-in');
    if (session.revokedAt !== null) throw new UnauthorizedError('the sign-in was revoked (logged out, or a refresh token was reused); sign in again');
    if (session.role === null) throw new UnauthorizedError('you are no longer a member of the tenant of this sign-in');
    return {
      tenant: session.tenant,
      role: session.role,
      subject: `user:${session.userId}`,
      userId: session.userId,
      email: session.email,
      tokenId: null,
      sessionId: session.sessionId,
    };
  }

  /** The public keys that verify access tokens (`/.well-known/jwks.json`). */
  jwks(): { keys: JWK[] } {
    return this.keyring.jwks();
  }

  /** Makes a new key sign access tokens; the old one verifies until its tokens have expired. Returns the new kid. */
  rotateSigningKey(): string {
    return this.keyring.rotate();
  }

  me(principal: Principal): Me {
    const tenant = this.store.tenants.get(principal.tenant);
    const token = principal.tokenId === null ? undefined : this.store.apiTokens.get(principal.tenant, principal.tokenId);
    return {
      user: principal.userId !== null && principal.email !== null ? { id: principal.userId, email: principal.email } : null,
      tenant: { id: principal.tenant, name: tenant?.name ?? principal.tenant },
      role: principal.role,
      token: token ? { id: token.id, name: token.name } : null,
    };
  }

  createApiToken(principal: Principal, request: NewApiTokenRequest): CreatedApiToken {
    return this.tokens.create(principal, request);
  }

  listApiTokens(principal: Principal, page: PageRequest): Page<ApiTokenRecord> {
    return this.tokens.list(principal, page);
  }

  revokeApiToken(principal: Principal, id: string): void {
    this.tokens.revoke(principal, id);
  }

  /** Adds a user to a tenant (creating either when missing); see ./user-accounts.ts. */
  addUser(input: NewUser, actor = 'cli'): Promise<AddedUser> {
    return addUser(this.store, input, actor);
  }

  hasUsers(): boolean {
    return this.store.users.count() > 0;
  }

  private async pair(claims: { userId: string; tenant: string; role: Role; sessionId: string }, refreshToken: string): Promise<TokenPair> {
    const accessToken = await signAccessToken(this.keyring, this.settings, claims);
    return { access_token: accessToken, refresh_token: refreshToken, expires_in: ACCESS_TOKEN_TTL_SECONDS, token_type: 'Bearer' };
  }

  private chooseMembership(userId: string, tenantName: string | undefined): { tenantId: string; role: Role } {
    const memberships = this.store.users.memberships(userId);
    if (tenantName !== undefined) {
      const chosen = memberships.find((m) => m.tenantName === tenantName);
      if (!chosen) throw new ForbiddenError(`you are not a member of tenant "${tenantName}"`);
      return chosen;
    }
    if (memberships.length === 1) return memberships[0]!;
    if (memberships.length === 0) throw new ForbiddenError('your account belongs to no tenant; ask an owner to add you');
    throw new ValidationError(`you belong to several tenants (${memberships.map((m) => m.tenantName).join(', ')}); say which one with "tenant"`, [
      { pointer: '/tenant', message: `one of ${memberships.map((m) => m.tenantName).join(', ')}` },
    ]);
  }
}

function refreshExpiry(now: number): string {
  return iso(now + REFRESH_TOKEN_TTL_DAYS * 86_400_000);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
