/**
 * @module The vendors cairn can drive, by id. A Provider's `spec.vendor` is looked up here.
 */
import type { Vendor } from './contract.js';
import { UnsupportedError } from './errors.js';
import { awsVendor } from './aws/index.js';
import { atlasVendor } from './atlas/index.js';
import { digitalOceanVendor } from './digitalocean/index.js';
import { exoscaleVendor } from './exoscale/index.js';
import { gcpVendor } from './gcp/index.js';
import { hetznerVendor } from './hetzner/index.js';
import { leasewebVendor } from './leaseweb/index.js';
import { ionosVendor } from './ionos/index.js';
import { linodeVendor } from './linode/index.js';
import { localVendor } from './local/index.js';
import { sandboxVendor } from './sandbox/index.js';
import { scalewayVendor } from './scaleway/index.js';
import { sshVendor } from './ssh/index.js';
import { vultrVendor } from './vultr/index.js';
import { contaboVendor } from './contabo/index.js';
import { tencentVendor } from './tencent/index.js';
import { azureVendor } from './azure/index.js';
import { ociVendor } from './oci/index.js';

export const vendors: Map<string, Vendor> = new Map<string, Vendor>([
  [sandboxVendor.id, sandboxVendor],
  [localVendor.id, localVendor],
  [hetznerVendor.id, hetznerVendor],
  [digitalOceanVendor.id, digitalOceanVendor],
  [vultrVendor.id, vultrVendor],
  [scalewayVendor.id, scalewayVendor],
  [exoscaleVendor.id, exoscaleVendor],
  [contaboVendor.id, contaboVendor],
  [leasewebVendor.id, leasewebVendor],
  [linodeVendor.id, linodeVendor],
  [ionosVendor.id, ionosVendor],
  [tencentVendor.id, tencentVendor],
  [azureVendor.id, azureVendor],
  [gcpVendor.id, gcpVendor],
  [ociVendor.id, ociVendor],
  [awsVendor.id, awsVendor],
  [atlasVendor.id, atlasVendor],
  [sshVendor.id, sshVendor],
]);

/** The vendor with this id; throws an UnsupportedError listing the supported ones otherwise. */
export function getVendor(id: string): Vendor {
  const vendor = vendors.get(id);
  if (!vendor) {
    throw new UnsupportedError(`unknown vendor "${id}": supported vendors are ${[...vendors.keys()].sort().join(', ')}`);
  }
  return vendor;
}

/** The vendors whose managed database service cairn drives (Databases with `managed: true`), sorted, with their engines: `digitalocean (postgresql, mongodb)`. */
export function managedDatabaseVendors(engine?: string): string[] {
  return [...vendors.values()]
    .filter((v) => v.createManagedDatabases !== undefined && (engine === undefined || (v.managedDatabaseEngines ?? []).some((e) => e === engine)))
    .map((v) => `${v.id} (${(v.managedDatabaseEngines ?? []).join(', ')})`)
    .sort();
}
