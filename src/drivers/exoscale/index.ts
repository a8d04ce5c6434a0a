/**
 * @module The `exoscale` vendor: Compute instances through Exoscale's API v2, one host per zone
 * (`https://api-<zone>.exoscale.com/v2`, or the Provider's `spec.endpoint` for all of them),
 * every request signed with the API key and secret (signature.ts). Exoscale publishes no
 * request rate for its API v2 (its document names none): cairn keeps to 10 requests a second
 * (36,000 an hour, bursts of 20), a guess kept low, shared by every zone of one key. Managed
 * PostgreSQL is its DBaaS (managed-databases.ts), on the same signed clients and budget.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient, type VendorErrorText } from '../kit/vendor-http.js';
import { ExoscaleCloudDriver } from './cloud-driver.js';
import { ExoscaleManagedDatabaseDriver } from './managed-databases.js';
import { exoscaleAuthorization, SIGNATURE_LIFETIME_S } from './signature.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';

/** The API of a zone, as Exoscale's document names its servers. */
export function zoneApi(zone: string): string {
  return `https://api-${zone}.exoscale.com/v2`;
}

/** Exoscale's error body: `{ "message": "..." }`. */
function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { message?: unknown } | undefined;
  if (typeof error?.message !== 'string' || error.message === '') return undefined;
  return { message: error.message };
}

function credential(config: DriverConfig, name: 'api_key' | 'api_secret', what: string): string {
  const value = config.credentials?.[name];
  if (value === undefined || value === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: exoscale needs credentials with "api_key" and "api_secret"; "${name}" (${what}) is missing`);
  }
  return value;
}

/** The driver's API clients: one per zone (or one for all behind `spec.endpoint`), one shared budget. */
export function exoscaleApis(config: DriverConfig): ConstructorParameters<typeof ExoscaleCloudDriver>[0] {
  const apiKey = credential(config, 'api_key', 'the key, EXO…');
  const apiSecret = credential(config, 'api_secret', "the key's secret");
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const fingerprint = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
  const budget = sharedBudget(`exoscale ${endpoint ?? 'exoscale.com'} ${fingerprint}`, { perHour: 36_000, burst: 20 });
  const clients = new Map<string, VendorHttpClient>();
  function clientFor(zone: string): VendorHttpClient {
    const baseUrl = endpoint ?? zoneApi(zone);
    let client = clients.get(baseUrl);
    if (!client) {
      client = new VendorHttpClient({
        label: 'exoscale',
        baseUrl,
        authorize: (request) => ({ authorization: exoscaleAuthorization(apiKey, apiSecret, request, Math.floor(Date.now() / 1000) + SIGNATURE_LIFETIME_S) }),
        readError,
        requestTimeoutMs: config.requestTimeoutMs,
        budget,
      });
      clients.set(baseUrl, client);
    }
    return client;
  }
  return { clientFor, single: endpoint !== undefined, describeEndpoint: endpoint ?? zoneApi('<zone>') };
}

export const exoscaleVendor: Vendor = {
  id: 'exoscale',
  description:
    'Exoscale: Compute instances in its European zones (Geneva, Zurich, Frankfurt, Munich, Vienna, Sofia, Zagreb). Prices are not in its API (sizes show 0). Managed PostgreSQL through its DBaaS (backups on its own schedule only); databases and apps on its instances run over SSH.',
  credentialFields: [
    { name: 'api_key', description: 'API key (EXO…), from IAM → Keys in the Exoscale portal, with a role allowing Compute.', required: true },
    { name: 'api_secret', description: "The API key's secret, shown once when the key is made.", required: true },
  ],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no key, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    return new ExoscaleCloudDriver(exoscaleApis(config));
  },
  managedDatabaseEngines: ['postgresql'],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no key, bad endpoint) is a rejected promise
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    return new ExoscaleManagedDatabaseDriver(exoscaleApis(config), 500);
  },
  // Databases and apps on its servers run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('exoscale', config);
  },
};
