/**
 * @module What every kit-built cloud driver shares: regions and sizes read once through a
 * CatalogCache (and the placement check its servers client makes before a create), a credential
 * test by the vendor's cheapest authenticated read that says how to fix a refused token, and
 * metrics refused with the vendor's reason when it cannot report them. A vendor's driver extends
 * it with its servers client, power actions and how to list its catalog.
 */
import type { CallOptions, CloudDriver, CredentialTest, PowerAction, Region, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../errors.js';
import { CatalogCache, type Catalog } from './catalog-cache.js';
import type { VendorHttpClient } from './vendor-http.js';

export interface KitCloudDriverOptions {
  vendor: string;
  /** Where the API is, for messages. */
  describeEndpoint: string;
  /** The cheapest authenticated read, e.g. `/servers` (asked for one item). */
  credentialProbePath: string;
  /** The probe's query; default `{ per_page: 1 }`, for vendors whose lists take that. */
  credentialProbeQuery?: Record<string, string | number>;
  /** Said after a refused token: where to make a good one. */
  tokenHelp: string;
  /** Why the vendor cannot report CPU, memory and disk use, when it cannot. */
  metricsUnsupported?: string;
}

export abstract class KitCloudDriver implements CloudDriver {
  readonly vendor: string;
  readonly metricsUnsupported: string | undefined;
  abstract readonly servers: CloudDriver['servers'];
  /** For the servers client's placement check: `(region, size) => catalog.checkPlacement(region, size)`. */
  protected readonly catalog: CatalogCache;

  constructor(
    protected readonly client: VendorHttpClient,
    private readonly options: KitCloudDriverOptions,
  ) {
    this.vendor = options.vendor;
    this.metricsUnsupported = options.metricsUnsupported;
    this.catalog = new CatalogCache(options.vendor, () => this.listCatalog());
  }

  /** The vendor's regions and sizes, read in full (every page). */
  protected abstract listCatalog(): Promise<Catalog>;

  abstract power(externalId: string, action: PowerAction, options?: CallOptions): Promise<ServerObserved>;

  async regions(): Promise<Region[]> {
    return (await this.catalog.get()).regions;
  }

  async sizes(): Promise<Size[]> {
    return (await this.catalog.get()).sizes;
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.client.call({ method: 'GET', path: this.options.credentialProbePath, query: this.options.credentialProbeQuery ?? { per_page: 1 }, doing: 'test the API token', signal: options.signal });
      return { ok: true, message: `${this.vendor}: the API token is accepted at ${this.options.describeEndpoint}` };
    } catch (error) {
      if (error instanceof VendorAuthError) return { ok: false, message: `${error.message}: the API token was refused; ${this.options.tokenHelp}` };
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  metrics(): Promise<ServerMetrics> {
    return Promise.reject(new UnsupportedError(`${this.vendor}: ${this.metricsUnsupported ?? 'cannot report metrics'}`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
