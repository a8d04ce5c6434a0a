/**
 * @module Tests of the vendor registry: sandbox and local are there, an unknown vendor is refused by name.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from './errors.js';
import { localVendor } from './local/index.js';
import { getVendor, vendors } from './registry.js';
import { sandboxVendor } from './sandbox/index.js';
import { sshVendor } from './ssh/index.js';

describe('vendor registry', () => {
  it('serves the sandbox, local and ssh vendors by their ids', () => {
    expect(getVendor('sandbox')).toBe(sandboxVendor);
    expect(getVendor('local')).toBe(localVendor);
    expect(getVendor('ssh')).toBe(sshVendor);
    expect(sshVendor.credentialFields).toEqual([]);
    expect([...vendors.keys()].sort()).toEqual(['atlas', 'aws', 'azure', 'contabo', 'digitalocean', 'exoscale', 'gcp', 'hetzner', 'ionos', 'leaseweb', 'linode', 'local', 'oci', 'sandbox', 'scaleway', 'ssh', 'tencent', 'vultr']);
  });

  it('refuses an unknown vendor and lists the supported ones', () => {
    expect(() => getVendor('ovh')).toThrow(UnsupportedError);
    expect(() => getVendor('ovh')).toThrow('unknown vendor "ovh": supported vendors are atlas, aws, azure, contabo, digitalocean, exoscale, gcp, hetzner, ionos, leaseweb, linode, local, oci, sandbox, scaleway, ssh, tencent, vultr');
  });
});
