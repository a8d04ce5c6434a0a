/**
 * @module The Contabo driver: instances (instances.ts), power actions, regions from Contabo's
 * data centers (every page), sizes from cairn's product table (products.ts: Contabo's API lists
 * no products), on the kit's shared catalog; a credential test that fetches a token and reads one
 * instance; metrics refused. An image is a standard image's name (`debian-12`, `ubuntu-22.04`)
 * in `retrieveImageList`, or an image id, read once.
 */
import type { CallOptions, CredentialTest, PowerAction, ServerObserved } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { KitCloudDriver } from '../kit/kit-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import { ContaboInstances } from './instances.js';
import { CONTABO_PRODUCTS } from './products.js';
import { nextPage, readImage, readRegions, type ContaboImage } from './wire-format.js';

const PAGE_SIZE = 100;
const IMAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class ContaboCloudDriver extends KitCloudDriver {
  readonly servers: ContaboInstances;
  private images: Promise<ContaboImage[]> | undefined;

  constructor(client: VendorHttpClient, private readonly describeApi: string, pollMs = 500) {
    super(client, {
      vendor: 'contabo',
      describeEndpoint: describeApi,
      credentialProbePath: '/v1/compute/instances',
      tokenHelp: "copy client_id, client_secret, api_user and api_password from Contabo's Customer Control Panel → API",
      metricsUnsupported: "Contabo's API reports no CPU, memory or disk use of an instance",
    });
    this.servers = new ContaboInstances(client, pollMs, (region, size) => this.catalog.checkPlacement(region, size), (image) => this.resolveImage(image), (id) => this.imageName(id));
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  /** Fetches a token and reads one instance: the cheapest authenticated read. */
  override async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.client.call({ method: 'GET', path: '/v1/compute/instances', query: { page: 1, size: 1 }, doing: 'test the credentials', signal: options.signal });
      return { ok: true, message: `contabo: the credentials are accepted at ${this.describeApi}` };
    } catch (error) {
      if (error instanceof VendorRejectedError || error instanceof VendorAuthError) return { ok: false, message: error.message };
      throw error;
    }
  }

  private list(path: string, doing: string, query: Record<string, string | boolean> = {}): Promise<WireReader[]> {
    return readAllPages(async (page) => {
      const answer = await this.client.call({ method: 'GET', path, query: { ...query, page: page ?? 1, size: PAGE_SIZE }, doing });
      const body = WireReader.of(answer.body, `contabo: ${doing}`);
      return { items: body.array('data'), next: nextPage(body) };
    }, `contabo: ${doing}`);
  }

  protected async listCatalog(): Promise<Catalog> {
    const regions = readRegions(await this.list('/v1/data-centers', 'list data centers'));
    const offered = regions.filter((r) => r.available).map((r) => r.slug);
    const sizes = CONTABO_PRODUCTS.map((p) => ({ slug: p.id, vcpus: p.vcpus, memoryMb: p.memoryMb, diskGb: p.diskGb, priceMonthly: p.priceMonthly, regions: offered }));
    return { regions, sizes };
  }

  private standardImages(): Promise<ContaboImage[]> {
    this.images ??= this.list('/v1/compute/images', 'list images', { standardImage: true }).then((all) => all.map(readImage));
    this.images.catch(() => {
      this.images = undefined;
    });
    return this.images;
  }

  /** The image id for an image: an id as is, else the standard image of that name. */
  async resolveImage(image: string): Promise<string> {
    if (IMAGE_ID.test(image)) return image;
    const images = await this.standardImages();
    const found = images.find((i) => i.name === image);
    if (found) return found.id;
    throw new VendorRejectedError(`contabo: image "${image}" is not a standard image Contabo offers; images: ${images.map((i) => i.name).join(', ')} (or an image id)`, { field: 'image' });
  }

  /** The name of a standard image, or the id of any other (a custom image). */
  async imageName(imageId: string): Promise<string> {
    const images = await this.standardImages();
    return images.find((i) => i.id === imageId)?.name ?? imageId;
  }
}
