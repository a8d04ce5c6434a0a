/**
 * @module Scaleway's Instance API JSON, read into cairn's driver types: servers (state, commercial
 * type, zone, image, addresses, the idempotency key from their tags; the id cairn keeps is
 * `<zone>/<uuid>`, since every Scaleway path needs the zone), server types (the `servers` map of
 * `ListServersTypes`), error bodies, and the page after this one from `X-Total-Count`.
 */
import type { Size, VendorServerStatus } from '../contract.js';
import type { VendorErrorText } from '../kit/vendor-http.js';
import type { WireReader } from '../kit/wire-reader.js';
import type { ServerObserved } from '../contract.js';
import { keyFromTags } from './key-tag.js';

/** Scaleway's server `state`, as cairn's status. `stopped in place` keeps the server on its host, powered off. */
export function readStatus(state: string): VendorServerStatus {
  switch (state) {
    case 'running':
      return 'running';
    case 'stopped':
    case 'stopped in place':
      return 'stopped';
    case 'starting':
      return 'starting';
    case 'stopping':
      return 'stopping';
    case 'locked':
      // Scaleway locked the server (abuse, billing): nothing cairn can act on.
      return 'error';
    default:
      return 'error';
  }
}

/** cairn's id of a Scaleway server: its zone and UUID. */
export function externalIdOf(zone: string, id: string): string {
  return `${zone}/${id}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The zone and UUID in cairn's id, or undefined when it is not one (an id from elsewhere). */
export function parseExternalId(externalId: string): { zone: string; id: string } | undefined {
  const slash = externalId.indexOf('/');
  if (slash < 0) return undefined;
  const zone = externalId.slice(0, slash);
  const id = externalId.slice(slash + 1);
  return /^[a-z]{2}-[a-z]{3}-\d+$/.test(zone) && UUID.test(id) ? { zone, id } : undefined;
}

function firstAddress(server: WireReader, family: 'inet' | 'inet6'): string | null {
  const ips = server.raw('public_ips');
  if (Array.isArray(ips)) {
    for (const ip of server.array('public_ips')) if (ip.stringOrNull('family') === family && ip.stringOrNull('address')) return ip.string('address');
  }
  if (family === 'inet') {
    const legacy = server.raw('public_ip');
    if (legacy !== null && typeof legacy === 'object') return server.object('public_ip').stringOrNull('address');
  }
  return null;
}

export function readServer(server: WireReader): ServerObserved {
  const zone = server.string('zone');
  const image = server.raw('image');
  return {
    id: externalIdOf(zone, server.string('id')),
    name: server.string('name'),
    clientToken: keyFromTags(server.raw('tags') === undefined ? [] : server.strings('tags')) ?? '',
    region: zone,
    size: server.string('commercial_type'),
    image: image === null || typeof image !== 'object' ? '' : (server.object('image').stringOrNull('name') ?? ''),
    status: readStatus(server.string('state')),
    ipv4: firstAddress(server, 'inet'),
    ipv6: firstAddress(server, 'inet6'),
  };
}

const BYTES_PER_MB = 1024 * 1024;
const BYTES_PER_GB = 1000 * 1000 * 1000;

/**
 * One entry of `ListServersTypes`' `servers` map: RAM in bytes → MB; disk is the most local
 * storage the type takes (`per_volume_constraint.l_ssd.max_size`, else the
 * `volumes_constraint.max_size`; 0 for a type that boots from block storage only), in GB as
 * Scaleway counts them (10^9 bytes); the price is Scaleway's estimate for a 30-day month, in euro.
 */
export function readServerType(commercialType: string, type: WireReader, zone: string): Size {
  const perVolume = type.raw('per_volume_constraint');
  const local = perVolume !== null && typeof perVolume === 'object' && type.object('per_volume_constraint').raw('l_ssd') ? type.object('per_volume_constraint').object('l_ssd').numberOrNull('max_size') : null;
  const constraint = type.raw('volumes_constraint');
  const overall = constraint !== null && typeof constraint === 'object' ? type.object('volumes_constraint').numberOrNull('max_size') : null;
  const diskBytes = local !== null && local > 0 ? local : (overall ?? 0);
  const monthly = type.raw('monthly_price');
  return {
    slug: commercialType,
    vcpus: type.number('ncpus'),
    memoryMb: Math.round(type.number('ram') / BYTES_PER_MB),
    diskGb: Math.round(diskBytes / BYTES_PER_GB),
    priceMonthly: typeof monthly === 'number' ? monthly : Math.round(type.number('hourly_price') * 730 * 100) / 100,
    regions: [zone],
  };
}

/**
 * Scaleway's error body: `{ "type": "invalid_arguments", "message": "...", "details": [{ "argument_name": ... }] }`
 * and its kin (`not_found`, `permissions_denied`, `denied_authentication`, `quotas_exceeded`,
 * `out_of_stock`); `transient_state` (the server is busy with an action) passes by itself.
 */
export function readError(body: unknown): VendorErrorText | undefined {
  const error = body as { type?: unknown; message?: unknown; details?: unknown; help_message?: unknown } | undefined;
  if (typeof error?.message !== 'string' || error.message === '') return undefined;
  const details = Array.isArray(error.details) ? (error.details as Array<{ argument_name?: unknown; help_message?: unknown; reason?: unknown }>) : [];
  const argument = details.find((d) => typeof d.argument_name === 'string');
  const help = typeof argument?.help_message === 'string' ? argument.help_message : typeof error.help_message === 'string' ? error.help_message : undefined;
  return {
    message: help === undefined ? error.message : `${error.message}: ${help}`,
    ...(typeof argument?.argument_name === 'string' ? { field: argument.argument_name } : {}),
    ...(error.type === 'transient_state' ? { passing: true } : {}),
  };
}

/**
 * The page after `page`, or undefined on the last: while `X-Total-Count` says more items exist
 * than the `seen` so far (Scaleway may put fewer on a page than asked), else while a page comes
 * back full.
 */
export function nextPage(page: number, perPage: number, totalCount: string | null, seen: number, itemsOnPage: number): string | undefined {
  if (itemsOnPage === 0) return undefined;
  const total = totalCount === null ? Number.NaN : Number(totalCount);
  if (Number.isFinite(total)) return seen < total ? String(page + 1) : undefined;
  return itemsOnPage >= perPage ? String(page + 1) : undefined;
}
