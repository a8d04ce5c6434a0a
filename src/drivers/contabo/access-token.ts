/**
 * @module Contabo's OAuth2 password grant: the four credentials Contabo issues (client id and
 * secret, API user and API password) traded for an access token at its Keycloak realm, the
 * token kept until shortly before it expires, and fetched again when the API refuses it. The
 * token request goes through cairn's outbound guard like every request to a vendor. A refusal
 * says which pair is wrong: the client (id and secret) or the user (API user and password).
 */
import { guardedFetch, outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { describeCause } from '../kit/vendor-text.js';

/** The realm's token path below Contabo's auth host (or below the Provider's endpoint). */
export const TOKEN_PATH = '/auth/realms/contabo/protocol/openid-connect/token';
export const CONTABO_AUTH = 'https://auth.contabo.com';

export interface ContaboCredentials {
  clientId: string;
  clientSecret: string;
  apiUser: string;
  apiPassword: string;
}

/** A token is fetched again this long before Contabo says it expires. */
const EXPIRY_MARGIN_MS = 30_000;

export class ContaboAccessToken {
  private cached: { token: string; until: number } | undefined;
  private pending: Promise<string> | undefined;
  /** Tokens fetched, for tests. */
  fetched = 0;

  constructor(
    private readonly tokenUrl: string,
    private readonly credentials: ContaboCredentials,
    private readonly requestTimeoutMs: number,
  ) {}

  /** The cached token, or a new one. */
  get(): Promise<string> {
    if (this.cached && Date.now() < this.cached.until) return Promise.resolve(this.cached.token);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the cached token (the API refused it): the next request fetches another. */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetch(): Promise<string> {
    const where = 'contabo: get an access token';
    const body = new URLSearchParams({
      grant_type: 'password', client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret,
      username: this.credentials.apiUser, password: this.credentials.apiPassword,
    }).toString();
    let response: Response;
    let text: string;
    this.fetched++;
    try {
      response = await (guardedFetch as unknown as typeof fetch)(this.tokenUrl, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body, signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const refused = outboundRefusal(error);
      if (refused) throw new VendorRejectedError(`${where}: ${refused.message}`, { field: 'endpoint', cause: error });
      throw new VendorUnavailableError(`${where}: request to ${this.tokenUrl} failed: ${describeCause(error)}`, { cause: error });
    }
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      answer = text === '' ? {} : (JSON.parse(text) as typeof answer);
    } catch {
      // not JSON: said below by status
    }
    if (response.ok && typeof answer.access_token === 'string' && answer.access_token !== '') {
      const seconds = typeof answer.expires_in === 'number' ? answer.expires_in : 300;
      this.cached = { token: answer.access_token, until: Date.now() + Math.max(0, seconds * 1000 - EXPIRY_MARGIN_MS) };
      return answer.access_token;
    }
    if (response.status >= 500 || response.status === 429) throw new VendorUnavailableError(`${where}: ${response.status} from ${this.tokenUrl}`, { status: response.status });
    throw refusal(where, response.status, answer.error, answer.error_description);
  }
}

/** What a refused token request means, in words: which pair of credentials to fix. */
export function refusal(where: string, status: number, code: unknown, description: unknown): Error {
  const said = typeof description === 'string' && description !== '' ? ` (${description})` : '';
  if (code === 'invalid_client' || code === 'unauthorized_client') {
    return new VendorAuthError(`${where}: ${status} the client id or client secret was refused${said}; copy client_id and client_secret from Contabo's Customer Control Panel → API`, { status });
  }
  if (code === 'invalid_grant') {
    return new VendorAuthError(`${where}: ${status} the API user or API password was refused${said}; api_user is the e-mail you log in with, api_password the API password set in the Customer Control Panel → API`, { status });
  }
  return new VendorRejectedError(`${where}: ${status} the token request was refused${said || ` (${typeof code === 'string' ? code : 'no reason given'})`}`, { status });
}
