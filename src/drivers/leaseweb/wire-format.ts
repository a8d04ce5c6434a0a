/**
 * @module Leaseweb Public Cloud's JSON, read into cairn's driver types: instances (state folded
 * into cairn's statuses, the name and key from the reference, the image as cairn names it, the
 * public addresses), regions, instance types (memory in GiB, prices as decimal strings), the
 * `_metadata` paging (limit/offset/totalCount), and its error body.
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import type { WireReader } from '../kit/wire-reader.js';
import { readReference } from './reference.js';

/**
 * Leaseweb's instance state (the document's `state` enum) as cairn's: CREATING is provisioning,
 * DESTROYING deleting; FAILED and UNKNOWN are errors. DESTROYED never reaches here: a
 * destroyed instance is observed as gone.
 */
export function readStatus(state: string): VendorServerStatus {
  switch (state) {
    case 'CREATING':
      return 'provisioning';
    case 'STARTING':
      return 'starting';
    case 'RUNNING':
      return 'running';
    case 'STOPPING':
      return 'stopping';
    case 'STOPPED':
      return 'stopped';
    case 'DESTROYING':
    case 'DESTROYED':
      return 'deleting';
    default:
      return 'error';
  }
}

/** Leaseweb's image id of a cairn image: `debian-12` is `DEBIAN_12_64BIT`; a Leaseweb id (`UBUNTU_22_04_64BIT`, a custom image's UUID) is kept. */
export function leasewebImage(image: string): string | undefined {
  if (/^[A-Z][A-Z0-9_]*$/.test(image) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(image)) return image;
  const named = /^([a-z]+)-(\d+(?:\.\d+)*)$/.exec(image);
  return named ? `${named[1]!.toUpperCase()}_${named[2]!.replace(/\./g, '_')}_64BIT` : undefined;
}

/** The image as cairn names it: `DEBIAN_12_64BIT` is `debian-12`, `UBUNTU_22_04_64BIT` `ubuntu-22.04`; others keep their id. */
export function imageName(id: string): string {
  const official = /^([A-Z]+)_(\d+(?:_\d+)*)_64BIT$/.exec(id);
  return official ? `${official[1]!.toLowerCase()}-${official[2]!.replace(/_/g, '.')}` : id;
}

/** `key`: the key the caller looks for, recognised when the reference carries its digest. */
export function readInstance(instance: WireReader, key?: string): ServerObserved {
  const reference = readReference(instance.stringOrNull('reference'), key);
  const publicIps = instance.array('ips').filter((ip) => ip.string('networkType') === 'PUBLIC');
  const address = (version: number): string | null => publicIps.find((ip) => ip.number('version') === version)?.string('ip') ?? null;
  return {
    id: instance.string('id'),
    name: reference.name,
    clientToken: reference.key ?? '',
    region: instance.string('region'),
    size: instance.string('type'),
    image: imageName(instance.object('image').string('id')),
    status: readStatus(instance.string('state')),
    ipv4: address(4),
    ipv6: address(6),
  };
}

/** Leaseweb lists regions without a state: every region it lists takes instances. */
export function readRegion(region: WireReader): Region {
  return { slug: region.string('name'), name: region.string('location'), available: true };
}

/** Memory in MB from Leaseweb's `{ value, unit }` (GiB in every answer the document shows; MiB and GB read too). */
export function memoryMb(memory: WireReader): number {
  const value = memory.number('value');
  const unit = memory.string('unit');
  switch (unit) {
    case 'GiB':
      return Math.round(value * 1024);
    case 'GB':
      return Math.round((value * 1e9) / 2 ** 20);
    case 'MiB':
      return Math.round(value);
    default:
      throw new Error(`leaseweb: instance type memory in an unknown unit "${unit}"`);
  }
}

/** A decimal price string (`"29.4400"`) as a number. */
function price(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`leaseweb: price "${text}" is not a number`);
  return value;
}

/**
 * An instance type in one region, with the root disk cairn gives every instance: Leaseweb sells
 * the disk apart (per GB and month, by storage type), so its monthly price is the compute's plus
 * `diskGb` of the type's storage (CENTRAL when offered, as cairn launches it).
 */
export function readType(type: WireReader, diskGb: number): { size: Omit<Size, 'regions'>; storageType: string } {
  const storageTypes = type.raw('storageTypes') === null ? [] : type.strings('storageTypes');
  const storageType = storageTypes.includes('CENTRAL') || storageTypes.length === 0 ? 'CENTRAL' : storageTypes[0]!;
  const prices = type.object('prices');
  const storage = prices.object('storage').object(storageType.toLowerCase());
  const resources = type.object('resources');
  return {
    size: {
      slug: type.string('name'),
      vcpus: resources.object('cpu').number('value'),
      memoryMb: memoryMb(resources.object('memory')),
      diskGb,
      priceMonthly: Math.round((price(prices.object('compute').string('monthlyPrice')) + diskGb * price(storage.string('monthlyPrice'))) * 100) / 100,
    },
    storageType,
  };
}

/** The next offset after this page, or undefined when `_metadata.totalCount` is reached. */
export function nextOffset(body: WireReader, itemsOnPage: number): string | undefined {
  const metadata = body.object('_metadata');
  const next = metadata.number('offset') + itemsOnPage;
  return itemsOnPage > 0 && next < metadata.number('totalCount') ? String(next) : undefined;
}

/** Leaseweb's error body: `{ errorCode, errorMessage, correlationId, errorDetails: { field: [reason] } }`. */
export function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { errorMessage?: unknown; errorDetails?: unknown; correlationId?: unknown } | undefined;
  if (typeof error?.errorMessage !== 'string') return undefined;
  const details = typeof error.errorDetails === 'object' && error.errorDetails !== null ? Object.entries(error.errorDetails as Record<string, unknown>) : [];
  const reasons = details.map(([field, why]) => `${field}: ${Array.isArray(why) ? why.join(', ') : String(why)}`);
  const correlation = typeof error.correlationId === 'string' ? ` (correlation id ${error.correlationId})` : '';
  const message = `${[error.errorMessage, ...reasons].join('; ')}${correlation}`;
  const field = details[0]?.[0];
  return field === undefined ? { message } : { message, field };
}
