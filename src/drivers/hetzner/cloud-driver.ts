/**
 * @module The Hetzner Cloud driver: servers (servers.ts), power actions, locations as regions
 * and server types as sizes (every page), on the kit's shared catalog, credential test and
 * metrics refusal. Hetzner's metrics are CPU, disk and network throughput, not memory or disk
 * use, so metrics are refused with that reason rather than made up.
 */
import type { CallOptions, PowerAction, ServerObserved } from '../contract.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { HetznerServers } from './servers.js';
import { isOffered, readRegion, readSize } from './wire-format.js';

const POWER_ACTION: Record<PowerAction, string> = { power_on: 'poweron', power_off: 'poweroff', reboot: 'reboot' };

export class HetznerCloudDriver extends KitCloudDriver {
  readonly servers: HetznerServers;

  constructor(client: VendorHttpClient, describeEndpoint: string, actionPollMs = 500) {
    super(client, {
      vendor: 'hetzner',
      describeEndpoint,
      credentialProbePath: '/servers',
      tokenHelp: 'create a Read & Write token in the Hetzner Console under Security → API tokens',
      metricsUnsupported:
        'Hetzner Cloud reports CPU, disk and network throughput, not memory or disk use',
    });
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

  protected async listCatalog(): Promise<Catalog> {
    const regions = (await this.list('/locations', 'locations', 'list locations')).map(readRegion);
    const sizes = (await this.list('/server_types', 'server_types', 'list server types')).filter(isOffered).map(readSize);
    return { regions, sizes };
  }
}
