/**
 * @module The `ionos` vendor: servers in IONOS Cloud through its Cloud API v6
 * (https://api.ionos.com/cloudapi/v6, or the Provider's `spec.endpoint`), authenticated either by
 * an API token (a bearer token) or by the account's username and password (HTTP Basic), one or
 * the other. Budget: IONOS sets its limits per contract and reports them on every answer
 * (the document's `X-RateLimit-Limit`, "the average number of requests per minute allowed", and
 * `X-RateLimit-Burst`, "the maximum number of concurrent API requests"); cairn keeps to the
 * default IONOS's Cloud API documentation gives for a contract, 120 requests a minute (7,200 an
 * hour) in bursts of at most 50, and a 429's Retry-After pauses the provider.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient, type VendorErrorText } from '../kit/vendor-http.js';
import { IonosCloudDriver } from './cloud-driver.js';
import { sharedDatacenters } from './datacenters.js';
import { IonosManagedDatabaseDriver } from './managed-databases.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';

export const IONOS_API = 'https://api.ionos.com/cloudapi/v6';

/** IONOS's error body: `{ "httpStatus": 422, "messages": [{ "errorCode": "100", "message": "..." }] }` (the document's `Error`). */
export function readError(body: unknown): VendorErrorText | undefined {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  const texts = messages
    .filter((m): m is { message: string; errorCode?: unknown } => typeof (m as { message?: unknown } | null)?.message === 'string')
    .map((m) => (typeof m.errorCode === 'string' && m.errorCode !== '' ? `[${m.errorCode}] ${m.message}` : m.message));
  return texts.length === 0 ? undefined : { message: texts.join('; ') };
}

/** The `Authorization` header of a Provider's credentials: a token, or a username and password; refused plainly otherwise. */
export function ionosAuthorization(config: DriverConfig): { header: string; identity: string } {
  const given = config.credentials ?? {};
  const token = given['token'] ?? '';
  const username = given['username'] ?? '';
  const password = given['password'] ?? '';
  const where = `Provider/${config.providerName}: ionos needs credentials with either a "token" (an IONOS Cloud API token) or a "username" and "password"`;
  if (token !== '' && (username !== '' || password !== '')) throw new VendorAuthError(`${where}, not both`);
  if (token !== '') return { header: `Bearer ${token}`, identity: token };
  if (username === '' && password === '') throw new VendorAuthError(where);
  if (username === '' || password === '') throw new VendorAuthError(`${where}; missing: ${username === '' ? 'username' : 'password'}`);
  return { header: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`, identity: `${username}\n${password}` };
}

/**
 * The base URL of one of IONOS's DBaaS APIs (`postgresql`, `mongodb`): beside the Cloud API on
 * the same host (https://api.ionos.com/databases/postgresql). With a Provider's `spec.endpoint`,
 * the endpoint's trailing `/cloudapi/v6` is replaced by `/databases/<engine>` (an endpoint
 * without it gets `/databases/<engine>` appended), so one host (a proxy, a test double) serves all three.
 */
export function databaseApiBase(cloudBase: string, engine: 'postgresql' | 'mongodb'): string {
  return `${cloudBase.replace(/\/cloudapi\/v6$/, '')}/databases/${engine}`;
}

/**
 * A client of the Cloud API (or, given `api`, of one of the DBaaS APIs); every client of one
 * account and endpoint shares one rate budget, since IONOS's limits are the contract's, not an API's.
 */
export function ionosClient(config: DriverConfig, api?: 'postgresql' | 'mongodb'): { client: VendorHttpClient; baseUrl: string; account: string } {
  const { header, identity } = ionosAuthorization(config);
  const cloudBase = checkedEndpoint(config.providerName, config.spec.endpoint) ?? IONOS_API;
  const baseUrl = api === undefined ? cloudBase : databaseApiBase(cloudBase, api);
  const fingerprint = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  const client = new VendorHttpClient({
    label: 'ionos', baseUrl, readError, requestTimeoutMs: config.requestTimeoutMs,
    authorize: () => ({ authorization: header }),
    budget: sharedBudget(`ionos ${cloudBase} ${fingerprint}`, { perHour: 7_200, burst: 50 }),
  });
  return { client, baseUrl, account: `ionos ${cloudBase} ${fingerprint}` };
}

export const ionosVendor: Vendor = {
  id: 'ionos',
  description: 'IONOS Cloud: servers in its locations (Frankfurt, Berlin, Karlsruhe, London, Paris, Logroño, Las Vegas, Newark, ...), one virtual data center per location named cairn-<location>; managed PostgreSQL (DBaaS) connected to that data center. Managed MongoDB is not built yet; databases and apps on its servers run over SSH.',
  credentialFields: [
    { name: 'token', description: 'IONOS Cloud API token (DCD → Management → Token Manager, or `ionosctl token generate`). Give either this or username and password.', required: false },
    { name: 'username', description: 'IONOS Cloud account e-mail (with password, instead of a token).', required: false },
    { name: 'password', description: 'IONOS Cloud account password (with username, instead of a token).', required: false },
  ],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (missing credentials, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const { client, baseUrl, account } = ionosClient(config);
    return new IonosCloudDriver(client, baseUrl, sharedDatacenters(account, client));
  },
  // Databases and apps on its servers run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('ionos', config);
  },
  managedDatabaseEngines: ['postgresql'],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (missing credentials, bad endpoint) is a rejected promise
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const cloud = ionosClient(config);
    return new IonosManagedDatabaseDriver({ postgresql: ionosClient(config, 'postgresql').client, datacenters: sharedDatacenters(cloud.account, cloud.client) });
  },
};
