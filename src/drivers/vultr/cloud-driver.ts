/**
 * @module The Vultr driver: instances (instances.ts), power actions, regions and plans (every
 * page, by cursor), on the kit's shared catalog, credential test and metrics refusal. An image is
 * an operating system: its numeric `os_id`, or the slug of its name in `list-os` (`Debian 12 x64
 * (bookworm)` is `debian-12-x64`, and `debian-12` is taken for it too), read once.
 */
import type { CallOptions, PowerAction, ServerObserved } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { VultrInstances } from './instances.js';
import { nextCursor, readOs, readPlan, readRegion, type OperatingSystem } from './wire-format.js';

/** Items per page cairn asks for (Vultr allows up to 500). */
const PER_PAGE = 100;

export class VultrCloudDriver extends KitCloudDriver {
  readonly servers: VultrInstances;
  private systems: Promise<OperatingSystem[]> | undefined;

  constructor(client: VendorHttpClient, describeEndpoint: string, pollMs = 500) {
    super(client, {
      vendor: 'vultr',
      describeEndpoint,
      credentialProbePath: '/instances',
      tokenHelp: 'create an API key under Account → API in the Vultr customer portal (and allow the address cairn calls from in its access control)',
      metricsUnsupported:
        "Vultr's API reports an instance's bandwidth only, not its CPU, memory or disk use",
    });
    this.servers = new VultrInstances(client, pollMs, (region, size) => this.catalog.checkPlacement(region, size), (image) => this.resolveImage(image));
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  private list(path: string, key: string, doing: string): Promise<WireReader[]> {
    return readAllPages(async (cursor) => {
      const answer = await this.client.call({ method: 'GET', path, query: { per_page: PER_PAGE, ...(cursor === undefined ? {} : { cursor }) }, doing });
      const body = WireReader.of(answer.body, `vultr: ${doing}`);
      return { items: body.array(key), next: nextCursor(body) };
    }, `vultr: ${doing}`);
  }

  protected async listCatalog(): Promise<Catalog> {
    const regions = (await this.list('/regions', 'regions', 'list regions')).map(readRegion);
    const sizes = (await this.list('/plans', 'plans', 'list plans')).map(readPlan);
    return { regions, sizes };
  }

  /** The `os_id` for an image: a number as is, else the OS whose slug is the image (or the image with `-x64`). */
  async resolveImage(image: string): Promise<number> {
    if (/^[1-9]\d*$/.test(image)) return Number(image);
    this.systems ??= this.list('/os', 'os', 'list operating systems').then((all) => all.map(readOs));
    let systems: OperatingSystem[];
    try {
      systems = await this.systems;
    } catch (error) {
      this.systems = undefined;
      throw error;
    }
    const found = systems.find((os) => os.slug === image) ?? systems.find((os) => os.slug === `${image}-x64`);
    if (found) return found.id;
    throw new VendorRejectedError(`vultr: image "${image}" is not an operating system Vultr offers; images: ${systems.map((os) => os.slug).join(', ')} (or an os_id)`, { field: 'image' });
  }
}
