/**
 * @module The OCI driver: one Provider works in one region (OCI's API and a subnet are
 * regional), and cairn's regions are that region's availability domains, by their names
 * lowercased without the tenancy's prefix (`Uocm:EU-FRANKFURT-1-AD-1` is `eu-frankfurt-1-ad-1`).
 * Sizes are the shapes ListShapes offers in each AD (every page); a flexible shape is launched
 * at the OCPUs and memory ListShapes gives it. OCI's API gives no prices (priceMonthly 0), and a
 * shape's disk is its local NVMe, if any (the boot volume is separate). An image is an image
 * OCID, or the display name of an image the compartment can use (its newest), or
 * `<operating system>-<version>` lowercased (`canonical-ubuntu-24.04`, `oracle-linux-9`). The
 * credential test is ListRegionSubscriptions, which also says whether the region is subscribed.
 */
import { models, requests } from 'oci-core';
import type { CallOptions, CredentialTest, PowerAction, Region, ServerObserved, Size } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { CatalogCloudDriver } from '../kit/catalog-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { OciClients } from './clients.js';
import { ociRequired } from './errors.js';
import { OciInstances } from './instances.js';

const IMAGE_AVAILABLE = models.Image.LifecycleState.Available;
const BY_TIME = requests.ListImagesRequest.SortBy.Timecreated;
const NEWEST_FIRST = requests.ListImagesRequest.SortOrder.Desc;

/** cairn's region slug for an AD name. */
export function adSlug(adName: string): string {
  return adName.slice(adName.indexOf(':') + 1).toLowerCase();
}

/** vCPUs of a shape: an Ampere (Arm) OCPU is one vCPU, an x86 OCPU two. */
export function shapeVcpus(shape: string, ocpus: number): number {
  return /\.A\d/.test(shape) ? ocpus : ocpus * 2;
}

/** An image's slug: its operating system and version, lowercased, spaces as dashes. */
export function imageSlug(image: { operatingSystem: string; operatingSystemVersion: string }): string {
  return `${image.operatingSystem}-${image.operatingSystemVersion}`.toLowerCase().replace(/\s+/g, '-');
}

interface OciCatalog extends Catalog {
  ads: Map<string, string>;
  shapes: Map<string, models.Shape>;
}

/** Why cairn reads no CPU, memory or disk use here. */
const METRICS_UNSUPPORTED =
  "cairn does not read OCI's Monitoring service yet (instance metrics are there, through a separate API and the Oracle Cloud Agent)";

export class OciCloudDriver extends CatalogCloudDriver {
  readonly servers: OciInstances;
  private loaded: OciCatalog | undefined;
  /** Image OCIDs by the name or slug they were found under (an image's OCID never changes). */
  private readonly images = new Map<string, string>();

  constructor(private readonly clients: OciClients, pollMs = 500, private readonly pageSize = 100) {
    super('oci', METRICS_UNSUPPORTED);
    this.servers = new OciInstances(clients.compute, clients.network, {
      compartment: clients.credentials.compartment,
      subnet: clients.credentials.subnet,
      checkPlacement: (region, size) => this.catalog.checkPlacement(region, size),
      adName: async (region) => (await this.full()).ads.get(region) ?? region,
      regionOf: (adName) => adSlug(adName),
      shapeConfig: async (size) => {
        const shape = (await this.full()).shapes.get(size);
        return shape?.isFlexible && shape.ocpus !== undefined && shape.memoryInGBs !== undefined ? { ocpus: shape.ocpus, memoryInGBs: shape.memoryInGBs } : undefined;
      },
      resolveImage: (image, signal) => this.resolveImage(image, signal),
    }, pollMs, pageSize);
  }

  private async full(): Promise<OciCatalog> {
    await this.catalog.get();
    return this.loaded!;
  }

