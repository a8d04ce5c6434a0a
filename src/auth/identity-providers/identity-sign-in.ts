/**
 * @module Sign-in through GitHub, Google and GitLab from start to tokens: `begin` records the
 * `state` (single use, 10 minutes; with the PKCE verifier, nonce, provider and redirect
 * target) and gives the provider's URL; `callback` consumes the state first (so a replayed or
 * forged callback fails whatever follows), has the provider's client check the code, resolves
 * the account and answers cairn's own tokens, or — when the sign-in began with a
 * `redirect_uri` — a one-time code (60 s, single use) that `exchange` turns into them.
 */
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { guardedFetch } from '../../net/guarded-fetch.js';
import { NotFoundError, UnauthorizedError, ConflictError, ValidationError } from '../../model/errors.js';
import type { IdentityRecord } from '../../store/identities.js';
import type { Store } from '../../store/store.js';
import type { AuthService, TokenPair } from '../auth-service.js';
import { resolveAccount } from './accounts.js';
import { GitHubClient } from './github-client.js';
import { OidcClient } from './oidc-client.js';
import { SignInRefusedError, type IdentityProviderClient, type OutboundFetch } from './provider-identity.js';
import { checkedRedirectTarget, withCode } from './redirect-targets.js';
import { callbackUrl, displayName, enabledProvider, identitySettingsFromEnv, PROVIDER_NAMES, type IdentitySettings, type ProviderName } from './settings.js';

export const STATE_TTL_SECONDS = 600;
export const EXCHANGE_CODE_TTL_SECONDS = 60;
const EXCHANGE_CODE_PREFIX = 'cairn_sc_';

export type CallbackResult = { kind: 'tokens'; tokens: TokenPair } | { kind: 'redirect'; location: string };

export interface IdentitySignInOptions {
  /** The fetch for calls to providers (default: cairn's outbound guard). */
  fetch: OutboundFetch;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export class IdentitySignIn {
  private readonly clients = new Map<ProviderName, IdentityProviderClient>();
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    private readonly auth: AuthService,
    private readonly settings: IdentitySettings,
    private readonly options: IdentitySignInOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The provider's authorization URL for a new sign-in; 404 when the provider is not configured, 422 for a bad redirect target. */
  async begin(provider: ProviderName, request: { redirectUri?: string; tenant?: string }): Promise<string> {
    const { publicUrl } = enabledProvider(this.settings, provider);
    const redirectUri = request.redirectUri === undefined ? null : checkedRedirectTarget(request.redirectUri, publicUrl);
    if (request.tenant !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(request.tenant)) {
      throw new ValidationError('tenant must be a tenant name', [{ pointer: '/tenant', message: 'must be a DNS label: 1–63 lower-case letters, digits and dashes' }]);
    }
    const client = this.client(provider);
    const state = oidc.randomState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = client.usesNonce ? oidc.randomNonce() : null;
    const url = await client.authorizationUrl({ state, codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier), nonce: nonce ?? '' });
    const now = this.now();
    this.store.identities.saveState(state, { provider, codeVerifier, nonce, redirectUri, tenantName: request.tenant ?? null, expiresAt: iso(now + STATE_TTL_SECONDS * 1000) }, iso(now));
    return url.href;
  }

  /** Finishes a sign-in from the provider's callback (its full query kept, for the provider's checks). */
  async callback(provider: ProviderName, query: URLSearchParams, clientAddress: string): Promise<CallbackResult> {
    const { publicUrl } = enabledProvider(this.settings, provider);
    const state = query.get('state');
    if (!state) throw new SignInRefusedError(`the ${displayName(provider)} callback carries no state; start the sign-in again`);
    const pending = this.store.identities.consumeState(state, iso(this.now()));
    if (!pending || pending.provider !== provider) {
      throw new SignInRefusedError(`the sign-in state is unknown, used already or expired (it lasts ${STATE_TTL_SECONDS / 60} minutes and works once); start the sign-in through ${displayName(provider)} again`);
    }
    const callback = new URL(callbackUrl(publicUrl, provider));
    callback.search = query.toString();
    const identity = await this.client(provider).finish(callback, { state, codeVerifier: pending.codeVerifier, nonce: pending.nonce });
    const account = resolveAccount(this.store, identity, { signup: this.settings.signup, now: iso(this.now()) });
    if (pending.redirectUri === null) {
      return { kind: 'tokens', tokens: await this.auth.signIn(account.userId, clientAddress, pending.tenantName ?? undefined) };
    }
    const code = `${EXCHANGE_CODE_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.now();
    this.store.identities.saveCode(code, { userId: account.userId, tenantName: pending.tenantName, expiresAt: iso(now + EXCHANGE_CODE_TTL_SECONDS * 1000) }, iso(now));
    return { kind: 'redirect', location: withCode(pending.redirectUri, publicUrl, code) };
  }

  /** Tokens for a one-time code from a callback's redirect; it works once, within a minute. */
  async exchange(code: string, clientAddress: string): Promise<TokenPair> {
    const found = code.startsWith(EXCHANGE_CODE_PREFIX) ? this.store.identities.consumeCode(code, iso(this.now())) : undefined;
    if (!found) throw new UnauthorizedError(`the sign-in code is unknown, used already or expired (it works once, within ${EXCHANGE_CODE_TTL_SECONDS} seconds); sign in again`);
    return this.auth.signIn(found.userId, clientAddress, found.tenantName ?? undefined);
  }

  /** The providers that are configured (client and CAIRN_PUBLIC_URL), by display name. */
  enabledProviders(): string[] {
    return this.enabledProviderNames().map(displayName);
  }

  /** The providers that are configured, by the name in their paths (`github`, ...). */
  enabledProviderNames(): ProviderName[] {
    return PROVIDER_NAMES.filter((name) => this.settings.providers[name] !== undefined && this.settings.publicUrl !== null);
  }

  list(userId: string): IdentityRecord[] {
    return this.store.identities.listForUser(userId);
  }

  /** Unlinks one of the user's identities; 409 when it is their last way to sign in. */
  unlink(userId: string, id: string): void {
    switch (this.store.identities.unlink(userId, id)) {
      case 'removed':
        return;
      case 'not-found':
        throw new NotFoundError(`you have no linked identity ${id}`);
      case 'last-way-in':
        throw new ConflictError('this identity is your last way to sign in (your account has no password and no other identity); link another provider first');
    }
  }

  private client(provider: ProviderName): IdentityProviderClient {
    const existing = this.clients.get(provider);
    if (existing) return existing;
    const { provider: settings, publicUrl } = enabledProvider(this.settings, provider);
    const redirect = callbackUrl(publicUrl, provider);
    const client = settings.protocol === 'github' ? new GitHubClient(settings, redirect, this.options.fetch) : new OidcClient(settings, redirect, this.options.fetch);
    this.clients.set(provider, client);
    return client;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The service for the operator's settings in `env`, its provider calls through cairn's outbound guard. */
export function identitySignInFromEnv(store: Store, auth: AuthService, env: NodeJS.ProcessEnv): IdentitySignIn {
  const fetch: OutboundFetch = (url, init) => guardedFetch(url, init) as unknown as Promise<Response>;
  return new IdentitySignIn(store, auth, identitySettingsFromEnv(env), { fetch });
}
