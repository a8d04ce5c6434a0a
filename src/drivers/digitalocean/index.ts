/**
 * @module The `digitalocean` vendor: droplets through DigitalOcean's public API v2
 * (https://api.digitalocean.com/v2, or the Provider's `spec.endpoint`), authenticated by a
 * personal access token, within DigitalOcean's budget of 5,000 requests an hour (and 250 a
 * minute, the bucket's burst) per token.
 */
import type { CloudDriver, CredentialField, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { UnsupportedError } from '../errors.js';
import { bearerTokenClient } from '../kit/bearer-client.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import { DigitalOceanCloudDriver } from './cloud-driver.js';

export const DIGITALOCEAN_API = 'https://api.digitalocean.com/v2';

const CREDENTIAL_FIELDS: readonly CredentialField[] = [
  { name: 'token', description: 'Personal access token (control panel → API → Tokens) with read and write scopes for droplets, tags, regions and sizes.', required: true },
];

/** DigitalOcean's refusal of an action while another runs on the droplet: it passes by itself. */
const PENDING_EVENT = /pending event/i;

/** DigitalOcean's error body: `{ "id": "not_found", "message": "...", "request_id"? }`. */
function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { id?: unknown; message?: unknown } | undefined;
  if (typeof error?.message !== 'string') return undefined;
  const code = typeof error.id === 'string' ? ` (${error.id})` : '';
  return { message: `${error.message}${code}`, ...(PENDING_EVENT.test(error.message) ? { passing: true } : {}) };
}

function connect(config: DriverConfig): ReturnType<typeof bearerTokenClient> {
  return bearerTokenClient({ id: 'digitalocean', tokenName: 'a DigitalOcean personal access token', defaultBaseUrl: DIGITALOCEAN_API, readError, budget: { perHour: 5000, burst: 250 } }, config);
}

export const digitalOceanVendor: Vendor = {
  id: 'digitalocean',
  description: 'DigitalOcean: droplets in New York, San Francisco, Toronto, Atlanta, Amsterdam, London, Frankfurt, Bangalore, Singapore and Sydney. Managed databases are not built yet; apps on its droplets need SSH.',
  credentialFields: CREDENTIAL_FIELDS,
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no token, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const { client, baseUrl } = connect(config);
    return new DigitalOceanCloudDriver(client, baseUrl);
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return Promise.reject(
      new UnsupportedError(
        `Provider/${config.providerName}: managed databases on DigitalOcean are not built yet, and apps on a droplet need cairn to reach it over SSH, which is not built yet`,
      ),
    );
  },
};
