/**
 * @module The Hetzner Cloud driver: servers (servers.ts), power actions, locations as regions
 * and server types as sizes (every page), and a credential test by the cheapest authenticated
 * read. Hetzner's metrics are CPU, disk and network throughput, not memory or disk use, so
 * metrics are refused with that reason rather than made up.
 */
import type { CallOptions, CloudDriver, CredentialTest, PowerAction, Region, ServerMetrics, ServerObserved, Size } from '../contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../errors.js';
import { CatalogCache } from '../kit/catalog-cache.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { HetznerServers } from './servers.js';
import { isOffered, readRegion, readSize } from './wire-format.js';

const POWER_ACTION: Record<PowerAction, string> = { power_on: 'poweron', power_off: 'poweroff', reboot: 'reboot' };

const METRICS_UNSUPPORTED =
  'Hetzner Cloud reports CPU, disk and network throughput, not memory or disk use; cairn will read those from the server itself over SSH (not built yet)';

export class HetznerCloudDriver implements CloudDriver {
  readonly vendor = 'hetzner';
  readonly servers: HetznerServers;
  readonly metricsUnsupported = METRICS_UNSUPPORTED;
  private readonly catalog: CatalogCache;

  constructor(
    private readonly client: VendorHttpClient,
    private readonly describeEndpoint: string,
    actionPollMs = 500,
  ) {
    this.catalog = new CatalogCache('hetzner', async () => ({ regions: await this.listRegions(), sizes: await this.listSizes() }));
    this.servers = new HetznerServers(client, actionPollMs, (region, size) => this.catalog.checkPlacement(region, size));
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} server ${externalId}`;
    await this.client.call({ method: 'POST', path: `/servers/${encodeURIComponent(externalId)}/actions/${POWER_ACTION[action]}`, doing, signal: options.signal });
    return this.servers.required(externalId, doing, options);
  }

  private list(path: string, key: string, doing: string): Promise<WireReader[]> {
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path, query: { page: page ?? 1, per_page: 50 }, doing });
      const body = WireReader.of(answer.body, `hetzner: ${doing}`);
      const next = body.object('meta').object('pagination').numberOrNull('next_page');
      return { items: body.array(key), next: next === null ? undefined : String(next) };
    }, `hetzner: ${doing}`);
  }

  private async listRegions(): Promise<Region[]> {
    return (await this.list('/locations', 'locations', 'list locations')).map(readRegion);
  }

  private async listSizes(): Promise<Size[]> {
    return (await this.list('/server_types', 'server_types', 'list server types')).filter(isOffered).map(readSize);
  }

  async regions(): Promise<Region[]> {
    return (await this.catalog.get()).regions;
  }

  async sizes(): Promise<Size[]> {
    return (await this.catalog.get()).sizes;
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.client.call({ method: 'GET', path: '/servers', query: { per_page: 1 }, doing: 'test the API token', signal: options.signal });
      return { ok: true, message: `hetzner: the API token is accepted at ${this.describeEndpoint}` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: the API token was refused; create a Read & Write token in the Hetzner Console under Security → API tokens` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  metrics(): Promise<ServerMetrics> {
    return Promise.reject(new UnsupportedError(`hetzner: ${METRICS_UNSUPPORTED}`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
