/**
 * @module The HTTP client for Contabo's API: the kit's VendorHttpClient with Contabo's two
 * required headers on every request (a bearer access token from the password grant, and a fresh
 * UUID4 `x-request-id`, which Contabo's document requires), and one more try with a new token
 * when the API refuses the cached one with 401 (it expired or was revoked early).
 */
import { randomUUID } from 'node:crypto';
import { VendorAuthError } from '../errors.js';
import { VendorHttpClient, type VendorAnswer, type VendorHttpOptions, type VendorRequest } from '../kit/vendor-http.js';
import type { ContaboAccessToken } from './access-token.js';

export class ContaboHttpClient extends VendorHttpClient {
  constructor(
    private readonly token: ContaboAccessToken,
    options: Omit<VendorHttpOptions, 'authorize'>,
  ) {
    super({ ...options, authorize: async () => ({ authorization: `Bearer ${await token.get()}`, 'x-request-id': randomUUID() }) });
  }

  override async call(request: VendorRequest): Promise<VendorAnswer> {
    try {
      return await super.call(request);
    } catch (error) {
      if (!(error instanceof VendorAuthError) || error.status !== 401 || error.message.startsWith('contabo: get an access token')) throw error;
      this.token.invalidate();
      return super.call(request);
    }
  }
}
