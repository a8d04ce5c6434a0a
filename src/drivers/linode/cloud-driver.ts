/**
 * @module The Linode driver: Linodes (instances.ts), power actions, regions and types (every
 * page, by page number) on the kit's shared catalog, the credential test (`get-profile`, the
 * cheapest authenticated read) and the metrics refusal. An image is an official `linode/...` or
 * account `private/...` id as is, or cairn's `<distribution>-<version>` (`debian-12` is
 * `linode/debian12`).
 */
import type { CallOptions, PowerAction, ServerObserved } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { LinodeInstances } from './instances.js';
import { nextPage, readRegion, readType } from './wire-format.js';

/** Items per page cairn asks for (Linode allows 25 to 500). */
const PAGE_SIZE = 500;

/** The Linode image id of a cairn image name; throws on a name that is neither. */
export function linodeImage(image: string): string {
  if (/^(linode|private)\/[\w.-]+$/.test(image)) return image;
  const named = /^([a-z]+)-(\d[\d.]*)$/.exec(image);
  if (named) return `linode/${named[1]}${named[2]}`;
  throw new VendorRejectedError(`linode: image "${image}" is neither a Linode image id (linode/debian12, private/123) nor a distribution and version (debian-12, ubuntu-24.04)`, { field: 'image' });
}

export class LinodeCloudDriver extends KitCloudDriver {
  readonly servers: LinodeInstances;

  constructor(client: VendorHttpClient, describeEndpoint: string, pollMs = 500) {
    super(client, {
      vendor: 'linode',
      describeEndpoint,
      credentialProbePath: '/profile',
      credentialProbeQuery: {},
      tokenHelp: 'create a personal access token with Linodes read/write under your profile → API Tokens in Linode Cloud Manager',
      metricsUnsupported:
        "Linode's API reports a Linode's CPU, disk I/O and network (its stats), not its memory or disk use",
    });
    this.servers = new LinodeInstances(client, pollMs, (region, size) => this.catalog.checkPlacement(region, size), linodeImage);
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  private list(path: string, doing: string): Promise<WireReader[]> {
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path, query: { page: page ?? '1', page_size: PAGE_SIZE }, doing });
      const body = WireReader.of(answer.body, `linode: ${doing}`);
      return { items: body.array('data'), next: nextPage(body) };
    }, `linode: ${doing}`);
  }

  protected async listCatalog(): Promise<Catalog> {
    const regions = (await this.list('/regions', 'list regions')).map(readRegion);
    const all = regions.map((r) => r.slug);
    const sizes = (await this.list('/linode/types', 'list types')).map((type) => readType(type, all));
    return { regions, sizes };
  }
}
