/**
 * @module The `gcp` vendor: Compute Engine instances through Google's own REST clients
 * (`@googleapis/compute`, signed in with `google-auth-library` from a service-account key), at
 * https://compute.googleapis.com or the Provider's `spec.endpoint` (the API root), the OAuth2
 * token taken from the key's own `token_uri`; both through the outbound guard. Within Compute
 * Engine's published rate quota (1,500 requests a minute per project per group). Managed
 * PostgreSQL is Cloud SQL (`@googleapis/sqladmin`, cloud-sql.ts). Databases and apps on its
 * instances run over SSH.
 */
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';
import type { GcpClient } from './gcp-client.js';
import { readServiceAccountKey } from './service-account.js';

export const GCP_API = 'https://compute.googleapis.com';

/** The client for a Provider: its key (the `serviceAccountKey` field, or the key file's own fields) read and checked, its endpoint checked. */
export async function gcpClient(config: DriverConfig): Promise<GcpClient> {
  const where = `Provider/${config.providerName}`;
  const credentials = config.credentials ?? {};
  // A `credentialsRef.env` variable holding the key file itself (a JSON object) arrives as its fields.
  const json = credentials['serviceAccountKey'] ?? (credentials['type'] === 'service_account' ? JSON.stringify(credentials) : undefined);
  const key = readServiceAccountKey(json, where, credentials['type'] === 'service_account' ? undefined : credentials['project']);
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const { GcpClient } = await import('./gcp-client.js');
  return new GcpClient({ key, endpoint, requestTimeoutMs: config.requestTimeoutMs });
}

function pollMs(): number {
  const raw = Number(process.env['CAIRN_POLL_MS']);
  return Number.isFinite(raw) && raw > 0 ? Math.min(raw, 2_000) : 500;
}

export const gcpVendor: Vendor = {
  id: 'gcp',
  description: 'Google Cloud: Compute Engine instances in any zone (europe-west1-b, us-central1-a, asia-northeast1-a, ...); a Server\'s region is a zone. Managed PostgreSQL is Cloud SQL for PostgreSQL (a region and a tier; cairn\'s password for the postgres user; on-demand backups and in-place restore, but no final backup, as Cloud SQL deletes backups with their instance); databases and apps on its instances run over SSH.',
  credentialFields: [
    { name: 'serviceAccountKey', description: 'A service-account key: the whole JSON file from IAM → Service accounts → Keys (type, project_id, private_key, client_email, token_uri). The account needs the Compute Instance Admin (v1) role (and Cloud SQL Admin for managed databases).', required: true },
    { name: 'project', description: 'The project to work in, when not the key\'s own project_id.', required: false },
  ],
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    // The SDK is loaded here, on first use, not with the registry: every command and test process
    // would otherwise pay for loading it (a second and more) whether or not it drives this vendor.
    const client = await gcpClient(config);
    const { GcpCloudDriver } = await import('./cloud-driver.js');
    return new GcpCloudDriver(client, config.spec.endpoint ?? GCP_API, pollMs());
  },
  managedDatabaseEngines: ['postgresql'],
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const client = await gcpClient(config);
    const { CloudSqlPostgres } = await import('./cloud-sql.js');
    return { vendor: 'gcp', databases: new CloudSqlPostgres(client, pollMs()), close: () => Promise.resolve() };
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('gcp', config);
  },
};
