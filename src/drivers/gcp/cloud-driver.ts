/**
 * @module The gcp cloud driver: Compute Engine instances (instances.ts) in zones, which are
 * cairn's regions (a Server's `region` is a zone such as `europe-west1-b`: machine types and
 * instances live in zones), machine types as sizes (`machineTypes.aggregatedList`, every page),
 * zones from `zones.list` (every page), a credential test that gets a token from the key's
 * `token_uri` and makes the cheapest read (`zones.list`, one item), and metrics refused (Compute
 * Engine's API has none; Cloud Monitoring is another API).
 */
import type { CallOptions, CredentialTest, PowerAction, ServerObserved } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { CatalogCloudDriver } from '../kit/catalog-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { GcpClient } from './gcp-client.js';
import { GcpInstances } from './instances.js';
import { readMachineTypes, readZone } from './wire-format.js';

/** Items per page cairn asks for in catalog lists (Google's most is 500). */
const PAGE = 500;

/** Why cairn reads no CPU, memory or disk use here. */
const METRICS_UNSUPPORTED =
  "Compute Engine's API reports no CPU, memory or disk use (that is Cloud Monitoring, a separate API cairn does not call)";

export class GcpCloudDriver extends CatalogCloudDriver {
  readonly servers: GcpInstances;

  constructor(
    private readonly gcp: GcpClient,
    private readonly describeEndpoint: string,
    pollMs = 500,
  ) {
    super('gcp', METRICS_UNSUPPORTED);
    this.servers = new GcpInstances(gcp, pollMs, (zone, size) => this.catalog.checkPlacement(zone, size));
  }

  protected async listCatalog(): Promise<Catalog> {
    const project = this.gcp.project;
    const zones = await readAllPages(async (pageToken) => {
      const page = await this.gcp.call({ doing: 'list zones', idempotent: true }, (o) => this.gcp.compute.zones.list({ project, maxResults: PAGE, ...(pageToken === undefined ? {} : { pageToken }) }, o));
      return { items: page.items ?? [], next: page.nextPageToken ?? undefined };
    }, 'gcp: list zones');
    const types = await readAllPages(async (pageToken) => {
      const page = await this.gcp.call({ doing: 'list machine types', idempotent: true }, (o) =>
        this.gcp.compute.machineTypes.aggregatedList({ project, maxResults: PAGE, returnPartialSuccess: true, ...(pageToken === undefined ? {} : { pageToken }) }, o),
      );
      return { items: Object.values(page.items ?? {}).flatMap((scoped) => scoped.machineTypes ?? []), next: page.nextPageToken ?? undefined };
    }, 'gcp: list machine types');
    return { regions: zones.map(readZone), sizes: readMachineTypes(types) };
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.gcp.call({ doing: 'test the service-account key', idempotent: true, signal: options.signal }, (o) => this.gcp.compute.zones.list({ project: this.gcp.project, maxResults: 1 }, o));
      return { ok: true, message: `gcp: the service-account key is accepted and can read project ${this.gcp.project} at ${this.describeEndpoint}` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: the service-account key was refused; make a new key under IAM → Service accounts → Keys, and give the account the Compute Instance Admin (v1) role on project ${this.gcp.project}` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
