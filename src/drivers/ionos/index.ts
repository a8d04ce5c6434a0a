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
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { UnsupportedError, VendorAuthError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient, type VendorErrorText } from '../kit/vendor-http.js';
import { IonosCloudDriver } from './cloud-driver.js';

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

export function ionosClient(config: DriverConfig): { client: VendorHttpClient; baseUrl: string } {
  const { header, identity } = ionosAuthorization(config);
  const baseUrl = checkedEndpoint(config.providerName, config.spec.endpoint) ?? IONOS_API;
  const fingerprint = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  const client = new VendorHttpClient({
    label: 'ionos', baseUrl, readError, requestTimeoutMs: config.requestTimeoutMs,
    authorize: () => ({ authorization: header }),
    budget: sharedBudget(`ionos ${baseUrl} ${fingerprint}`, { perHour: 7_200, burst: 50 }),
  });
  return { client, baseUrl };
}

export const ionosVendor: Vendor = {
  id: 'ionos',
  description: 'IONOS Cloud: servers in its locations (Frankfurt, Berlin, Karlsruhe, London, Paris, Logroño, Las Vegas, Newark, ...), one virtual data center per location named cairn-<location>. Managed databases are not built yet; apps on its servers need SSH.',
  credentialFields: [
    { name: 'token', description: 'IONOS Cloud API token (DCD → Management → Token Manager, or `ionosctl token generate`). Give either this or username and password.', required: false },
    { name: 'username', description: 'IONOS Cloud account e-mail (with password, instead of a token).', required: false },
    { name: 'password', description: 'IONOS Cloud account password (with username, instead of a token).', required: false },
  ],
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (missing credentials, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const { client, baseUrl } = ionosClient(config);
    return new IonosCloudDriver(client, baseUrl);
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return Promise.reject(new UnsupportedError(`Provider/${config.providerName}: managed PostgreSQL and MongoDB on IONOS are not built yet, and apps on a server need cairn to reach it over SSH, which is not built yet`));
  },
};
