/**
 * @module The AWS cloud driver: EC2 instances (instances.ts), power actions, and the catalog:
 * regions from DescribeRegions (the account's enabled ones), sizes from DescribeInstanceTypeOfferings in
 * every enabled region (where each is offered) and DescribeInstanceTypes in the home region (and,
 * for types it lacks, in a region offering them), all paged by NextToken. EC2's API carries no prices, so
 * sizes show 0. An image is an AMI id (`ami-…`, used as it is) or a name resolved per region with DescribeImages, owned by Amazon,
 * Debian or Canonical only, matching the name or `<name>-*`, the newest: `debian-12` is the
 * latest `debian-12-amd64-…`. The credential test is DescribeRegions, EC2's cheapest signed read.
 */
import { DescribeImagesCommand, DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, DescribeRegionsCommand, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { CallOptions, CredentialTest, PowerAction, Region, ServerObserved, Size } from '../contract.js';
import { VendorAuthError, VendorRejectedError } from '../errors.js';
import type { Catalog } from '../kit/catalog-cache.js';
import { CatalogCloudDriver } from '../kit/catalog-cloud-driver.js';
import { readAllPages } from '../kit/pagination.js';
import type { AwsClients } from './clients.js';
import { Ec2Instances } from './instances.js';

/** The owners whose public images a name may resolve to: Amazon, Debian (136693071363), Canonical (099720109477). */
export const IMAGE_OWNERS = ['amazon', '136693071363', '099720109477'];

/** Items per page of the catalog's lists (DescribeInstanceTypes allows 5–100). */
const CATALOG_PAGE = 100;

/** Why cairn reads no CPU, memory or disk use here. */
const METRICS_UNSUPPORTED =
  "CPU and memory use are CloudWatch's, a separate API cairn does not read yet; EC2's API reports no utilisation";

export class AwsCloudDriver extends CatalogCloudDriver {
  readonly servers: Ec2Instances;
  private readonly images = new Map<string, Promise<string>>();

  constructor(
    private readonly clients: AwsClients,
    /** Where the account's catalog is read (its regions, its instance types). */
    private readonly homeRegion: string,
    private readonly describeEndpoint: string,
    pollMs = 500,
  ) {
    super('aws', METRICS_UNSUPPORTED);
    this.servers = new Ec2Instances(
      clients,
      pollMs,
      (region, size) => this.catalog.checkPlacement(region, size),
      (region, image, options) => this.resolveImage(region, image, options),
      async () => (await this.catalog.get()).regions.filter((r) => r.available).map((r) => r.slug),
    );
  }

  power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    return this.servers.power(externalId, action, options);
  }

  protected async listCatalog(): Promise<Catalog> {
    const home = this.homeRegion;
    const described = await this.clients.sendEc2(home, 'list regions', undefined, (ec2, o) => ec2.send(new DescribeRegionsCommand({}), o));
    const regions: Region[] = (described.Regions ?? [])
      .filter((r) => r.RegionName)
      .map((r) => ({ slug: r.RegionName!, name: r.RegionName!, available: r.OptInStatus !== 'not-opted-in' }));
    const types = await this.instanceTypes(home);
    const offeredIn = new Map<string, string[]>();
    for (const region of regions.filter((r) => r.available)) {
      const offerings = await readAllPages(async (token) => {
        const page = await this.clients.sendEc2(region.slug, 'list instance type offerings', undefined, (ec2, o) =>
          ec2.send(new DescribeInstanceTypeOfferingsCommand({ LocationType: 'region', MaxResults: 1000, ...(token === undefined ? {} : { NextToken: token }) }), o));
        return { items: page.InstanceTypeOfferings ?? [], next: page.NextToken ?? undefined };
      }, `aws ec2 ${region.slug}: list instance type offerings`);
      for (const offering of offerings) {
        if (offering.InstanceType) offeredIn.set(offering.InstanceType, [...(offeredIn.get(offering.InstanceType) ?? []), region.slug]);
      }
    }
    // Types not offered in the home region are described where they are offered, a region at a time.
    const describedTypes = new Set<string>(types.map((t) => t.InstanceType ?? ''));
    const elsewhere = new Map<string, string[]>();
    for (const [type, where] of offeredIn) if (!describedTypes.has(type) && where[0]) elsewhere.set(where[0], [...(elsewhere.get(where[0]) ?? []), type]);
    for (const [region, names] of elsewhere) types.push(...(await this.instanceTypes(region, names)));
    const sizes: Size[] = types
      .filter((t) => t.InstanceType)
      .map((t) => ({
        slug: t.InstanceType!,
        vcpus: t.VCpuInfo?.DefaultVCpus ?? 0,
        memoryMb: t.MemoryInfo?.SizeInMiB ?? 0,
        diskGb: t.InstanceStorageInfo?.TotalSizeInGB ?? 0,
        priceMonthly: 0,
        regions: offeredIn.get(t.InstanceType!) ?? [],
      }));
    return { regions, sizes };
  }

  /** The instance types EC2 offers in `region` (every page), or just `only` of them. */
  private instanceTypes(region: string, only?: string[]): Promise<InstanceTypeInfo[]> {
    return readAllPages<InstanceTypeInfo>(async (token) => {
      const page = await this.clients.sendEc2(region, 'list instance types', undefined, (ec2, o) =>
        ec2.send(new DescribeInstanceTypesCommand({ ...(only ? { InstanceTypes: only as never } : { MaxResults: CATALOG_PAGE }), ...(token === undefined ? {} : { NextToken: token }) }), o));
      return { items: page.InstanceTypes ?? [], next: page.NextToken ?? undefined };
    }, `aws ec2 ${region}: list instance types`);
  }

  /** The AMI id of `image` in `region`: an AMI id as it is, else the newest image so named (or `<name>-*`) of a trusted owner. */
  resolveImage(region: string, image: string, options: CallOptions = {}): Promise<string> {
    if (/^ami-[0-9a-f]{8,17}$/.test(image)) return Promise.resolve(image);
    const cacheKey = `${region} ${image}`;
    let found = this.images.get(cacheKey);
    if (!found) {
      found = this.clients.sendEc2(region, `find image "${image}"`, options.signal, (ec2, o) =>
        ec2.send(new DescribeImagesCommand({ Owners: IMAGE_OWNERS, Filters: [{ Name: 'name', Values: [image, `${image}-*`] }, { Name: 'state', Values: ['available'] }] }), o))
        .then((answer) => {
          const newest = (answer.Images ?? []).filter((i) => i.ImageId).sort((a, b) => (b.CreationDate ?? '').localeCompare(a.CreationDate ?? ''))[0];
          if (!newest) throw new VendorRejectedError(`aws ec2 ${region}: image "${image}" is neither an AMI id (ami-…) nor the name of an image by Amazon, Debian or Canonical there`, { field: 'image' });
          return newest.ImageId!;
        });
      this.images.set(cacheKey, found);
      found.catch(() => this.images.delete(cacheKey));
    }
    return found;
  }

  async testCredentials(options: CallOptions = {}): Promise<CredentialTest> {
    try {
      await this.clients.sendEc2(this.homeRegion, 'test the access key', options.signal, (ec2, o) => ec2.send(new DescribeRegionsCommand({}), o));
      return { ok: true, message: `aws: the access key is accepted at ${this.describeEndpoint} (${this.homeRegion})` };
    } catch (error) {
      if (error instanceof VendorAuthError) {
        return { ok: false, message: `${error.message}: the access key was refused; check the access key id and secret access key (IAM → Users → Security credentials), and the session token if the key is temporary` };
      }
      if (error instanceof VendorRejectedError) return { ok: false, message: error.message };
      throw error;
    }
  }

  override close(): Promise<void> {
    this.clients.close();
    return Promise.resolve();
  }
}
