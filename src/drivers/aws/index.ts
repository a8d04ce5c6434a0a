/**
 * @module The `aws` vendor: EC2 instances and RDS for PostgreSQL through AWS's official SDK v3
 * (`@aws-sdk/client-ec2`, `@aws-sdk/client-rds`, Signature Version 4), at the region's endpoint or the Provider's `spec.endpoint` for every
 * region. Credentials are an IAM access key: `access_key_id` and `secret_access_key` (and a
 * `session_token` for temporary keys), and optionally `region`, where the catalog is read (default
 * us-east-1); `credentialsRef.env` holds them as one JSON object. The budget is EC2's published
 * request-rate throttling for non-mutating actions (a bucket of 100, refilled at 20 a second:
 * docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html), shared by the provider.
 */
import { createHash } from 'node:crypto';
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { sharedBudget, type RateBudget } from '../kit/rate-budget.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';
import type { AwsClients, AwsCredentials } from './clients.js';

export const DEFAULT_HOME_REGION = 'us-east-1';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

function credentialsOf(config: DriverConfig): AwsCredentials {
  const get = (name: string): string | undefined => {
    const value = config.credentials?.[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const accessKeyId = get('access_key_id');
  const secretAccessKey = get('secret_access_key');
  const missing = [accessKeyId === undefined ? 'access_key_id' : undefined, secretAccessKey === undefined ? 'secret_access_key' : undefined].filter(Boolean);
  if (missing.length > 0) {
    throw new VendorAuthError(`Provider/${config.providerName}: aws needs credentials with "access_key_id" and "secret_access_key" (an IAM access key; with credentialsRef.env, the variable holds them as one JSON object); missing: ${missing.join(', ')}`);
  }
  const sessionToken = get('session_token');
  return { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, ...(sessionToken === undefined ? {} : { sessionToken }) };
}

/** What every AWS client of a provider is made from: its credentials, home region, endpoint and the budget it shares. */
export function awsConnection(config: DriverConfig): { credentials: AwsCredentials; homeRegion: string; endpoint: string | undefined; budget: RateBudget; requestTimeoutMs: number } {
  const credentials = credentialsOf(config);
  const homeRegion = config.credentials?.['region'] || DEFAULT_HOME_REGION;
  if (!REGION.test(homeRegion)) throw new VendorRejectedError(`Provider/${config.providerName}: credentials' region "${homeRegion}" is not an AWS region name (e.g. eu-west-1)`, { field: 'region' });
  const endpoint = checkedEndpoint(config.providerName, config.spec.endpoint);
  const fingerprint = createHash('sha256').update(credentials.accessKeyId).digest('hex').slice(0, 16);
  const budget = sharedBudget(`aws ${endpoint ?? 'amazonaws.com'} ${fingerprint}`, { perHour: 72_000, burst: 100 });
  return { credentials, homeRegion, endpoint, budget, requestTimeoutMs: config.requestTimeoutMs };
}

/** The provider's SDK clients, home region and endpoint, from its config (refused plainly when incomplete). */
export async function awsClients(config: DriverConfig): Promise<{ clients: AwsClients; homeRegion: string; describeEndpoint: string }> {
  const { credentials, homeRegion, endpoint, budget, requestTimeoutMs } = awsConnection(config);
  const { AwsClients } = await import('./clients.js');
  const clients = new AwsClients({ credentials, endpoint, requestTimeoutMs, budget });
  return { clients, homeRegion, describeEndpoint: endpoint ?? 'AWS (ec2.<region>.amazonaws.com)' };
}

export const awsVendor: Vendor = {
  id: 'aws',
  description: 'Amazon Web Services: EC2 instances in the regions enabled for the account (Ireland, Frankfurt, N. Virginia, Oregon, Tokyo, ...). Prices are not in its API (sizes show 0). Managed PostgreSQL is RDS for PostgreSQL and managed MongoDB Amazon DocumentDB (cairn\'s password, snapshots as backups, no restore in place); databases and apps on its instances run over SSH.',
  credentialFields: [
    { name: 'access_key_id', description: 'IAM access key id (AKIA… or ASIA…), from IAM → Users → Security credentials, with a policy allowing ec2:Describe*, RunInstances, CreateTags, Start/Stop/Reboot/TerminateInstances and ModifyInstanceAttribute (and, for managed databases, rds:DescribeOrderableDBInstanceOptions, Describe/Create/Modify/DeleteDBInstance, Create/Describe/DeleteDBSnapshot, AddTagsToResource and ListTagsForResource, and rds:* on DocumentDB clusters and cluster snapshots).', required: true },
    { name: 'secret_access_key', description: "The access key's secret, shown once when the key is made.", required: true },
    { name: 'session_token', description: 'The session token of temporary credentials (STS); leave out for a long-term key.', required: false },
    { name: 'region', description: `Where cairn reads the account's regions and instance types; default ${DEFAULT_HOME_REGION}.`, required: false },
  ],
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    // The SDK is loaded here, on first use, not with the registry: every command and test process
    // would otherwise pay for loading it (a second and more) whether or not it drives this vendor.
    const { clients, homeRegion, describeEndpoint } = await awsClients(config);
    const { AwsCloudDriver } = await import('./cloud-driver.js');
    return new AwsCloudDriver(clients, homeRegion, describeEndpoint);
  },
  managedDatabaseEngines: ['mongodb', 'postgresql'],
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    // The RDS and DocumentDB SDKs are loaded here, on first use, never with the registry.
    const connection = awsConnection(config);
    const { clients, homeRegion } = await awsClients(config);
    const [{ DocdbDatabases, ownsDocdbId }, { RdsPostgres }, { AwsManagedDatabases }] = await Promise.all([import('./docdb.js'), import('./rds.js'), import('./managed-databases.js')]);
    const docdb = new DocdbDatabases(connection);
    const rds = new RdsPostgres(clients, homeRegion);
    const databases = new AwsManagedDatabases({ mongodb: docdb, postgresql: rds }, { mongodb: ownsDocdbId, postgresql: (id) => !ownsDocdbId(id) });
    return { vendor: 'aws', databases, close: () => {
      docdb.close();
      clients.close();
      return Promise.resolve();
    } };
  },
  // Databases and apps on its instances run over SSH.
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('aws', config);
  },
};

