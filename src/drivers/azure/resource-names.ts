/**
 * @module Azure idempotency by name: ARM's PUT creates or returns the resource of that name, so
 * a virtual machine's name is derived from cairn's idempotency key, and a create whose answer was
 * lost finds it again by a GET of that name (it carries the key in its `cairn-key` tag as well).
 * A key that is a valid Linux VM name (letters, digits, hyphens, at most 60 so that the NIC's and
 * public IP's names derived from it stay within 80) is the name itself; any other is hashed.
 * The virtual network is one per region, shared by the provider's servers in that region.
 */
import { createHash } from 'node:crypto';

/** The resource group a provider's servers go in when its credentials name none. */
export const DEFAULT_RESOURCE_GROUP = 'cairn';

const NAMEABLE = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,58}[a-zA-Z0-9]$/;

/** The virtual machine's name for an idempotency key. */
export function vmNameForKey(key: string): string {
  return NAMEABLE.test(key) ? key : `cairn-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** The network interface configuration (and so the NIC) of a VM. */
export function nicNameFor(vmName: string): string {
  return `${vmName}-nic`;
}

/** The public IP address configuration (and so the public IP) of a VM. */
export function publicIpNameFor(vmName: string): string {
  return `${vmName}-ip`;
}

/** The virtual network cairn's servers in a region share, and its subnet. */
export function networkNameFor(region: string): { vnet: string; subnet: string } {
  return { vnet: `cairn-${region}`, subnet: 'servers' };
}

/** The resource's name, last segment of an ARM id (`/subscriptions/…/virtualMachines/web-1` → `web-1`), if it is one of `type` in `resourceGroup`. */
export function nameFromId(id: string, resourceGroup: string, type: string): string | undefined {
  const match = /^\/subscriptions\/[^/]+\/resourceGroups\/([^/]+)\/providers\/([^/]+\/[^/]+)\/([^/]+)$/i.exec(id);
  if (!match || match[1]!.toLowerCase() !== resourceGroup.toLowerCase() || match[2]!.toLowerCase() !== type.toLowerCase()) return undefined;
  return match[3];
}
