/**
 * @module What every cloud driver built on the kit shares, whatever carries its requests (the
 * kit's HTTP client or a vendor's SDK): regions and sizes read once through a CatalogCache (and
 * the placement check its servers client makes before a create), and metrics refused with the
 * vendor's reason. A driver adds its servers client, its power actions, how to list its catalog
 * and how to test its credentials.
 */
import type { CallOptions, CloudDriver, CredentialTest, PowerAction, Region, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { UnsupportedError } from '../errors.js';
import { CatalogCache, type Catalog } from './catalog-cache.js';

export abstract class CatalogCloudDriver implements CloudDriver {
  abstract readonly servers: CloudDriver['servers'];
  /** For the servers client's placement check: `(region, size) => catalog.checkPlacement(region, size)`. */
  protected readonly catalog: CatalogCache;

  constructor(
    readonly vendor: string,
    /** Why the vendor cannot report CPU, memory and disk use, when it cannot. */
    readonly metricsUnsupported: string | undefined,
  ) {
    this.catalog = new CatalogCache(vendor, () => this.listCatalog());
  }

  /** The vendor's regions and sizes, read in full (every page). */
  protected abstract listCatalog(): Promise<Catalog>;

  abstract testCredentials(options?: CallOptions): Promise<CredentialTest>;

  abstract power(externalId: string, action: PowerAction, options?: CallOptions): Promise<ServerObserved>;

  async regions(): Promise<Region[]> {
    return (await this.catalog.get()).regions;
  }

  async sizes(): Promise<Size[]> {
    return (await this.catalog.get()).sizes;
  }

  metrics(): Promise<ServerMetrics> {
    return Promise.reject(new UnsupportedError(`${this.vendor}: ${this.metricsUnsupported ?? 'cannot report metrics'}`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
