/**
 * @module The `scaleway` vendor: Instances through Scaleway's Instance API v1 and managed
 * PostgreSQL through its RDB API v1 (managed-databases.ts), both at https://api.scaleway.com ( or the Provider's `spec.endpoint`), authenticated by an IAM API
 * key's secret key in `X-Auth-Token`, working in one Project (`project_id`: servers are created
 * there and lists are filtered by it). Scaleway's document publishes no rate limit, so cairn
 * keeps to a conservative 10 requests a second (36,000 an hour, bursts of 10) per key, and
 * follows a 429's `Retry-After` when Scaleway sends one.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient } from '../kit/vendor-http.js';
import { ScalewayCloudDriver } from './cloud-driver.js';
import { ScalewayManagedDatabaseDriver } from './managed-databases.js';
import { readError } from './wire-format.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';

export const SCALEWAY_API = 'https://api.scaleway.com';

/** Conservative: Scaleway publishes no figure in its document (see the module comment). */
export const SCALEWAY_BUDGET = { perHour: 36_000, burst: 10 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function credential(config: DriverConfig, name: string, what: string): string {
  const value = config.credentials?.[name];
  if (value === undefined || value === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: scaleway needs credentials with a "${name}" (${what}) and a "${name === 'secret_key' ? 'project_id' : 'secret_key'}"`);
  }
  return value;
}

export const scalewayVendor: Vendor = {
  id: 'scaleway',
  description: 'Scaleway: Instances in its Paris, Amsterdam, Warsaw and Milan zones. Managed PostgreSQL (Databases with managed: true) in fr-par, nl-ams and pl-waw; databases and apps on its Instances run over SSH.',
  credentialFields: [
    { name: 'secret_key', description: "An IAM API key's secret key (console → IAM → API keys), whose policy allows Instances (and RDB, for managed databases) in the project.", required: true },
    { name: 'project_id', description: 'The Project (a UUID, console → Project settings) servers are created in and listed from.', required: true },
  ],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no key, bad project, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const { client, baseUrl, projectId } = scalewayClient(config);
    return new ScalewayCloudDriver(client, baseUrl, projectId);
  },
  managedDatabaseEngines: ['postgresql'],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no key, bad project, bad endpoint) is a rejected promise, as for every vendor
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const { client, projectId } = scalewayClient(config);
    return new ScalewayManagedDatabaseDriver(client, projectId);
  },
  // Databases and apps on its servers run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('scaleway', config);
  },
};

/** The HTTP client of one Provider's key and project, shared by Instances and managed databases. */
function scalewayClient(config: DriverConfig): { client: VendorHttpClient; baseUrl: string; projectId: string } {
  const secretKey = credential(config, 'secret_key', "an IAM API key's secret key");
  const projectId = credential(config, 'project_id', 'the Project UUID');
  if (!UUID.test(projectId)) {
    throw new VendorRejectedError(`Provider/${config.providerName}: scaleway credentials: project_id "${projectId}" is not a Project UUID (console → Project settings)`, { field: 'project_id' });
  }
  const baseUrl = checkedEndpoint(config.providerName, config.spec.endpoint) ?? SCALEWAY_API;
  const fingerprint = createHash('sha256').update(secretKey).digest('hex').slice(0, 16);
  const client = new VendorHttpClient({
    label: 'scaleway',
    baseUrl,
    authorize: () => ({ 'x-auth-token': secretKey }),
    readError,
    requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`scaleway ${baseUrl} ${fingerprint}`, SCALEWAY_BUDGET),
  });
  return { client, baseUrl, projectId };
}

