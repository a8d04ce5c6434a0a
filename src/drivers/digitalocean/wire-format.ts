/**
 * @module DigitalOcean's JSON, read into cairn's driver types: droplets (status, size, region,
 * image, addresses, the idempotency key from their tags), regions, sizes, and where a list's
 * next page is (`links.pages.next`).
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromTags } from './key-tag.js';

const STATUS: Record<string, VendorServerStatus> = { new: 'provisioning', active: 'running', off: 'stopped', archive: 'deleting' };

function address(droplet: WireReader, family: 'v4' | 'v6'): string | null {
  const networks = droplet.object('networks');
  if (networks.raw(family) === undefined) return null;
  const found = networks.array(family).find((n) => n.raw('type') === 'public');
  return found ? found.string('ip_address') : null;
}

export function readDroplet(droplet: WireReader): ServerObserved {
  const image = droplet.raw('image');
  return {
    id: String(droplet.number('id')),
    name: droplet.string('name'),
    clientToken: keyFromTags(droplet.strings('tags')) ?? '',
    region: droplet.object('region').string('slug'),
    size: droplet.string('size_slug'),
    image: image === null || image === undefined ? '' : (droplet.object('image').stringOrNull('slug') ?? ''),
    status: STATUS[droplet.string('status')] ?? 'error',
    ipv4: address(droplet, 'v4'),
    ipv6: address(droplet, 'v6'),
  };
}

export function readRegion(region: WireReader): Region {
  return { slug: region.string('slug'), name: region.string('name'), available: region.boolean('available') };
}

export function readSize(size: WireReader): Size {
  return {
    slug: size.string('slug'),
    vcpus: size.number('vcpus'),
    memoryMb: size.number('memory'),
    diskGb: size.number('disk'),
    priceMonthly: size.number('price_monthly'),
    regions: size.strings('regions'),
  };
}

/** Whether a size can still be ordered (sizes DigitalOcean retired are listed with `available: false`). */
export function isAvailable(size: WireReader): boolean {
  return size.boolean('available');
}

/** The page number of `links.pages.next`, or undefined on the last page. */
export function nextPage(body: WireReader): string | undefined {
  const links = body.raw('links');
  if (links === undefined || links === null) return undefined;
  const pages = body.object('links').raw('pages');
  if (pages === undefined || pages === null) return undefined;
  const next = body.object('links').object('pages').stringOrNull('next');
  if (next === null) return undefined;
  const page = new URL(next, 'https://api.digitalocean.com').searchParams.get('page');
  return page ?? undefined;
}
