/**
 * @module The `oci` vendor (Oracle Cloud Infrastructure): compute instances through Oracle's
 * official SDK (oci-core, oci-identity, signed by oci-common), every request through cairn's
 * outbound guard (http-client.ts), at the Provider's region or its `spec.endpoint`. Credentials
 * are an API signing key as OCI issues it (credentials.ts). Databases and apps on its instances
 * run over SSH; OCI Database with PostgreSQL is not driven yet.
 */
import type { CloudDriver, DriverConfig, RuntimeDriver, Vendor } from '../contract.js';
import { sshRuntimeFor } from '../kit/ssh-runtime.js';
import { OCI_CREDENTIAL_FIELDS } from './credentials.js';

export const ociVendor: Vendor = {
  id: 'oci',
  description: 'Oracle Cloud Infrastructure: compute instances in one region per Provider (its availability domains), on a subnet you name. OCI Database with PostgreSQL is not driven yet; databases and apps on its instances run over SSH.',
  credentialFields: OCI_CREDENTIAL_FIELDS,
  async createCloudDriver(config: DriverConfig): Promise<CloudDriver> {
    // The SDK is loaded here, on first use, not with the registry: every command and test process
    // would otherwise pay for loading it (a second and more) whether or not it drives this vendor.
    const [{ ociClients }, { OciCloudDriver }] = await Promise.all([import('./clients.js'), import('./cloud-driver.js')]);
    return new OciCloudDriver(ociClients(config));
  },
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver> {
    return sshRuntimeFor('oci', config);
  },
};
