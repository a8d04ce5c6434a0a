/**
 * @module GitHub (and GitHub Enterprise) sign-in, OAuth 2.0 rather than OpenID Connect: the
 * browser authorizes at `<web>/login/oauth/authorize` with `state` and PKCE S256; the code is
 * exchanged at `<web>/login/oauth/access_token` (JSON asked for); the account is
 * `GET <api>/user` and its e-mail the primary one of `GET <api>/user/emails`, verified or not.
 */
import { ProviderError } from '../../model/errors.js';
import { SignInRefusedError, type AuthorizationRequest, type IdentityProviderClient, type OutboundFetch, type PendingSignIn, type ProviderIdentity } from './provider-identity.js';
import type { GitHubSettings } from './settings.js';

export const GITHUB_SCOPES = 'read:user user:email';

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

function under(base: URL, path: string): URL {
  return new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base : new URL(`${base.href}/`));
}

export class GitHubClient implements IdentityProviderClient {
  readonly name = 'github' as const;
  readonly usesNonce = false;

  constructor(
    private readonly settings: GitHubSettings,
    private readonly redirectUri: string,
    private readonly fetch: OutboundFetch,
  ) {}

  authorizationUrl(request: AuthorizationRequest): Promise<URL> {
    const url = under(this.settings.webUrl, '/login/oauth/authorize');
    url.search = new URLSearchParams({
      client_id: this.settings.clientId,
      redirect_uri: this.redirectUri,
      scope: GITHUB_SCOPES,
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
      allow_signup: 'false',
    }).toString();
    return Promise.resolve(url);
  }

  async finish(callback: URL, pending: PendingSignIn): Promise<ProviderIdentity> {
    const error = callback.searchParams.get('error');
    if (error !== null) throw new SignInRefusedError(`GitHub refused the sign-in: ${error}${callback.searchParams.has('error_description') ? `: ${callback.searchParams.get('error_description')}` : ''}`);
    const code = callback.searchParams.get('code');
    if (!code) throw new SignInRefusedError('the GitHub callback carries no code');
    if (callback.searchParams.get('state') !== pending.state) throw new SignInRefusedError('the GitHub callback carries another state');
    const accessToken = await this.exchange(code, pending.codeVerifier);
    const user = (await this.api('/user', accessToken)) as { id?: unknown };
    if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new ProviderError('GitHub answered /user without an id');
    const emails = await this.api('/user/emails', accessToken);
    if (!Array.isArray(emails)) throw new ProviderError('GitHub answered /user/emails without a list');
    const primary = (emails as GitHubEmail[]).find((e) => e.primary === true && typeof e.email === 'string');
    return {
      provider: 'github',
      subject: String(user.id),
      email: primary ? String(primary.email).trim().toLowerCase() : null,
      emailVerified: primary?.verified === true,
    };
  }

  private async exchange(code: string, codeVerifier: string): Promise<string> {
    const response = await this.call(under(this.settings.webUrl, '/login/oauth/access_token').href, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret.reveal(),
        code,
        redirect_uri: this.redirectUri,
        code_verifier: codeVerifier,
      }),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown; error_description?: unknown };
    // GitHub answers a bad or used code with 200 and an `error` field.
    if (typeof body.error === 'string') throw new SignInRefusedError(`GitHub refused the code: ${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`);
    if (!response.ok) throw new ProviderError(`GitHub answered the code exchange with HTTP ${response.status}`);
    if (typeof body.access_token !== 'string' || body.access_token === '') throw new ProviderError('GitHub answered the code exchange without an access token');
    return body.access_token;
  }

  private async api(path: string, accessToken: string): Promise<unknown> {
    const response = await this.call(under(this.settings.apiUrl, path).href, {
      method: 'GET',
      headers: { Accept: 'application/vnd.github+json', Authorization: `Bearer ${accessToken}`, 'X-GitHub-Api-Version': '2022-11-28' },
    });
    if (!response.ok) throw new ProviderError(`GitHub answered GET ${path} with HTTP ${response.status}`);
    return response.json();
  }

  private async call(url: string, init: Parameters<OutboundFetch>[1]): Promise<Response> {
    try {
      return await this.fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new ProviderError(`cannot reach GitHub at ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
