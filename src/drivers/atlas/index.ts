/**
 * @module The `atlas` vendor (MongoDB Atlas): managed MongoDB clusters through the Atlas
 * Administration API v2 (`<endpoint>/api/atlas/v2`, endpoint https://cloud.mongodb.com or the
 * Provider's `spec.endpoint`). MongoDB publishes no Node SDK for the Admin API v2 (its SDKs are
 * for Go and Java; npm's `mongodb-atlas-api-client` is a community client of the retired v1.0
 * API), so this is built on the vendor kit. Authenticated as a service account (client id and
 * secret exchanged for a bearer token, service-account-token.ts); the credentials also name the
 * project (group) the clusters live in. Atlas runs databases, not servers: its cloud and
 * runtime drivers are refused saying so, and the provider's credential test reads the project.
 * Budget: Atlas allows 100 Admin API requests a minute per project (its "API rate limits" page);
 * the kit keeps to that.
 */
import { createHash } from 'node:crypto';
import type { CallOptions, CloudDriver, CredentialTest, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget } from '../kit/rate-budget.js';
import { VendorHttpClient, type VendorErrorText } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { AtlasCatalog } from './catalog.js';
import { AtlasClusters } from './clusters.js';
import { ATLAS_VERSION_2023_01_01, type AtlasProject } from './project.js';
import { ServiceAccountToken, readOAuthError } from './service-account-token.js';

export const ATLAS_ENDPOINT = 'https://cloud.mongodb.com';

/** Why Atlas has no servers in cairn (said by its cloud and runtime drivers). */
export const ATLAS_RUNS_NO_SERVERS =
  'MongoDB Atlas runs managed MongoDB clusters, not servers: use it for Databases with managed: true and type: mongodb (provider, region, size), and another vendor for Servers and Apps';

/** Atlas's error body: `{ "detail": "...", "error": 404, "errorCode": "CLUSTER_NOT_FOUND", "reason": "Not Found" }`. */
export function readAtlasError(body: unknown): VendorErrorText | undefined {
  const error = body as { detail?: unknown; errorCode?: unknown; reason?: unknown } | undefined;
  if (typeof error?.errorCode !== 'string') return undefined;
  const text = typeof error.detail === 'string' ? error.detail : typeof error.reason === 'string' ? error.reason : error.errorCode;
  return { message: `${text} (${error.errorCode})` };
}

const PROJECT_ID = /^[a-f0-9]{24}$/;

function required(config: DriverConfig, field: string, what: string): string {
  const value = config.credentials?.[field];
  if (value === undefined || value === '') {
    throw new VendorAuthError(`Provider/${config.providerName}: atlas needs credentials with "clientId", "clientSecret" and "projectId" (a JSON object); "${field}" (${what}) is missing`);
  }
  return value;
}

/** The Admin API client of a provider: its service account's token, its project, and one budget per project and account. */
function atlasClient(config: DriverConfig): { client: VendorHttpClient; project: AtlasProject } {
  const clientId = required(config, 'clientId', "the service account's client id");
  const clientSecret = required(config, 'clientSecret', "the service account's client secret");
  const projectId = required(config, 'projectId', 'the project (group) id');
  if (!PROJECT_ID.test(projectId)) throw new VendorRejectedError(`Provider/${config.providerName}: atlas projectId "${projectId}" is not an Atlas project id (24 hex digits)`, { field: 'projectId' });
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint) ?? ATLAS_ENDPOINT;
  const fingerprint = createHash('sha256').update(`${clientId}\n${clientSecret}`).digest('hex').slice(0, 16);
  const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  const tokens = new ServiceAccountToken(new VendorHttpClient({
    label: 'atlas', baseUrl: endpoint, authorize: () => ({ authorization: basic }), readError: readOAuthError, requestTimeoutMs: config.requestTimeoutMs,
  }));
  const client = new VendorHttpClient({
    label: 'atlas',
    baseUrl: `${endpoint}/api/atlas/v2`,
    authorize: async () => ({ authorization: `Bearer ${await tokens.bearer()}` }),
    readError: readAtlasError,
    requestTimeoutMs: config.requestTimeoutMs,
    budget: sharedBudget(`atlas ${endpoint} ${projectId} ${fingerprint}`, { perHour: 6000, burst: 100, perMinute: 100 }),
  });
  return { client, project: { id: projectId, path: `/groups/${projectId}` } };
}

/** Atlas's managed MongoDB as cairn's ManagedDatabaseDriver. */
export class AtlasManagedDatabaseDriver implements ManagedDatabaseDriver {
  readonly vendor = 'atlas';
  readonly databases: AtlasClusters;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly project: AtlasProject,
    pollMs = 1000,
  ) {
    this.databases = new AtlasClusters(client, project, new AtlasCatalog(client, project), pollMs);
  }

  /** Reads the project: the cheapest call that needs both a valid service account and access to the project. */
  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    const doing = `read project ${this.project.id}`;
    try {
      const answer = await this.client.call({ method: 'GET', path: this.project.path, headers: ATLAS_VERSION_2023_01_01, doing, signal: options.signal });
      const name = WireReader.of(answer.body, `atlas: ${doing}`).string('name');
      return { ok: true, message: `the service account reaches Atlas project "${name}" (${this.project.id})` };
    } catch (error) {
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export const atlasVendor: Vendor = {
  id: 'atlas',
  description: 'MongoDB Atlas: managed MongoDB clusters (Databases with managed: true) on AWS, Google Cloud and Azure regions, with on-demand snapshots and restores. No servers.',
  credentialFields: [
    { name: 'clientId', description: 'Client id of an Atlas service account (Organization or Project → Access Manager → Service Accounts) with the Project Owner role on the project', required: true },
    { name: 'clientSecret', description: "The service account's client secret", required: true },
    { name: 'projectId', description: 'The Atlas project (group) id the clusters live in: 24 hex digits (Project Settings)', required: true },
  ],
  managedDatabaseEngines: ['mongodb'],
  serversUnsupported: ATLAS_RUNS_NO_SERVERS,
  createCloudDriver(): Promise<CloudDriver> {
    return Promise.reject(new UnsupportedError(`atlas: ${ATLAS_RUNS_NO_SERVERS}`));
  },
  createRuntimeDriver(): Promise<RuntimeDriver> {
    return Promise.reject(new UnsupportedError(`atlas: ${ATLAS_RUNS_NO_SERVERS}`));
  },
  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal (missing credentials, bad endpoint) is a rejected promise
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const { client, project } = atlasClient(config);
    return new AtlasManagedDatabaseDriver(client, project);
  },
};
