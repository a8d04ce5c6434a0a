/**
 * @module The Leaseweb Public Cloud driver: instances (instances.ts), power actions, regions and
 * the instance types of each region (every page, by limit and offset) on the kit's shared
 * catalog, the credential test (`getRegionList` for one region, the cheapest authenticated read)
 * and the metrics refusal.
 */
import type { CallOptions, PowerAction, ServerObserved, Size } from '../contract.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { LeasewebInstances, PAGE_SIZE, ROOT_DISK_GB } from './instances.js';
import { nextOffset, readRegion, readType } from './wire-format.js';

export class LeasewebCloudDriver extends KitCloudDriver {
  readonly servers: LeasewebInstances;
  /** The storage type each instance type's root disk is launched on, from the catalog. */
  private readonly storageTypes = new Map<string, string>();

  constructor(client: VendorHttpClient, describeEndpoint: string, pollMs = 500) {
    super(client, {
      vendor: 'leaseweb',
      describeEndpoint,
      credentialProbePath: '/regions',
      credentialProbeQuery: { limit: 1 },
      tokenHelp: 'create an API key in the Leaseweb Customer Portal (API client management) and give it as the provider\'s "token"',
      metricsUnsupported:
        "Leaseweb's Public Cloud API reports an instance's CPU and data traffic, not its memory or disk use",
    });
    this.servers = new LeasewebInstances(client, pollMs, (region, size) => this.catalog.checkPlacement(region, size), (size) => this.storageTypes.get(size) ?? 'CENTRAL');
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  private list(path: string, field: string, query: Record<string, string>, doing: string): Promise<WireReader[]> {
    return readAllPages(async (offset) => {
      const answer = await this.client.call({ method: 'GET', path, query: { ...query, limit: PAGE_SIZE, offset: offset ?? '0' }, doing });
      const body = WireReader.of(answer.body, `leaseweb: ${doing}`);
      const items = body.array(field);
      return { items, next: nextOffset(body, items.length) };
    }, `leaseweb: ${doing}`);
  }

  protected async listCatalog(): Promise<Catalog> {
    const regions = (await this.list('/regions', 'regions', {}, 'list regions')).map(readRegion);
    const sizes = new Map<string, Size>();
    for (const region of regions) {
      for (const type of await this.list('/instanceTypes', 'instanceTypes', { region: region.slug }, `list instance types in ${region.slug}`)) {
        const { size, storageType } = readType(type, ROOT_DISK_GB);
        this.storageTypes.set(size.slug, storageType);
        const known = sizes.get(size.slug);
        if (known) known.regions.push(region.slug);
        else sizes.set(size.slug, { ...size, regions: [region.slug] });
      }
    }
    return { regions, sizes: [...sizes.values()] };
  }
}
