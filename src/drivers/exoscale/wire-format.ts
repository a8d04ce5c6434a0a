/**
 * @module Exoscale's JSON, read into cairn's driver types: instances (state, instance type,
 * template, addresses, the idempotency key from their labels), zones, instance types
 * (`standard.medium`), templates (`Linux Debian 12 (Bookworm) 64-bit` → `debian-12`),
 * operations, and cairn's id of an instance, which names its zone (`<uuid>@<zone>`) because
 * Exoscale's instances are zone-local: each zone has its own API host.
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import type { ActionState } from '../kit/follow-action.js';
import { keyFromLabels } from '../kit/ownership-labels.js';
import type { WireReader } from '../kit/wire-reader.js';

/** The label holding the zone cairn made an instance in (one endpoint may serve every zone). */
export const ZONE_LABEL = 'cairn-zone';

/** Disk size (GB) cairn asks for at create: Exoscale's smallest, as the instance type carries none. */
export const DISK_GB = 10;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** cairn's id of an instance: its UUID and its zone. */
export function externalIdOf(id: string, zone: string): string {
  return `${id}@${zone}`;
}

/** The UUID and zone of cairn's id, or undefined when it is not one. */
export function parseExternalId(externalId: string): { id: string; zone: string } | undefined {
  const at = externalId.lastIndexOf('@');
  if (at < 0) return undefined;
  const id = externalId.slice(0, at);
  const zone = externalId.slice(at + 1);
  return isUuid(id) && /^[a-z]{2}-[a-z]{3}-\d+$/.test(zone) ? { id, zone } : undefined;
}

/** Exoscale's instance `state` as cairn's status (`creating` is how a create shows in Exoscale's console). */
export function readStatus(state: string): VendorServerStatus {
  switch (state) {
    case 'running':
    case 'migrating':
      return 'running';
    case 'stopped':
      return 'stopped';
    case 'starting':
      return 'starting';
    case 'stopping':
      return 'stopping';
    case 'creating':
      return 'provisioning';
    case 'destroying':
    case 'expunging':
    case 'destroyed':
      return 'deleting';
    default:
      return 'error';
  }
}

/** The slug of a template's name: `Linux Debian 12 (Bookworm) 64-bit` → `debian-12`. */
export function templateSlug(name: string): string {
  return name
    .replace(/\([^)]*\)/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^linux-/, '')
    .replace(/-64-bit$/, '');
}

export interface Template {
  id: string;
  slug: string;
}

export function readTemplate(template: WireReader): Template {
  return { id: template.string('id'), slug: templateSlug(template.string('name')) };
}

export interface InstanceType {
  id: string;
  size: Size;
}

/** An instance type as a size; types that need Exoscale's authorisation are left out by the caller. */
export function readInstanceType(type: WireReader): InstanceType & { authorized: boolean } {
  return {
    id: type.string('id'),
    authorized: type.raw('authorized') === undefined ? true : type.boolean('authorized'),
    size: {
      slug: `${type.string('family')}.${type.string('size')}`,
      vcpus: type.number('cpus'),
      memoryMb: Math.round(type.number('memory') / 1024 / 1024),
      diskGb: DISK_GB,
      // Exoscale's API carries no prices (they are on its website only).
      priceMonthly: 0,
      regions: type.strings('zones'),
    },
  };
}

export function readZone(zone: WireReader): Region {
  return { slug: zone.string('name'), name: zone.string('name'), available: true };
}

/** Where an asynchronous operation is: done on success, failed with Exoscale's reason. */
export function readOperation(operation: WireReader): ActionState {
  const state = operation.string('state');
  if (state === 'pending') return { done: false };
  if (state === 'success') return { done: true };
  const why = operation.stringOrNull('message') ?? operation.stringOrNull('reason') ?? 'no reason given';
  return { done: true, failed: `${state}: ${why}` };
}

/** The labels of an instance (none when it has none). */
export function readLabels(instance: WireReader): Record<string, string> {
  if (instance.raw('labels') === undefined || instance.raw('labels') === null) return {};
  const labels = instance.raw('labels') as Record<string, unknown>;
  return Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * An instance as cairn observes it. `zone` is the zone whose API answered (its label wins: one
 * endpoint may serve every zone); `sizeOf` names an instance type by id (Exoscale's answers may
 * carry the id only).
 */
export function readInstance(instance: WireReader, zone: string, sizeOf: (typeId: string) => string): ServerObserved {
  const labels = readLabels(instance);
  const region = labels[ZONE_LABEL] ?? zone;
  const type = instance.object('instance-type');
  const size = type.raw('family') !== undefined && type.raw('size') !== undefined ? `${type.string('family')}.${type.string('size')}` : sizeOf(type.string('id'));
  const template = instance.raw('template') === undefined ? undefined : instance.object('template');
  return {
    id: externalIdOf(instance.string('id'), region),
    name: instance.string('name'),
    clientToken: keyFromLabels(labels) ?? '',
    region,
    size,
    image: template && template.raw('name') !== undefined ? templateSlug(template.string('name')) : (template?.stringOrNull('id') ?? ''),
    status: readStatus(instance.string('state')),
    ipv4: instance.stringOrNull('public-ip'),
    ipv6: instance.stringOrNull('ipv6-address'),
  };
}
