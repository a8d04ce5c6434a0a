/**
 * @module The IONOS driver: servers (servers.ts) in cairn's data centers (datacenters.ts),
 * power actions, regions from the locations (`locationsGet`) and sizes from cairn's ENTERPRISE
 * shapes offered where a location's CPUs hold them (shapes.ts), on the kit's shared catalog, the
 * credential test (`datacentersGet` with limit 1, the cheapest authenticated read) and the
 * metrics refusal.
 */
import type { CallOptions, PowerAction, ServerObserved } from '../contract.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import type { IonosDatacenters } from './datacenters.js';
import { IonosServers } from './servers.js';
import { shapeSizes } from './shapes.js';
import { readLocation } from './wire-format.js';

export class IonosCloudDriver extends KitCloudDriver {
  readonly servers: IonosServers;

  constructor(client: VendorHttpClient, describeEndpoint: string, datacenters: IonosDatacenters, pollMs = 500) {
    super(client, {
      vendor: 'ionos',
      describeEndpoint,
      credentialProbePath: '/datacenters',
      credentialProbeQuery: { depth: 0, limit: 1 },
      tokenHelp: 'give an IONOS Cloud API token (DCD → Management → Token Manager) or the account username and password, of a user allowed to create data centers',
      metricsUnsupported:
        "IONOS's Cloud API has no server metrics (its monitoring is a separate product, not in this document)",
    });
    this.servers = new IonosServers(client, datacenters, pollMs, (region, size) => this.catalog.checkPlacement(region, size));
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  protected async listCatalog(): Promise<Catalog> {
    const answer = await this.client.call({ method: 'GET', path: '/locations', query: { depth: 1 }, doing: 'list locations' });
    const body = WireReader.of(answer.body, 'ionos: list locations');
    const locations = (body.raw('items') === undefined ? [] : body.array('items')).map(readLocation);
    return { regions: locations.map((l) => l.region), sizes: shapeSizes(locations.map((l) => l.limits)) };
  }
}
