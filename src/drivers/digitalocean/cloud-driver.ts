/**
 * @module The DigitalOcean driver: droplets (droplets.ts), power actions, regions and sizes
 * (every page), on the kit's shared catalog, credential test and metrics refusal. Droplet
 * metrics at DigitalOcean come from its monitoring agent on the droplet, which cairn does not
 * install, so metrics are refused with that reason rather than made up.
 */
import type { CallOptions, PowerAction, ServerObserved } from '../contract.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { DigitalOceanDroplets } from './droplets.js';
import { isAvailable, nextPage, readRegion, readSize } from './wire-format.js';

/** Items per page cairn asks for (DigitalOcean allows up to 200). */
const PER_PAGE = 100;

export class DigitalOceanCloudDriver extends KitCloudDriver {
  readonly servers: DigitalOceanDroplets;

  constructor(client: VendorHttpClient, describeEndpoint: string, actionPollMs = 500) {
    super(client, {
      vendor: 'digitalocean',
      describeEndpoint,
      credentialProbePath: '/droplets',
      tokenHelp:
        'create a personal access token with read and write scopes (or custom scopes droplet:*, tag:*, regions:read, sizes:read) under API → Tokens in the DigitalOcean control panel',
      metricsUnsupported:
        "DigitalOcean's monitoring API reports memory and disk use only from its agent on the droplet, which cairn does not install",
    });
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

  protected async listCatalog(): Promise<Catalog> {
    const regions = (await this.list('/regions', 'regions', 'list regions')).map(readRegion);
    const sizes = (await this.list('/sizes', 'sizes', 'list sizes')).filter(isAvailable).map(readSize);
    return { regions, sizes };
  }
}
