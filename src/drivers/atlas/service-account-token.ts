/**
 * @module An Atlas service account's access token: the client id and secret exchanged at
 * `<endpoint>/api/oauth/token` (OAuth 2.0 client credentials, the pair as HTTP Basic), kept until
 * a minute before it expires (Atlas issues them for an hour) and shared by every request of the
 * provider. A refused pair is a VendorAuthError saying so; the exchange goes out through the
 * vendor kit, so through the outbound guard like every other request.
 */
import { VendorAuthError } from '../errors.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';

/** How long before its expiry a token is replaced. */
const EARLY_MS = 60_000;

/** The OAuth error body: `{ "error": "invalid_client", "error_description": "..." }`. */
export function readOAuthError(body: unknown): { message: string } | undefined {
  const error = body as { error?: unknown; error_description?: unknown } | undefined;
  if (typeof error?.error !== 'string') return undefined;
  return { message: typeof error.error_description === 'string' ? `${error.error_description} (${error.error})` : error.error };
}

export class ServiceAccountToken {
  private current: { token: string; until: number } | undefined;
  private pending: Promise<string> | undefined;

  /** `client` is the endpoint's root client whose `authorize` sends the client id and secret as HTTP Basic. */
  constructor(private readonly client: VendorHttpClient) {}

  /** A valid bearer token, exchanged again when the one held is (nearly) expired. */
  async bearer(signal?: AbortSignal): Promise<string> {
    if (this.current && Date.now() < this.current.until) return this.current.token;
    this.pending ??= this.exchange(signal).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the token (Atlas refused it: revoked before its time), so the next request exchanges again. */
  forget(): void {
    this.current = undefined;
  }

  private async exchange(signal: AbortSignal | undefined): Promise<string> {
    const doing = 'exchange the service account for an access token';
    const answer = await this.client.call({
      method: 'POST', path: '/api/oauth/token', text: { contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials' }, doing, signal,
    });
    const body = WireReader.of(answer.body, `atlas: ${doing}`);
    const token = body.string('access_token');
    if (body.string('token_type').toLowerCase() !== 'bearer') throw new VendorAuthError(`atlas: ${doing}: Atlas issued a "${body.string('token_type')}" token, not a bearer token`);
    const lifetimeMs = (body.numberOrNull('expires_in') ?? 3600) * 1000;
    this.current = { token, until: Date.now() + Math.max(0, lifetimeMs - EARLY_MS) };
    return token;
  }
}
