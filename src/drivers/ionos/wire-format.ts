/**
 * @module IONOS's JSON, read into cairn's driver types: servers (status from the resource's
 * `metadata.state` and the VM's `properties.vmState`, size from cores and RAM, image from the boot
 * volume, the first NIC's addresses, the key from the name), locations (with the CPU limits
 * sizes are offered by), and the offset paging of lists (`_links.next`).
 */
import type { Region, ServerObserved, VendorServerStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { readServerName } from './server-name.js';
import { imageName, slugOf, type LocationLimits } from './shapes.js';

/**
 * The closest cairn status: work under way on the resource (DEPLOYING, BUSY, UPDATING) is
 * provisioning, DESTROYING is deleting, a FAILED state is error, INACTIVE and SUSPENDED (a
 * deallocated or suspended server) are stopped; an AVAILABLE server is what its VM is: RUNNING,
 * stopped (SHUTOFF, SHUTDOWN, PAUSED, SUSPENDED), NOSTATE (not yet started) provisioning, CRASHED
 * or BLOCKED error.
 */
export function readStatus(state: string, vmState: string | null): VendorServerStatus {
  switch (state) {
    case 'DEPLOYING':
    case 'BUSY':
    case 'UPDATING':
      return 'provisioning';
    case 'DESTROYING':
    case 'TERMINATED':
      return 'deleting';
    case 'INACTIVE':
    case 'SUSPENDED':
      return 'stopped';
    case 'AVAILABLE':
    case 'ACTIVE':
      break;
    default:
      return 'error';
  }
  switch (vmState) {
    case 'RUNNING':
      return 'running';
    case 'SHUTOFF':
    case 'SHUTDOWN':
    case 'PAUSED':
    case 'SUSPENDED':
      return 'stopped';
    case 'NOSTATE':
    case null:
      return 'provisioning';
    default:
      return 'error';
  }
}

/** A server read at depth 3 (its volumes and NICs with their properties); `dcId` and `location` are its data center's. */
export function readServer(server: WireReader, dcId: string, location: string): ServerObserved {
  const properties = server.object('properties');
  const metadata = server.raw('metadata') === undefined ? undefined : server.object('metadata');
  const { name, key } = readServerName(properties.string('name'));
  const entities = server.raw('entities') === undefined ? undefined : server.object('entities');
  const volumes = entities?.raw('volumes') === undefined ? [] : itemsOf(entities.object('volumes'));
  const bootId = properties.raw('bootVolume') === undefined || properties.raw('bootVolume') === null ? undefined : properties.object('bootVolume').string('id');
  const boot = volumes.find((v) => v.string('id') === bootId) ?? volumes[0];
  const bootProperties = boot?.raw('properties') === undefined ? undefined : boot.object('properties');
  const nics = entities?.raw('nics') === undefined ? [] : itemsOf(entities.object('nics'));
  const ips = nics.flatMap((nic) => (nic.raw('properties') === undefined ? [] : ipsOf(nic.object('properties'))));
  return {
    id: `${dcId}/${server.string('id')}`,
    name,
    clientToken: key ?? '',
    region: location,
    size: slugOf(properties.number('cores'), properties.number('ram')),
    image: bootProperties ? imageName(bootProperties.stringOrNull('imageAlias'), bootProperties.stringOrNull('image')) : '',
    status: readStatus(metadata?.stringOrNull('state') ?? 'BUSY', properties.stringOrNull('vmState')),
    ipv4: ips.find((ip) => !ip.includes(':')) ?? null,
    ipv6: ips.find((ip) => ip.includes(':')) ?? null,
  };
}

function itemsOf(collection: WireReader): WireReader[] {
  return collection.raw('items') === undefined ? [] : collection.array('items');
}

function ipsOf(nic: WireReader): string[] {
  return nic.raw('ips') === null || nic.raw('ips') === undefined ? [] : nic.strings('ips');
}

/** A location is a region; it takes servers when it has a CPU architecture to run them. */
export function readLocation(location: WireReader): { region: Region; limits: LocationLimits } {
  const properties = location.object('properties');
  const slug = location.string('id');
  const architectures = properties.raw('cpuArchitecture') === undefined ? [] : properties.array('cpuArchitecture');
  const limits = architectures.map((a) => ({ maxCores: a.numberOrNull('maxCores') ?? 0, maxRamMb: a.numberOrNull('maxRam') ?? 0 }));
  return { region: { slug, name: properties.stringOrNull('name') ?? slug, available: limits.some((l) => l.maxCores > 0) }, limits: { location: slug, architectures: limits } };
}

/** The next offset of an offset-paged list, or undefined on the last page (no `_links.next`). */
export function nextOffset(body: WireReader, offset: number, count: number): string | undefined {
  if (body.raw('_links') === undefined) return undefined;
  const next = body.object('_links').stringOrNull('next');
  return next === null || count === 0 ? undefined : String(offset + count);
}
