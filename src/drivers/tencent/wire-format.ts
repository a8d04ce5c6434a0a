/**
 * @module Tencent Cloud's CVM answers read into cairn's driver types (through WireReader, never
 * trusted): instances (InstanceState as cairn's status, the idempotency key from the
 * `cairn-key` tag), zones as cairn's regions, instance types per zone as sizes, public images,
 * and cairn's id for an instance: `<instance id>@<region>` (CVM's calls are per region, and an
 * instance id does not say its region).
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';
import type { WireReader } from '../kit/wire-reader.js';

/** The system disk CVM gives an instance when RunInstances names none (GB): cairn names none. */
export const SYSTEM_DISK_GB = 50;

/** Hours in a month, for the monthly price of an hourly-billed instance type. */
const HOURS_A_MONTH = 730;

/** cairn's id of an instance in a region. */
export function externalIdOf(instanceId: string, region: string): string {
  return `${instanceId}@${region}`;
}

/** The instance id and region in cairn's id; undefined for an id that is not one of cairn's. */
export function parseExternalId(externalId: string): { instanceId: string; region: string } | undefined {
  const match = /^(ins-[a-z0-9]+)@([a-z]+-[a-z0-9-]+)$/.exec(externalId);
  return match ? { instanceId: match[1]!, region: match[2]! } : undefined;
}

/** The region of a zone: `ap-guangzhou-3` is in `ap-guangzhou`. */
export function regionOfZone(zone: string): string {
  return zone.replace(/-\d+$/, '');
}

/**
 * CVM's InstanceState: PENDING (being made), LAUNCH_FAILED, RUNNING, STOPPED, STARTING,
 * STOPPING, REBOOTING, SHUTDOWN (stopped and isolated, waiting to be destroyed), TERMINATING.
 */
export function readStatus(state: string): VendorServerStatus {
  switch (state) {
    case 'PENDING':
      return 'provisioning';
    case 'RUNNING':
      return 'running';
    case 'STOPPED':
      return 'stopped';
    case 'STARTING':
      return 'starting';
    case 'STOPPING':
      return 'stopping';
    case 'REBOOTING':
      return 'rebooting';
    case 'SHUTDOWN':
    case 'TERMINATING':
      return 'deleting';
    default:
      return 'error';
  }
}

/** The value of the tag `key` on an instance, or undefined. */
export function tagValue(instance: WireReader, key: string): string | undefined {
  if (instance.raw('Tags') === undefined || instance.raw('Tags') === null) return undefined;
  return instance.array('Tags').find((tag) => tag.string('Key') === key)?.string('Value');
}

function firstOrNull(instance: WireReader, key: string): string | null {
  const value = instance.raw(key);
  if (value === undefined || value === null) return null;
  return instance.strings(key)[0] ?? null;
}

export function readInstance(instance: WireReader, region: string): ServerObserved {
  const state = instance.string('InstanceState');
  const failure = instance.stringOrNull('LatestOperationErrorMsg');
  return {
    id: externalIdOf(instance.string('InstanceId'), region),
    name: instance.string('InstanceName'),
    clientToken: tagValue(instance, KEY_LABEL) ?? '',
    region: instance.object('Placement').string('Zone'),
    size: instance.string('InstanceType'),
    image: instance.string('ImageId'),
    status: readStatus(state),
    ipv4: firstOrNull(instance, 'PublicIpAddresses'),
    ipv6: firstOrNull(instance, 'IPv6Addresses'),
    ...(state === 'LAUNCH_FAILED' && failure ? { message: failure } : {}),
  };
}

/** A zone as cairn's region: it takes new instances when Tencent says AVAILABLE. */
export function readZone(zone: WireReader): Region {
  return { slug: zone.string('Zone'), name: zone.string('ZoneName'), available: zone.string('ZoneState') === 'AVAILABLE' };
}

/**
 * Instance types offered per zone (DescribeZoneInstanceConfigInfos, one item per zone and
 * type), folded into one size per type with the zones that sell it; Memory is in GB, the hourly
 * price (after discount, else the list price) times 730 is the monthly one.
 */
export function readSizes(items: readonly WireReader[]): Size[] {
  const sizes = new Map<string, Size>();
  for (const item of items) {
    const slug = item.string('InstanceType');
    const size = sizes.get(slug) ?? { slug, vcpus: item.number('Cpu'), memoryMb: item.number('Memory') * 1024, diskGb: SYSTEM_DISK_GB, priceMonthly: hourlyPrice(item.object('Price')) * HOURS_A_MONTH, regions: [] };
    if (item.string('Status') === 'SELL' && !size.regions.includes(item.string('Zone'))) size.regions.push(item.string('Zone'));
    sizes.set(slug, size);
  }
  return [...sizes.values()].map((size) => ({ ...size, priceMonthly: Math.round(size.priceMonthly * 100) / 100 }));
}

function hourlyPrice(price: WireReader): number {
  return price.numberOrNull('UnitPriceDiscount') ?? price.numberOrNull('UnitPrice') ?? 0;
}

/** The slug cairn gives an image's OS name: `Debian 12.4 64bit` → `debian-12-4-64bit`. */
export function osSlug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** Whether `image` (e.g. `debian-12`) names an OS: its slug, or the slug's start up to a dash. */
export function imageMatches(image: string, osName: string): boolean {
  const slug = osSlug(osName);
  return slug === image || slug.startsWith(`${image}-`);
}

/** Where the next page of an Offset/Limit list starts, or undefined after the last one. */
export function nextOffset(offset: number, got: number, total: number): string | undefined {
  const next = offset + got;
  return got === 0 || next >= total ? undefined : String(next);
}
