/**
 * @module The Azure cloud driver: virtual machines (virtual-machines.ts), their power actions,
 * regions (the subscription's physical locations) and sizes (the compute resource SKUs of type
 * `virtualMachines`, every nextLink page, merged by name across locations) held in the kit's
 * CatalogCache, and a credential test by the cheapest authenticated read, the subscription itself.
 */
import type { CallOptions, CredentialTest, PowerAction, Region, ServerObserved, Size } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { CatalogCloudDriver } from '../kit/catalog-cloud-driver.js';
import { azureCall, azureError } from './azure-errors.js';
import type { AzureClients } from './azure-clients.js';
import { AzureVirtualMachines } from './virtual-machines.js';
import { readRegion, readSku } from './wire-format.js';

/** Why cairn reads no CPU, memory or disk use here. */
const METRICS_UNSUPPORTED =
  "Azure reports a VM's CPU through Azure Monitor (a separate API cairn does not drive yet), and its memory and disk use only with an agent installed in the VM";

export class AzureCloudDriver extends CatalogCloudDriver {
  readonly servers: AzureVirtualMachines;

  constructor(private readonly clients: AzureClients, pollMs = 1000) {
    super('azure', METRICS_UNSUPPORTED);
    this.servers = new AzureVirtualMachines(clients, pollMs, (region, size) => this.catalog.checkPlacement(region, size));
  }

  protected async listCatalog(): Promise<Catalog> {
    const { subscriptions, compute, credentials } = this.clients;
    const regions = await azureCall('azure: list locations', async () => {
      const found: Region[] = [];
      for await (const location of subscriptions.subscriptions.listLocations(credentials.subscriptionId)) {
        const region = readRegion(location);
        if (region) found.push(region);
      }
      return found;
    });
    const sizes = await azureCall('azure: list compute resource SKUs', async () => {
      const bySlug = new Map<string, Size>();
      for await (const sku of compute.resourceSkus.list()) {
        const size = readSku(sku);
        if (!size) continue;
        const known = bySlug.get(size.slug);
        if (known) known.regions = [...new Set([...known.regions, ...size.regions])];
        else bySlug.set(size.slug, size);
      }
      return [...bySlug.values()];
    });
    return { regions, sizes };
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    const { subscriptionId, tenantId, clientId } = this.clients.credentials;
    try {
      const subscription = await this.clients.subscriptions.subscriptions.get(subscriptionId, { abortSignal: options.signal });
      return { ok: true, message: `azure: service principal ${clientId} of tenant ${tenantId} reaches subscription ${subscription.displayName ?? subscriptionId} at ${this.clients.endpoint}` };
    } catch (caught) {
      const error = azureError(caught, `azure: read subscription ${subscriptionId}`);
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: check tenant_id, client_id and client_secret (Entra ID → App registrations → the app → Certificates & secrets), and that the app has a role (e.g. Contributor) on the subscription or its resource group` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
