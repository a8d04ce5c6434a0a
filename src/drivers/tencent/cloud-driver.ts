/**
 * @module The Tencent Cloud driver: CVM instances (instances.ts) in every zone, on the kit's
 * catalog: regions from DescribeRegions, each region's zones (cairn's regions) from
 * DescribeZones, and sizes from DescribeZoneInstanceConfigInfos (the hourly-billed instance
 * types each zone sells, with their price). An image is an `img-` id, or an OS slug matched in
 * the region's public images (DescribeImages, every page, read once per region). The
 * credential test is DescribeRegions, CVM's cheapest signed read. Metrics are refused: they
 * are Tencent Cloud Observability's (another service and API), which cairn does not call.
 */
import type { CallOptions, CredentialTest, PowerAction, Region, ServerObserved } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { CatalogCloudDriver } from '../kit/catalog-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import { WireReader } from '../kit/wire-reader.js';
import { TencentInstances } from './instances.js';
import { CVM, type TencentApi } from './sdk-client.js';
import { imageMatches, nextOffset, osSlug, readSizes, readZone } from './wire-format.js';

/** Images per page (DescribeImages' most). */
const IMAGE_PAGE = 100;

interface PublicImage {
  id: string;
  osName: string;
}

/** Why cairn reads no CPU, memory or disk use here. */
const METRICS_UNSUPPORTED =
  "CVM's API reports no CPU, memory or disk use; that is Tencent Cloud Observability's API (monitor), which cairn does not call";

export class TencentCloudDriver extends CatalogCloudDriver {
  readonly servers: TencentInstances;
  private tencentRegions: Promise<string[]> | undefined;
  private readonly images = new Map<string, Promise<PublicImage[]>>();

  constructor(
    private readonly api: TencentApi,
    pollMs = 500,
  ) {
    super('tencent', METRICS_UNSUPPORTED);
    this.servers = new TencentInstances(
      api,
      {
        checkPlacement: (zone, size) => this.catalog.checkPlacement(zone, size),
        searchRegions: () => this.searchRegions(),
        resolveImage: (region, image) => this.resolveImage(region, image),
      },
      pollMs,
    );
  }

  protected async listCatalog(): Promise<Catalog> {
    const tencentRegions = await this.searchRegions();
    const regions: Region[] = [];
    const offers: WireReader[] = [];
    for (const region of tencentRegions) {
      const zones = WireReader.of(await this.api.call(CVM, region, 'DescribeZones', {}, { doing: `describe zones of ${region}`, idempotent: true }), `tencent: describe zones of ${region}`);
      regions.push(...zones.array('ZoneSet').map(readZone));
      const doing = `describe instance types of ${region}`;
      const request = { Filters: [{ Name: 'instance-charge-type', Values: ['POSTPAID_BY_HOUR'] }] };
      offers.push(...WireReader.of(await this.api.call(CVM, region, 'DescribeZoneInstanceConfigInfos', request, { doing, idempotent: true }), `tencent: ${doing}`).array('InstanceTypeQuotaSet'));
    }
    return { regions, sizes: readSizes(offers) };
  }

  /** The open regions (DescribeRegions, read once): where an instance is looked for by its key. */
  private searchRegions(): Promise<string[]> {
    if (!this.tencentRegions) {
      const listed = this.describeRegions();
      this.tencentRegions = listed;
      listed.catch(() => {
        if (this.tencentRegions === listed) this.tencentRegions = undefined;
      });
    }
    return this.tencentRegions;
  }

  private async describeRegions(): Promise<string[]> {
    const answer = WireReader.of(await this.api.call(CVM, 'ap-guangzhou', 'DescribeRegions', {}, { doing: 'describe regions', idempotent: true }), 'tencent: describe regions');
    return answer.array('RegionSet').filter((r) => r.string('RegionState') === 'AVAILABLE').map((r) => r.string('Region'));
  }

  /** The image id: an `img-` id as is, else the first public image of the region whose OS slug is (or starts with) `image`. */
  async resolveImage(region: string, image: string): Promise<string> {
    if (/^img-[a-z0-9]+$/.test(image)) return image;
    let listed = this.images.get(region);
    if (!listed) {
      listed = this.listImages(region);
      this.images.set(region, listed);
      listed.catch(() => this.images.delete(region));
    }
    const images = await listed;
    const found = images.find((candidate) => imageMatches(image, candidate.osName));
    if (found) return found.id;
    const offered = [...new Set(images.map((candidate) => osSlug(candidate.osName)))];
    throw new VendorRejectedError(`tencent: image "${image}" is not a public image in ${region}; images: ${offered.join(', ')} (or an img- id)`, { field: 'image' });
  }

  private async listImages(region: string): Promise<PublicImage[]> {
    const doing = `describe public images of ${region}`;
    const images = await readAllPages(async (at) => {
      const offset = Number(at ?? 0);
      const request = { Filters: [{ Name: 'image-type', Values: ['PUBLIC_IMAGE'] }], Offset: offset, Limit: IMAGE_PAGE };
      const body = WireReader.of(await this.api.call(CVM, region, 'DescribeImages', request, { doing, idempotent: true }), `tencent: ${doing}`);
      const items = body.array('ImageSet');
      return { items, next: nextOffset(offset, items.length, body.number('TotalCount')) };
    }, `tencent: ${doing}`);
    return images.map((i) => ({ id: i.string('ImageId'), osName: i.string('OsName') }));
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.api.call(CVM, 'ap-guangzhou', 'DescribeRegions', {}, { doing: 'test the SecretId and SecretKey', signal: options.signal });
      return { ok: true, message: `tencent: the SecretId and SecretKey are accepted at ${this.api.describe(CVM)}` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: the SecretId/SecretKey pair was refused; make an API key under CAM → API Keys (console.tencentcloud.com/cam/capi), for a user allowed CVM (QcloudCVMFullAccess)` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
