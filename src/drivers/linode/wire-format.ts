/**
 * @module Linode's JSON, read into cairn's driver types: Linodes (status folded into cairn's,
 * type, region, image, addresses, the idempotency key from their tags), regions, types (memory
 * and disk in MB, disk given in GB), and Linode's page numbers (`page` of `pages`).
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromTags } from './key-tag.js';

/**
 * Linode's status (the document's enum, and `resizing`, which the API reports during a resize)
 * as the closest cairn status: work under way on the disk or host (provisioning, migrating,
 * resizing, rebuilding, cloning, restoring, busy) is provisioning; booting is starting;
 * shutting down is stopping; offline, stopped and a billing suspension are stopped.
 */
export function readStatus(status: string): VendorServerStatus {
  switch (status) {
    case 'running':
      return 'running';
    case 'offline':
    case 'stopped':
    case 'billing_suspension':
      return 'stopped';
    case 'booting':
      return 'starting';
    case 'rebooting':
      return 'rebooting';
    case 'shutting_down':
      return 'stopping';
    case 'deleting':
      return 'deleting';
    case 'provisioning':
    case 'migrating':
    case 'resizing':
    case 'rebuilding':
    case 'cloning':
    case 'restoring':
    case 'busy':
      return 'provisioning';
    default:
      return 'error';
  }
}

/** The image as cairn names it: `linode/debian12` is `debian-12`; other images keep their id. */
export function imageName(image: string | null): string {
  if (image === null) return '';
  const official = /^linode\/([a-z]+)(\d[\d.]*)$/.exec(image);
  return official ? `${official[1]}-${official[2]}` : image;
}

/** `key`: the key the caller looks for, recognised when the Linode carries its (digest) tag. */
export function readInstance(linode: WireReader, key?: string): ServerObserved {
  const ipv4 = linode.strings('ipv4');
  const ipv6 = linode.stringOrNull('ipv6');
  return {
    id: String(linode.number('id')),
    name: linode.string('label'),
    clientToken: keyFromTags(linode.strings('tags'), key) ?? '',
    region: linode.string('region'),
    size: linode.string('type'),
    image: imageName(linode.stringOrNull('image')),
    status: readStatus(linode.string('status')),
    ipv4: ipv4.find((ip) => !isPrivate(ip)) ?? null,
    ipv6: ipv6 === null || ipv6 === '' ? null : ipv6.replace(/\/\d+$/, ''),
  };
}

/** Linode lists a Linode's private address (192.168.128.0/17) beside its public one. */
function isPrivate(ip: string): boolean {
  return /^192\.168\.(12[89]|1[3-9]\d|2\d\d)\./.test(ip) || /^10\./.test(ip);
}

/** A region takes new Linodes when its status is `ok` and it offers the `Linodes` capability. */
export function readRegion(region: WireReader): Region {
  const capabilities = region.raw('capabilities') === undefined ? ['Linodes'] : region.strings('capabilities');
  return { slug: region.string('id'), name: region.string('label'), available: region.string('status') === 'ok' && capabilities.includes('Linodes') };
}

/**
 * A Linode type. Linode sells every type in every region (`region_prices` only changes the price
 * in some), so its regions are all of them; memory and disk come in MB.
 */
export function readType(type: WireReader, regions: readonly string[]): Size {
  return {
    slug: type.string('id'),
    vcpus: type.number('vcpus'),
    memoryMb: type.number('memory'),
    diskGb: Math.round(type.number('disk') / 1024),
    priceMonthly: type.object('price').numberOrNull('monthly') ?? 0,
    regions: [...regions],
  };
}

/** The next page number, or undefined on the last page. */
export function nextPage(body: WireReader): string | undefined {
  const page = body.number('page');
  return page < body.number('pages') ? String(page + 1) : undefined;
}
