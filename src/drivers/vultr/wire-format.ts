/**
 * @module Vultr's JSON, read into cairn's driver types: instances (`status` and `power_status`
 * folded into one status, plan, region, OS, addresses, the idempotency key from their tags),
 * regions, plans, operating systems, and the cursor of a list's next page (`meta.links.next`).
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromTags } from './key-tag.js';

/**
 * Vultr's `status` (pending, active, suspended, resizing) with its `power_status` (running,
 * stopped): an instance being made or resized is provisioning; an active one runs or is stopped
 * as its power says; a suspended one (Vultr stopped it, e.g. for billing) is stopped.
 */
export function readStatus(status: string, power: string): VendorServerStatus {
  switch (status) {
    case 'pending':
    case 'resizing':
      return 'provisioning';
    case 'suspended':
      return 'stopped';
    case 'active':
      return power === 'running' ? 'running' : power === 'stopped' ? 'stopped' : 'error';
    default:
      return 'error';
  }
}

/** The slug cairn gives an operating system's name: `Debian 12 x64 (bookworm)` → `debian-12-x64`. */
export function osSlug(name: string): string {
  return name
    .replace(/\([^)]*\)/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function addressOrNull(value: string): string | null {
  return value === '' || value === '0.0.0.0' || value === '::' ? null : value;
}

export function readInstance(instance: WireReader): ServerObserved {
  return {
    id: instance.string('id'),
    name: instance.string('label'),
    clientToken: keyFromTags(instance.raw('tags') === undefined ? [] : instance.strings('tags')) ?? '',
    region: instance.string('region'),
    size: instance.string('plan'),
    image: osSlug(instance.string('os')),
    status: readStatus(instance.string('status'), instance.string('power_status')),
    ipv4: addressOrNull(instance.string('main_ip')),
    ipv6: instance.raw('v6_main_ip') === undefined ? null : addressOrNull(instance.string('v6_main_ip')),
  };
}

/** Vultr lists no closed regions: every region it returns takes new instances. */
export function readRegion(region: WireReader): Region {
  return { slug: region.string('id'), name: `${region.string('city')} (${region.string('country')})`, available: true };
}

export function readPlan(plan: WireReader): Size {
  return {
    slug: plan.string('id'),
    vcpus: plan.number('vcpu_count'),
    memoryMb: plan.number('ram'),
    diskGb: plan.number('disk'),
    priceMonthly: plan.number('monthly_cost'),
    regions: plan.strings('locations'),
  };
}

export interface OperatingSystem {
  id: number;
  slug: string;
}

export function readOs(os: WireReader): OperatingSystem {
  return { id: os.number('id'), slug: osSlug(os.string('name')) };
}

/** The cursor of the next page, or undefined on the last one (Vultr sends `""`). */
export function nextCursor(body: WireReader): string | undefined {
  const meta = body.raw('meta');
  if (meta === undefined || meta === null) return undefined;
  const links = body.object('meta').raw('links');
  if (links === undefined || links === null) return undefined;
  const next = body.object('meta').object('links').stringOrNull('next');
  return next === null || next === '' ? undefined : next;
}
