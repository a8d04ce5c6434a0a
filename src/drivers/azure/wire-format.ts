/**
 * @module Azure's models, as the SDK returns them, read into cairn's driver types: a virtual
 * machine's provisioning state and power state (its instance view) folded into one status,
 * subscription locations into regions (physical ones only), compute resource SKUs of type
 * `virtualMachines` into sizes (vCPUs, memory, temporary disk, the locations where the
 * subscription is not restricted from them; ARM carries no prices, so `priceMonthly` is 0).
 */
import type { InstanceViewStatus, ResourceSku, VirtualMachine } from '@azure/arm-compute';
import type { Location } from '@azure/arm-resources-subscriptions';
import type { Region, ServerObserved, Size, VendorServerStatus } from '../contract.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';
import { imageName } from './images.js';

/** The tag holding the server's name in cairn (its VM name is derived from the key). */
export const NAME_TAG = 'cairn-name';

/**
 * `provisioningState` (Creating, Updating, Succeeded, Failed, Deleting) with the instance view's
 * `PowerState/*` code: being made or changed is provisioning; made, it is as its power says
 * (deallocated counts as stopped: cairn's power_off deallocates).
 */
export function readStatus(provisioningState: string | undefined, statuses: readonly InstanceViewStatus[] = []): VendorServerStatus {
  const state = (provisioningState ?? '').toLowerCase();
  if (state === 'deleting') return 'deleting';
  if (state === 'failed') return 'error';
  if (state === 'creating') return 'provisioning';
  const power = statuses.map((s) => s.code ?? '').find((code) => code.startsWith('PowerState/'))?.slice('PowerState/'.length);
  switch (power) {
    case 'running':
      return state === 'updating' ? 'provisioning' : 'running';
    case 'starting':
      return 'starting';
    case 'stopping':
    case 'deallocating':
      return 'stopping';
    case 'stopped':
    case 'deallocated':
      return 'stopped';
    default:
      return 'provisioning';
  }
}

/** The VM as cairn sees it; addresses come from its public IP, read separately. */
export function readVirtualMachine(vm: VirtualMachine, ipv4: string | null): ServerObserved {
  return {
    id: vm.id ?? '',
    name: vm.tags?.[NAME_TAG] ?? vm.name ?? '',
    clientToken: vm.tags?.[KEY_LABEL] ?? '',
    region: vm.location,
    size: vm.hardwareProfile?.vmSize ?? '',
    image: imageName(vm.storageProfile?.imageReference),
    status: readStatus(vm.provisioningState, vm.instanceView?.statuses),
    ipv4,
    ipv6: null,
  };
}

/** Physical regions only: logical ones (`global`, `europe`) hold no servers. */
export function readRegion(location: Location): Region | undefined {
  if (!location.name || location.metadata?.regionType !== 'Physical') return undefined;
  return { slug: location.name, name: location.regionalDisplayName ?? location.displayName ?? location.name, available: true };
}

function capability(sku: ResourceSku, name: string): number | undefined {
  const value = sku.capabilities?.find((c) => c.name === name)?.value;
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** A `virtualMachines` SKU as a size, in the locations not restricted for this subscription; undefined for other SKUs or one offered nowhere. */
export function readSku(sku: ResourceSku): Size | undefined {
  if (sku.resourceType !== 'virtualMachines' || !sku.name) return undefined;
  const restricted = new Set((sku.restrictions ?? []).filter((r) => r.type === 'Location').flatMap((r) => r.values ?? []).map((l) => l.toLowerCase()));
  const regions = (sku.locations ?? []).map((l) => l.toLowerCase()).filter((l) => !restricted.has(l));
  const vcpus = capability(sku, 'vCPUs');
  const memoryGb = capability(sku, 'MemoryGB');
  if (regions.length === 0 || vcpus === undefined || memoryGb === undefined) return undefined;
  return {
    slug: sku.name,
    vcpus,
    memoryMb: Math.round(memoryGb * 1024),
    diskGb: Math.round((capability(sku, 'MaxResourceVolumeMB') ?? 0) / 1024),
    priceMonthly: 0,
    regions,
  };
}
