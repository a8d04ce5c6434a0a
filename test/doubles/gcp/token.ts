/**
 * @module The double's OAuth2 token endpoint, as Google's (`POST <token_uri>`, a form with
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and the signed `assertion`): the JWT's
 * RS256 signature is verified with the public key of the service account it names, its issuer,
 * scope, audience and expiry checked; a good one earns an access token, anything else Google's
 * `{ error: "invalid_grant", error_description }` with 400 (401 `invalid_client` for an account
 * the double does not know).
 */
import { createVerify, randomBytes, type KeyObject } from 'node:crypto';

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const refuse = (status: number, error: string, description: string): TokenAnswer => ({ status, body: { error, error_description: description } });

/** Audiences Google accepts for a token request: its token URL (what google-auth-library signs) or the key's token_uri. */
export class TokenEndpoint {
  /** Access tokens issued, each with the account it was issued to. */
  readonly issued = new Map<string, string>();
  /** Requests answered, refused ones included. */
  requests = 0;

  constructor(
    private readonly accounts: ReadonlyMap<string, KeyObject>,
    private readonly audiences: readonly string[],
  ) {}

  answer(formText: string): TokenAnswer {
    this.requests++;
    const form = new URLSearchParams(formText);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse(400, 'unsupported_grant_type', 'Invalid grant_type: ' + (form.get('grant_type') ?? ''));
    const assertion = form.get('assertion') ?? '';
    const [header, payload, signature] = assertion.split('.');
    if (header === undefined || payload === undefined || signature === undefined) return refuse(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    const head = decodePart(header);
    const claims = decodePart(payload);
    if (head?.['alg'] !== 'RS256' || !claims) return refuse(400, 'invalid_grant', 'Invalid JWT: the header must name RS256');
    const account = typeof claims['iss'] === 'string' ? claims['iss'] : '';
    const publicKey = this.accounts.get(account);
    if (!publicKey) return refuse(401, 'invalid_client', 'The OAuth client was not found.');
    const verified = createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(publicKey, Buffer.from(signature, 'base64url'));
    if (!verified) return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    const now = Math.floor(Date.now() / 1000);
    const exp = Number(claims['exp']);
    const iat = Number(claims['iat']);
    if (!Number.isFinite(exp) || !Number.isFinite(iat) || exp <= now || exp - iat > 3600 || iat > now + 300) return refuse(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
    if (typeof claims['aud'] !== 'string' || !this.audiences.includes(claims['aud'])) return refuse(400, 'invalid_grant', `Invalid JWT: audience ${JSON.stringify(claims['aud'])} is not the token endpoint`);
    const scopes = typeof claims['scope'] === 'string' ? claims['scope'].split(' ') : [];
    if (!scopes.includes('https://www.googleapis.com/auth/cloud-platform') && !scopes.includes('https://www.googleapis.com/auth/compute')) return refuse(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const token = `ya29.double-${randomBytes(12).toString('hex')}`;
    this.issued.set(token, account);
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  }
}
