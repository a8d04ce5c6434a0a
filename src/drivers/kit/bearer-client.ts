/**
 * @module The client of a vendor whose API takes a bearer token (Hetzner, DigitalOcean, …): the
 * token from the Provider's credentials (refused plainly when missing), the API base URL (the
 * vendor's, or `spec.endpoint`), and one rate budget shared by every driver of the same
 * provider, keyed by a fingerprint of the token, never the token itself.
 */
import { createHash } from 'node:crypto';
import type { DriverConfig } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { checkedEndpoint } from './endpoint.js';
import { sharedBudget, type RateBudgetOptions } from './rate-budget.js';
import { VendorHttpClient, type VendorErrorText } from './vendor-http.js';

export interface BearerVendor {
  /** The vendor's id, e.g. `hetzner`. */
  id: string;
  /** What the token is, for the message when it is missing: `a Hetzner Cloud API token`. */
  tokenName: string;
  defaultBaseUrl: string;
  readError: (body: unknown) => VendorErrorText | undefined;
  budget: RateBudgetOptions;
}

export function bearerTokenClient(vendor: BearerVendor, config: DriverConfig): { client: VendorHttpClient; baseUrl: string } {
  const token = config.credentials?.['token'];
  if (token === undefined || token === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: ${vendor.id} needs credentials with a "token" (${vendor.tokenName})`);
  }
  const baseUrl = checkedEndpoint(config.providerName, config.spec.endpoint) ?? vendor.defaultBaseUrl;
  const fingerprint = createHash('sha256').update(token).digest('hex').slice(0, 16);
  const client = new VendorHttpClient({
    label: vendor.id,
    baseUrl,
    authorize: () => ({ authorization: `Bearer ${token}` }),
    readError: vendor.readError,
    requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`${vendor.id} ${baseUrl} ${fingerprint}`, vendor.budget),
  });
  return { client, baseUrl };
}
