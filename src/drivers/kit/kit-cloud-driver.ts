/**
 * @module A cloud driver on the kit's HTTP client: what every catalog-backed driver shares
 * (catalog-cloud-driver.ts), plus a credential test by the vendor's cheapest authenticated read
 * that says how to fix a refused token. A vendor's driver extends it with its servers client,
 * power actions and how to list its catalog.
 */
import type { CallOptions, CredentialTest } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import { CatalogCloudDriver } from './catalog-cloud-driver.js';
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

export abstract class KitCloudDriver extends CatalogCloudDriver {
  constructor(
    protected readonly client: VendorHttpClient,
    private readonly options: KitCloudDriverOptions,
  ) {
    super(options.vendor, options.metricsUnsupported);
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
}
