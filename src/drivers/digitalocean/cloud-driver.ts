/**
 * @module The DigitalOcean driver: droplets (droplets.ts), power actions, regions and sizes
 * (every page, cached), and a credential test by the cheapest authenticated read. Droplet
 * metrics at DigitalOcean come from its monitoring agent on the droplet, which cairn does not
 * install, so metrics are refused with that reason rather than made up.
 */
import type { CallOptions, CloudDriver, CredentialTest, PowerAction, Region, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../errors.js';
import { CatalogCache } from '../kit/catalog-cache.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { DigitalOceanDroplets } from './droplets.js';
import { isAvailable, nextPage, readRegion, readSize } from './wire-format.js';

const METRICS_UNSUPPORTED =
  "DigitalOcean's monitoring API reports memory and disk use only from its agent on the droplet, which cairn does not install; cairn will read them from the server itself over SSH (not built yet)";

/** Items per page cairn asks for (DigitalOcean allows up to 200). */
const PER_PAGE = 100;

export class DigitalOceanCloudDriver implements CloudDriver {
  readonly vendor = 'digitalocean';
  readonly servers: DigitalOceanDroplets;
  readonly metricsUnsupported = METRICS_UNSUPPORTED;
  private readonly catalog: CatalogCache;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly describeEndpoint: string,
    actionPollMs = 500,
  ) {
    this.catalog = new CatalogCache('digitalocean', async () => ({ regions: await this.listRegions(), sizes: await this.listSizes() }));
    this.servers = new DigitalOceanDroplets(client, actionPollMs, (region, size) => this.catalog.checkPlacement(region, size));
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} droplet ${externalId}`;
    await this.servers.start(externalId, { type: action }, doing, options);
    return this.servers.required(externalId, doing, options);
  }

  private list(path: string, key: string, doing: string): Promise<WireReader[]> {
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path, query: { page: page ?? 1, per_page: PER_PAGE }, doing });
      const body = WireReader.of(answer.body, `digitalocean: ${doing}`);
      return { items: body.array(key), next: nextPage(body) };
    }, `digitalocean: ${doing}`);
  }

  private async listRegions(): Promise<Region[]> {
    return (await this.list('/regions', 'regions', 'list regions')).map(readRegion);
  }

  private async listSizes(): Promise<Size[]> {
    return (await this.list('/sizes', 'sizes', 'list sizes')).filter(isAvailable).map(readSize);
  }

  async regions(): Promise<Region[]> {
    return (await this.catalog.get()).regions;
  }

  async sizes(): Promise<Size[]> {
    return (await this.catalog.get()).sizes;
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.client.call({ method: 'GET', path: '/droplets', query: { per_page: 1 }, doing: 'test the API token', signal: options.signal });
      return { ok: true, message: `digitalocean: the API token is accepted at ${this.describeEndpoint}` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return {
          ok: false,
          message: `${error.message}: the API token was refused; create a personal access token with read and write scopes (or custom scopes droplet:*, tag:*, regions:read, sizes:read) under API → Tokens in the DigitalOcean control panel`,
        };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  metrics(): Promise<ServerMetrics> {
    return Promise.reject(new UnsupportedError(`digitalocean: ${METRICS_UNSUPPORTED}`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
