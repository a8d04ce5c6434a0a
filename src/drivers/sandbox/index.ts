/**
 * @module The `sandbox` vendor: cairn's simulated cloud. Its drivers talk HTTP to a sandbox
 * cloud — a separate `cairn sandbox-cloud` when the Provider names `spec.endpoint`, otherwise
 * one started inside this process for the data dir.
 */
import type { CloudDriver, CredentialField, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { checkedEndpoint } from '../kit/endpoint.js';
import { SandboxCloudDriver } from './cloud-driver.js';
import { SandboxHttpClient } from './http-client.js';
import { acquireInProcessCloud } from './in-process-cloud.js';
import { SandboxRuntimeDriver } from './runtime-driver.js';

/** The bearer token sent when the Provider has no credentials (the sandbox accepts any non-empty one). */
export const DEFAULT_SANDBOX_TOKEN = 'sandbox';

/** The sandbox's credential bundle: `{ token }`, optional. */
export const SANDBOX_CREDENTIAL_FIELDS: readonly CredentialField[] = [
  {
    name: 'token',
    description: 'Bearer token of a sandbox cloud started with `cairn sandbox-cloud --token T`. Optional: without --token, and in-process, the sandbox accepts any non-empty token.',
    required: false,
  },
];

interface Connection {
  client: SandboxHttpClient;
  /** Where the sandbox is, for messages. */
  describe: string;
  release: () => Promise<void>;
}

/**
 * Knobs of the in-process sandbox, from the environment (demos and tests):
 * CAIRN_SANDBOX_PROVISION_MS (how long a new server provisions; default 1000) and
 * CAIRN_SANDBOX_LATENCY_MS (added to every answer).
 */
function inProcessOptions(env: NodeJS.ProcessEnv): { provisionMs?: number; latencyMs?: number } {
  const read = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new VendorRejectedError(`${name} must be a number of milliseconds >= 0, got "${raw}"`);
    return value;
  };
  return { provisionMs: read('CAIRN_SANDBOX_PROVISION_MS'), latencyMs: read('CAIRN_SANDBOX_LATENCY_MS') };
}

async function connect(config: DriverConfig): Promise<Connection> {
  const given = config.credentials?.['token'];
  const token = given !== undefined && given !== '' ? given : DEFAULT_SANDBOX_TOKEN;
  const baseUrl = checkedEndpoint(config.providerName, config.spec.endpoint);
  if (baseUrl !== undefined) {
    const client = new SandboxHttpClient({ baseUrl, token, requestTimeoutMs: config.requestTimeoutMs });
    return { client, describe: baseUrl, release: () => Promise.resolve() };
  }
  const lease = await acquireInProcessCloud(config.dataDir, inProcessOptions(process.env));
  const client = new SandboxHttpClient({ baseUrl: lease.url, token, requestTimeoutMs: config.requestTimeoutMs, trusted: true });
  return { client, describe: `${lease.url} (in-process, data dir ${config.dataDir})`, release: lease.release };
}

export const sandboxVendor: Vendor = {
  id: 'sandbox',
  description:
    "cairn's sandbox: a simulated cloud for tests, demos and benchmarks. Nothing it creates is real; " +
    'servers get documentation-range addresses. Runs inside cairn unless spec.endpoint names a `cairn sandbox-cloud`.',
  credentialFields: SANDBOX_CREDENTIAL_FIELDS,
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    const connection = await connect(config);
    return new SandboxCloudDriver(connection.client, connection.describe, connection.release);
  },
  async createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    const connection = await connect(config);
    return new SandboxRuntimeDriver(connection.client, connection.release);
  },
};
