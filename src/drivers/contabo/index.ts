/**
 * @module The `contabo` vendor: Compute instances through Contabo's API
 * (https://api.contabo.com, or the Provider's `spec.endpoint`), authenticated by an OAuth2
 * password grant with the four credentials Contabo issues (access-token.ts; its token URL below
 * the endpoint when one is set, so a test double serves it too). Contabo publishes no rate limit
 * (its document lists 429 only): cairn's budget is a guess, 5 requests a second (18,000 an hour),
 * bursts of 10, and a 429's Retry-After pauses the provider.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { CONTABO_AUTH, ContaboAccessToken, TOKEN_PATH, type ContaboCredentials } from './access-token.js';
import { ContaboHttpClient } from './client.js';
import { ContaboCloudDriver } from './cloud-driver.js';
import { readError } from './wire-format.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';

export const CONTABO_API = 'https://api.contabo.com';

const FIELDS: Array<{ name: string; key: keyof ContaboCredentials; description: string }> = [
  { name: 'client_id', key: 'clientId', description: 'ClientId (Customer Control Panel → API).' },
  { name: 'client_secret', key: 'clientSecret', description: 'ClientSecret (Customer Control Panel → API).' },
  { name: 'api_user', key: 'apiUser', description: 'API User: the e-mail address you log in to the Customer Control Panel with.' },
  { name: 'api_password', key: 'apiPassword', description: 'API Password, set in the Customer Control Panel → API (not your login password).' },
];

function credentialsOf(config: DriverConfig): ContaboCredentials {
  const given = config.credentials ?? {};
  const missing = FIELDS.filter((f) => (given[f.name] ?? '') === '').map((f) => f.name);
  if (missing.length > 0) {
    throw new VendorAuthError(`Provider/${config.providerName}: contabo needs credentials with ${FIELDS.map((f) => `"${f.name}"`).join(', ')}; missing: ${missing.join(', ')}`);
  }
  return Object.fromEntries(FIELDS.map((f) => [f.key, given[f.name] ?? ''])) as unknown as ContaboCredentials;
}

export function contaboClient(config: DriverConfig): { client: ContaboHttpClient; token: ContaboAccessToken; baseUrl: string } {
  const credentials = credentialsOf(config);
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const baseUrl = endpoint ?? CONTABO_API;
  const token = new ContaboAccessToken(`${endpoint ?? CONTABO_AUTH}${TOKEN_PATH}`, credentials, config.requestTimeoutMs);
  const fingerprint = createHash('sha256').update(`${credentials.clientId}\n${credentials.apiUser}`).digest('hex').slice(0, 16);
  const client = new ContaboHttpClient(token, {
    label: 'contabo', baseUrl, readError, requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`contabo ${baseUrl} ${fingerprint}`, { perHour: 18_000, burst: 10 }),
  });
  return { client, token, baseUrl };
}

export const contaboVendor: Vendor = {
  id: 'contabo',
  description: 'Contabo: Cloud VPS instances in the EU, US (central, east, west), UK, Singapore, Japan, Australia and India. A delete cancels the instance at the end of its term; sizes cannot change in place. Managed databases are not built yet; databases and apps on its instances run over SSH.',
  credentialFields: FIELDS.map((f) => ({ name: f.name, description: f.description, required: true })),
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (missing credentials, bad endpoint) is a rejected promise, as for every vendor
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const { client, baseUrl } = contaboClient(config);
    return new ContaboCloudDriver(client, baseUrl);
  },
  // Databases and apps on its servers run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('contabo', config);
  },
};
