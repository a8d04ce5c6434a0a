/**
 * @module Compute Engine's resources read into cairn's driver types, and what cairn writes into
 * them: an instance (its status folded into cairn's, zone and machine type from their URLs, the
 * external addresses, the idempotency key from its metadata), zones as cairn's regions, machine
 * types as sizes (one size per type name, with every zone that offers it), the label-safe form of
 * a key, the `requestId` derived from it, and the public image an image slug names.
 */
import { createHash } from 'node:crypto';
import type { compute_v1 } from '@googleapis/compute';
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import { VendorRejectedError, VendorUnavailableError } from '../errors.js';

/** The boot disk cairn gives every instance (Compute Engine's machine types carry no disk). */
export const BOOT_DISK_GB = 20;

/** The metadata item holding the key as it is (the label holds its label-safe form). */
export const KEY_METADATA = 'cairn-key';
/** The metadata item holding the image slug cairn created the instance from. */
export const IMAGE_METADATA = 'cairn-image';

/** The last segment of a resource URL: `.../zones/europe-west1-b` → `europe-west1-b`. */
export function lastSegment(url: string | null | undefined): string {
  return (url ?? '').split('/').pop() ?? '';
}

/**
 * Compute Engine's instance status: PROVISIONING and STAGING are being made, RUNNING runs,
 * STOPPING/SUSPENDING are on the way down, TERMINATED (stopped) and SUSPENDED are stopped,
 * REPAIRING is Google recovering it (provisioning until it runs again).
 */
export function readStatus(status: string | null | undefined): VendorServerStatus {
  switch (status) {
    case 'PROVISIONING':
    case 'STAGING':
    case 'REPAIRING':
      return 'provisioning';
    case 'RUNNING':
      return 'running';
    case 'STOPPING':
    case 'SUSPENDING':
    case 'PENDING_STOP':
      return 'stopping';
    case 'TERMINATED':
    case 'STOPPED':
    case 'SUSPENDED':
      return 'stopped';
    default:
      return 'error';
  }
}

/** Label values are lower-case letters, digits, `_` and `-`, at most 63: the key as it is when it fits, else a digest of it. */
export function labelValueForKey(key: string): string {
  if (/^[a-z0-9_-]{1,63}$/.test(key)) return key;
  return `h-${createHash('sha256').update(key).digest('hex').slice(0, 60)}`;
}

/** The UUID Compute Engine dedupes an insert by, the same for the same key (RFC 4122 shape, version 5 bits, never all zeros). */
export function requestIdForKey(key: string): string {
  const hex = createHash('sha256').update(`cairn-request:${key}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Public image projects by family prefix (cloud.google.com/compute/docs/images/os-details). */
const IMAGE_PROJECTS: Array<[RegExp, string]> = [
  [/^debian-/, 'debian-cloud'],
  [/^ubuntu-/, 'ubuntu-os-cloud'],
  [/^rocky-linux-/, 'rocky-linux-cloud'],
  [/^centos-/, 'centos-cloud'],
  [/^rhel-/, 'rhel-cloud'],
  [/^almalinux-/, 'almalinux-cloud'],
  [/^cos-/, 'cos-cloud'],
  [/^fedora-coreos-/, 'fedora-coreos-cloud'],
];

/** The `sourceImage` for an image: a path or URL as it is (`projects/p/global/images/...`), else a public family (`debian-12`). */
export function sourceImage(image: string): string {
  if (/^(https:\/\/|projects\/|global\/)/.test(image)) return image;
  const project = IMAGE_PROJECTS.find(([prefix]) => prefix.test(image))?.[1];
  if (!project || !/^[a-z][-a-z0-9]{0,62}$/.test(image)) {
    throw new VendorRejectedError(`gcp: image "${image}" is not a public image family cairn knows (debian-12, ubuntu-2404-lts-amd64, rocky-linux-9, ...); name another as projects/<project>/global/images/family/<family>`, { field: 'image' });
  }
  return `projects/${project}/global/images/family/${image}`;
}

function metadataValue(instance: compute_v1.Schema$Instance, key: string): string | undefined {
  return instance.metadata?.items?.find((item) => item.key === key)?.value ?? undefined;
}

/** The key an instance was made under (its metadata, else its label), or '' for one cairn did not make. */
export function keyOf(instance: compute_v1.Schema$Instance): string {
  return metadataValue(instance, KEY_METADATA) ?? instance.labels?.[KEY_METADATA] ?? '';
}

export function readInstance(instance: compute_v1.Schema$Instance, where: string): ServerObserved {
  if (typeof instance.name !== 'string' || instance.name === '' || typeof instance.zone !== 'string') {
    throw new VendorUnavailableError(`${where}: unexpected answer from Google: an instance without a name or zone`);
  }
  const nic = instance.networkInterfaces?.[0];
  return {
    id: `${lastSegment(instance.zone)}/${instance.name}`,
    name: instance.name,
    clientToken: keyOf(instance),
    region: lastSegment(instance.zone),
    size: lastSegment(instance.machineType),
    image: metadataValue(instance, IMAGE_METADATA) ?? '',
    status: readStatus(instance.status),
    ipv4: nic?.accessConfigs?.find((c) => c.natIP)?.natIP ?? null,
    ipv6: nic?.ipv6AccessConfigs?.find((c) => c.externalIpv6)?.externalIpv6 ?? null,
    ...(instance.statusMessage ? { message: instance.statusMessage } : {}),
  };
}

/** A zone as cairn's region: a Server's `region` is a zone (`europe-west1-b`). */
export function readZone(zone: compute_v1.Schema$Zone): Region {
  const name = zone.name ?? '';
  return { slug: name, name: `${name} (${lastSegment(zone.region)}${zone.description && zone.description !== name ? `, ${zone.description}` : ''})`, available: zone.status === 'UP' && zone.deprecated?.state !== 'DELETED' };
}

/** Machine types of every zone as sizes, one per name with the zones that offer it; deprecated ones left out. Compute Engine's API has no prices: 0. */
export function readMachineTypes(types: ReadonlyArray<compute_v1.Schema$MachineType>): Size[] {
  const sizes = new Map<string, Size>();
  for (const type of types) {
    if (!type.name || type.deprecated?.state) continue;
    const size = sizes.get(type.name) ?? { slug: type.name, vcpus: type.guestCpus ?? 0, memoryMb: type.memoryMb ?? 0, diskGb: BOOT_DISK_GB, priceMonthly: 0, regions: [] };
    const zone = type.zone ?? '';
    if (zone !== '' && !size.regions.includes(zone)) size.regions.push(zone);
    sizes.set(type.name, size);
  }
  return [...sizes.values()];
}
