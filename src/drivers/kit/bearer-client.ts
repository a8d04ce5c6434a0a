/**
 * @module The client of a vendor whose API takes a bearer token (Hetzner, DigitalOcean, …): the
 * token from the Provider's credentials (refused plainly when missing), the API base URL (the
 * vendor's, or `spec.endpoint`), the header it travels in (`Authorization: Bearer` unless the
 * vendor names another), and one rate budget shared by every driver of the same
 * provider, keyed by a fingerprint of the token, never the token itself.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DatabaseDesired, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { sshRuntimeFor } from './ssh-runtime.js';
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
  /** The headers that carry the token; default `Authorization: Bearer <token>` (Leaseweb takes it as `X-LSW-Auth`). */
  authHeaders?: (token: string) => Record<string, string>;
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
    authorize: () => (vendor.authHeaders ? vendor.authHeaders(token) : { authorization: `Bearer ${token}` }),
    readError: vendor.readError,
    requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`${vendor.id} ${baseUrl} ${fingerprint}`, vendor.budget),
  });
  return { client, baseUrl };
}

export interface BearerCloudVendor extends BearerVendor {
  /** Shown to users in `GET /providers/vendors`. */
  description: string;
  /** Where the token is made and which permissions it needs. */
  tokenDescription: string;
  cloudDriver(client: VendorHttpClient, baseUrl: string): CloudDriver;
  /** The vendor's managed database service, when cairn drives it: its engines and its driver, on the same client. */
  managedDatabases?: {
    engines: ReadonlyArray<DatabaseDesired['type']>;
    driver(client: VendorHttpClient, baseUrl: string): ManagedDatabaseDriver;
  };
}

/** A vendor of servers (and, where cairn drives it, managed databases) reached with a bearer token, its servers' databases and apps run over SSH: the whole `Vendor`. */
export function bearerCloudVendor(vendor: BearerCloudVendor): Vendor {
  const managed = vendor.managedDatabases;
  return {
    id: vendor.id,
    description: vendor.description,
    credentialFields: [{ name: 'token', description: vendor.tokenDescription, required: true }],
    // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no token, bad endpoint) is a rejected promise, as for every vendor
    async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
      const { client, baseUrl } = bearerTokenClient(vendor, config);
      return vendor.cloudDriver(client, baseUrl);
    },
    // Databases and apps on its servers run over SSH.
    createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
      return sshRuntimeFor(vendor.id, config);
    },
    ...(managed
      ? {
          managedDatabaseEngines: managed.engines,
          // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no token, bad endpoint) is a rejected promise
          async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
            const { client, baseUrl } = bearerTokenClient(vendor, config);
            return managed.driver(client, baseUrl);
          },
        }
      : {}),
  };
}
