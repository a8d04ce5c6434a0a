/**
 * @module The `scaleway` vendor: Instances through Scaleway's Instance API v1
 * (https://api.scaleway.com, or the Provider's `spec.endpoint`), authenticated by an IAM API
 * key's secret key in `X-Auth-Token`, working in one Project (`project_id`: servers are created
 * there and lists are filtered by it). Scaleway's document publishes no rate limit, so cairn
 * keeps to a conservative 10 requests a second (36,000 an hour, bursts of 10) per key, and
 * follows a 429's `Retry-After` when Scaleway sends one.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient } from '../kit/vendor-http.js';
import { ScalewayCloudDriver } from './cloud-driver.js';
import { readError } from './wire-format.js';

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
  description: 'Scaleway: Instances in its Paris, Amsterdam, Warsaw and Milan zones. Managed databases are not built yet; apps on its Instances need SSH.',
  credentialFields: [
    { name: 'secret_key', description: "An IAM API key's secret key (console → IAM → API keys), whose policy allows Instances in the project.", required: true },
    { name: 'project_id', description: 'The Project (a UUID, console → Project settings) servers are created in and listed from.', required: true },
  ],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (no key, bad project, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
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
    return new ScalewayCloudDriver(client, baseUrl, projectId);
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return Promise.reject(new UnsupportedError(`Provider/${config.providerName}: managed databases on Scaleway are not built yet, and apps on an Instance need cairn to reach it over SSH, which is not built yet`));
  },
};
