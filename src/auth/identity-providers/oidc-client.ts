/**
 * @module Google and GitLab (any OpenID Connect provider) through openid-client: discovery from
 * the issuer, an authorization URL with PKCE S256, `state` and `nonce`, and on the callback the
 * code exchange and ID token validation (issuer, audience, expiry, signature through the
 * provider's JWKS, nonce) by openid-client; the e-mail and `email_verified` come from the ID
 * token, else from userinfo. Every call goes through the fetch given (cairn's outbound guard).
 */
import * as oidc from 'openid-client';
import { ProviderError } from '../../model/errors.js';
import { SignInRefusedError, type AuthorizationRequest, type IdentityProviderClient, type OutboundFetch, type PendingSignIn, type ProviderIdentity } from './provider-identity.js';
import { displayName, type OidcProviderSettings } from './settings.js';

export const OIDC_SCOPES = 'openid email';

export class OidcClient implements IdentityProviderClient {
  readonly usesNonce = true;
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    private readonly settings: OidcProviderSettings,
    private readonly redirectUri: string,
    private readonly fetch: OutboundFetch,
  ) {}

  get name(): 'google' | 'gitlab' {
    return this.settings.name;
  }

  async authorizationUrl(request: AuthorizationRequest): Promise<URL> {
    return oidc.buildAuthorizationUrl(await this.discovered(), {
      redirect_uri: this.redirectUri,
      scope: OIDC_SCOPES,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
      state: request.state,
      nonce: request.nonce,
    });
  }

  async finish(callback: URL, pending: PendingSignIn): Promise<ProviderIdentity> {
    const configuration = await this.discovered();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        ...(pending.nonce !== null ? { expectedNonce: pending.nonce } : {}),
        idTokenExpected: true,
      });
    } catch (error) {
      throw new SignInRefusedError(`sign-in through ${displayName(this.name)} was refused: ${describe(error)}`);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefusedError(`sign-in through ${displayName(this.name)} was refused: the provider sent no ID token`);
    let email = typeof claims.email === 'string' ? claims.email : null;
    let verified = claims.email_verified === true;
    if (email === null || claims.email_verified === undefined) {
      try {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : email;
        verified = info.email_verified === true;
      } catch (error) {
        throw new ProviderError(`${displayName(this.name)} did not answer the userinfo request: ${describe(error)}`);
      }
    }
    return { provider: this.name, subject: claims.sub, email: email === null ? null : email.trim().toLowerCase(), emailVerified: verified };
  }

  /** The provider's metadata, discovered once (again after a failure). */
  private discovered(): Promise<oidc.Configuration> {
    this.configuration ??= oidc
      .discovery(this.settings.issuer, this.settings.clientId, { client_secret: this.settings.clientSecret.reveal() }, oidc.ClientSecretPost(this.settings.clientSecret.reveal()), {
        [oidc.customFetch]: this.fetch,
        // openid-client checks the ID token's signature only with non-repudiation checks on
        // (OIDC trusts TLS for tokens from the token endpoint); cairn checks it against the JWKS.
        // An http:// issuer is the operator's explicit choice (a provider on a private network, tests).
        execute: [oidc.enableNonRepudiationChecks, ...(this.settings.issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [])],
        timeout: 10,
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new ProviderError(`cannot read the OpenID configuration of ${displayName(this.name)} at ${this.settings.issuer.href}: ${describe(error)}`);
      });
    return this.configuration;
  }
}

/** The message of an openid-client error and, where it has one, its cause's; never a secret. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const body = (error as { error?: unknown; error_description?: unknown });
  if (typeof body.error === 'string') return `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
