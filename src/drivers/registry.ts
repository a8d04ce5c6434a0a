/**
 * @module The vendors cairn can drive, by id. A Provider's `spec.vendor` is looked up here.
 */
import type { Vendor } from './contract.js';
import { UnsupportedError } from './errors.js';
import { digitalOceanVendor } from './digitalocean/index.js';
import { hetznerVendor } from './hetzner/index.js';
import { linodeVendor } from './linode/index.js';
import { localVendor } from './local/index.js';
import { sandboxVendor } from './sandbox/index.js';
import { vultrVendor } from './vultr/index.js';

export const vendors: Map<string, Vendor> = new Map<string, Vendor>([
  [sandboxVendor.id, sandboxVendor],
  [localVendor.id, localVendor],
  [hetznerVendor.id, hetznerVendor],
  [digitalOceanVendor.id, digitalOceanVendor],
  [vultrVendor.id, vultrVendor],
  [linodeVendor.id, linodeVendor],
]);

/** The vendor with this id; throws an UnsupportedError listing the supported ones otherwise. */
export function getVendor(id: string): Vendor {
  const vendor = vendors.get(id);
  if (!vendor) {
    throw new UnsupportedError(`unknown vendor "${id}": supported vendors are ${[...vendors.keys()].sort().join(', ')}`);
  }
  return vendor;
}