  protected async listCatalog(): Promise<OciCatalog> {
    const { identity, compute, credentials } = this.clients;
    const ads = (await ociRequired('list availability domains', () => identity.listAvailabilityDomains({ compartmentId: credentials.tenancy }))).items;
    const byAd = new Map<string, string>();
    const shapes = new Map<string, models.Shape>();
    const where = new Map<string, string[]>();
    for (const ad of ads) {
      if (ad.name === undefined) continue;
      const slug = adSlug(ad.name);
      byAd.set(slug, ad.name);
      const doing = `list shapes in ${ad.name}`;
      const listed = await readAllPages(async (page) => {
        const answer = await ociRequired(doing, () => compute.listShapes({ compartmentId: credentials.compartment, availabilityDomain: ad.name, limit: this.pageSize, ...(page === undefined ? {} : { page }) }));
        return { items: answer.items, next: answer.opcNextPage };
      }, `oci: ${doing}`);
      for (const shape of listed) {
        if (shape.ocpus === undefined || shape.memoryInGBs === undefined) continue;
        shapes.set(shape.shape, shape);
        where.set(shape.shape, [...(where.get(shape.shape) ?? []), slug]);
      }
    }
    const regions: Region[] = [...byAd.entries()].map(([slug, name]) => ({ slug, name, available: true }));
    const sizes: Size[] = [...shapes.values()].map((s) => ({
      slug: s.shape, vcpus: shapeVcpus(s.shape, s.ocpus ?? 0), memoryMb: Math.round((s.memoryInGBs ?? 0) * 1024), diskGb: s.localDisksTotalSizeInGBs ?? 0, priceMonthly: 0, regions: where.get(s.shape) ?? [],
    }));
    const catalog = { regions, sizes, ads: byAd, shapes };
    this.loaded = catalog;
    return catalog;
  }

  async resolveImage(image: string, signal?: AbortSignal): Promise<string> {
    if (image.startsWith('ocid1.image.')) return image;
    const known = this.images.get(image);
    if (known !== undefined) return known;
    const found = await this.findImage(image, signal);
    this.images.set(image, found);
    return found;
  }

  private async findImage(image: string, signal: AbortSignal | undefined): Promise<string> {
    const { compute, credentials } = this.clients;
    const doing = `find image "${image}"`;
    const named = await ociRequired(doing, () => compute.listImages({ compartmentId: credentials.compartment, displayName: image, lifecycleState: IMAGE_AVAILABLE, sortBy: BY_TIME, sortOrder: NEWEST_FIRST }), { signal });
    if (named.items[0]) return named.items[0].id;
    const all = await readAllPages(async (page) => {
      const answer = await ociRequired(doing, () => compute.listImages({ compartmentId: credentials.compartment, lifecycleState: IMAGE_AVAILABLE, sortBy: BY_TIME, sortOrder: NEWEST_FIRST, limit: this.pageSize, ...(page === undefined ? {} : { page }) }), { signal });
      return { items: answer.items, next: answer.opcNextPage };
    }, `oci: ${doing}`);
    const found = all.find((i) => imageSlug(i) === image.toLowerCase());
    if (found) return found.id;
    const offered = [...new Set(all.map(imageSlug))];
    throw new VendorRejectedError(`oci: image "${image}" is neither an image OCID nor the name of an image in the compartment; images: ${offered.join(', ')} (or an image's display name or OCID)`, { field: 'image' });
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    const { identity, credentials, describeEndpoint } = this.clients;
    try {
      const answer = await ociRequired('test the API key', () => identity.listRegionSubscriptions({ tenancyId: credentials.tenancy }), options);
      const subscribed = answer.items.find((r) => r.regionName === credentials.region);
      if (!subscribed) return { ok: false, message: `oci: the API key is accepted at ${describeEndpoint}, but the tenancy is not subscribed to region ${credentials.region}; subscribed: ${answer.items.map((r) => r.regionName).join(', ')}` };
      return { ok: true, message: `oci: the API key of user ${credentials.user} is accepted at ${describeEndpoint} (region ${credentials.region}, ${subscribed.status})` };
    } catch (error) {
      if (error instanceof VendorAuthError) return { ok: false, message: `${error.message}: the request signature was refused; check the tenancy and user OCIDs, and that the API key with this fingerprint is uploaded to the user (Console → Profile → API keys)` };
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
