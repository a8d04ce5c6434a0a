/**
 * @module Hetzner Cloud's JSON, read into cairn's driver types: servers (status, type, location,
 * the idempotency key from their labels), locations as regions, server types as sizes.
 */
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import { keyFromLabels } from '../kit/ownership-labels.js';
import type { WireReader } from '../kit/wire-reader.js';

const STATUS: Record<string, VendorServerStatus> = {
  initializing: 'provisioning', starting: 'starting', running: 'running', stopping: 'stopping', off: 'stopped',
  deleting: 'deleting', migrating: 'provisioning', rebuilding: 'provisioning', unknown: 'error',
};

function labelsOf(server: WireReader): Record<string, string> {
  const labels = server.object('labels');
  const key = labels.stringOrNull('cairn-key');
  return key === null ? {} : { 'cairn-key': key };
}

export function readServer(server: WireReader): ServerObserved {
  const status = server.string('status');
  const ipv4 = server.object('public_net').raw('ipv4');
  const ipv6 = server.object('public_net').raw('ipv6');
  const image = server.raw('image');
  return {
    id: String(server.number('id')),
    name: server.string('name'),
    clientToken: keyFromLabels(labelsOf(server)) ?? '',
    region: server.object('location').string('name'),
    size: server.object('server_type').string('name'),
    image: image === null ? '' : (server.object('image').stringOrNull('name') ?? ''),
    status: STATUS[status] ?? 'error',
    ipv4: ipv4 === null ? null : server.object('public_net').object('ipv4').stringOrNull('ip'),
    ipv6: ipv6 === null ? null : server.object('public_net').object('ipv6').stringOrNull('ip'),
  };
}

export function readRegion(location: WireReader): Region {
  return { slug: location.string('name'), name: `${location.string('city')} (${location.string('country')})`, available: true };
}

/** A server type as a size; its price is the lowest monthly gross price over its locations. */
export function readSize(type: WireReader): Size {
  const prices = type.array('prices');
  const monthly = prices.map((p) => Number(p.object('price_monthly').string('gross'))).filter(Number.isFinite);
  return {
    slug: type.string('name'),
    vcpus: type.number('cores'),
    memoryMb: Math.round(type.number('memory') * 1024),
    diskGb: type.number('disk'),
    priceMonthly: monthly.length > 0 ? Math.min(...monthly) : 0,
    regions: prices.map((p) => p.string('location')),
  };
}

/** Whether a server type is still offered (deprecated ones are left out of sizes). */
export function isOffered(type: WireReader): boolean {
  return type.raw('deprecated') !== true;
}
