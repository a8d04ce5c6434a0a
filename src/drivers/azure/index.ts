/**
 * @module The `azure` vendor: virtual machines through Microsoft's official SDKs
 * (`@azure/arm-compute`, `@azure/arm-network`, `@azure/arm-resources-subscriptions`, signed in
 * by `@azure/identity` as a service principal), at Azure Resource Manager
 * (https://management.azure.com, or the Provider's `spec.endpoint`) with tokens from the Entra
 * authority (`authority_host` in the credentials). The servers of a provider live in one
 * resource group (`resource_group`, default `cairn`), which must exist. Databases and apps on
 * them run over SSH. Managed PostgreSQL is Azure Database for PostgreSQL flexible server
 * (`@azure/arm-postgresql-flexible`), in the same resource group.
 */
import type { CloudDriver, DriverConfig, ManagedDatabaseDriver, RuntimeDriver, Vendor } from '../contract.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';
import { DEFAULT_RESOURCE_GROUP } from './resource-names.js';

/** How often a long-running operation is polled when Azure names no Retry-After (ms); CAIRN_POLL_MS in tests. */
function pollMs(): number {
  const value = Number(process.env['CAIRN_POLL_MS']);
  return Number.isFinite(value) && value > 0 ? value : 2_000;
}

export const azureVendor: Vendor = {
  id: 'azure',
  description: 'Microsoft Azure: virtual machines in 60-odd regions, through Azure Resource Manager. Managed PostgreSQL is Azure Database for PostgreSQL flexible server (cairn\'s password; no backups or restore through cairn); databases and apps on its VMs run over SSH.',
  credentialFields: [
    { name: 'tenant_id', description: "The Entra ID tenant (directory) id of the service principal.", required: true },
    { name: 'client_id', description: "The service principal's application (client) id (Entra ID → App registrations).", required: true },
    { name: 'client_secret', description: 'A client secret of that application (Certificates & secrets).', required: true },
    { name: 'subscription_id', description: 'The subscription servers are made in; the application needs a role such as Contributor on it or on the resource group.', required: true },
    { name: 'resource_group', description: `The existing resource group cairn puts this provider's servers and networks in (default "${DEFAULT_RESOURCE_GROUP}").`, required: false },
    { name: 'authority_host', description: 'The Entra authority tokens are asked from (default https://login.microsoftonline.com; sovereign clouds have their own).', required: false },
  ],
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    // The SDK is loaded here, on first use, not with the registry: every command and test process
    // would otherwise pay for loading it (a second and more) whether or not it drives this vendor.
    const [{ azureClients }, { AzureCloudDriver }] = await Promise.all([import('./azure-clients.js'), import('./cloud-driver.js')]);
    return new AzureCloudDriver(azureClients(config), pollMs());
  },
  managedDatabaseEngines: ['postgresql'],
  async createManagedDatabases(config: DriverConfig): Promise<ManagedDatabaseDriver> {
    const [{ azurePostgresClient }, { AzurePostgres }] = await Promise.all([import('./postgres-client.js'), import('./postgres.js')]);
    return { vendor: 'azure', databases: new AzurePostgres(azurePostgresClient(config), pollMs()), close: () => Promise.resolve() };
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('azure', config);
  },
};
