/**
 * @module The `tencent` vendor: Tencent Cloud CVM instances through Tencent's official Node.js
 * SDK (tencentcloud-sdk-nodejs-cvm on tencentcloud-sdk-nodejs-common: API 3.0, every request
 * signed TC3-HMAC-SHA256 with the SecretId and SecretKey), at `https://cvm.tencentcloudapi.com`
 * or under the Provider's `spec.endpoint`. Tencent's API pages give each action its own limit
 * of 10 to 40 requests a second per account (the writes, e.g. RunInstances and StopInstances,
 * 10): cairn keeps every action to the lowest, 10 a second (36,000 an hour), in bursts of at
 * most 4, so that no second ever sees more than 14, shared by every driver of one SecretId.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';
import type { TencentApi } from './sdk-client.js';

/** Tencent's published per-action limit cairn keeps to (the lowest), and its burst. */
export const TENCENT_BUDGET = { perHour: 36_000, burst: 4 };

function credential(config: DriverConfig, name: 'secret_id' | 'secret_key', what: string): string {
  const value = config.credentials?.[name];
  if (value === undefined || value === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: tencent needs credentials with "secret_id" and "secret_key"; "${name}" (${what}) is missing`);
  }
  return value;
}

/** The SDK clients of a Provider, with its credentials, endpoint and budget. */
export async function tencentApi(config: DriverConfig): Promise<TencentApi> {
  const secretId = credential(config, 'secret_id', 'the SecretId, AKID…');
  const secretKey = credential(config, 'secret_key', 'the SecretKey');
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const fingerprint = createHash('sha256').update(secretId).digest('hex').slice(0, 16);
  const budget = sharedBudget(`tencent ${endpoint ?? 'tencentcloudapi.com'} ${fingerprint}`, TENCENT_BUDGET);
  const { TencentApi } = await import('./sdk-client.js');
  return new TencentApi({ secretId, secretKey, endpoint, requestTimeoutMs: config.requestTimeoutMs, budget });
}

export const tencentVendor: Vendor = {
  id: 'tencent',
  description:
    'Tencent Cloud: CVM instances (hourly billed) in its regions and zones (Guangzhou, Shanghai, Beijing, Hong Kong, Singapore, Frankfurt, Silicon Valley, ...), through its official SDK. Managed PostgreSQL is TencentDB for PostgreSQL and managed MongoDB TencentDB for MongoDB (pay-as-you-go, cairn\'s password; MongoDB backups on demand, no restore); databases and apps on its instances run over SSH.',
  credentialFields: [
    { name: 'secret_id', description: 'SecretId of an API key (CAM → API Keys), of a user allowed CVM (e.g. QcloudCVMFullAccess).', required: true },
    { name: 'secret_key', description: "The API key's SecretKey.", required: true },
  ],
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    // The SDK is loaded here, on first use, not with the registry: every command and test process
    // would otherwise pay for loading it (a second and more) whether or not it drives this vendor.
    const api = await tencentApi(config);
    const { TencentCloudDriver } = await import('./cloud-driver.js');
    return new TencentCloudDriver(api);
  },
  managedDatabaseEngines: ['postgresql', 'mongodb'],
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const api = await tencentApi(config);
    const [{ TencentPostgres }, { TencentMongo }, { TencentManagedDatabases }] = await Promise.all([import('./postgres.js'), import('./mongodb.js'), import('./managed-databases.js')]);
    return { vendor: 'tencent', databases: new TencentManagedDatabases(new TencentPostgres(api), new TencentMongo(api)), close: () => Promise.resolve() };
  },
  // Databases and apps on its servers run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('tencent', config);
  },
};
