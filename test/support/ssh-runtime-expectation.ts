/**
 * @module What every cloud vendor's runtime is: databases and apps on its servers run over SSH.
 * Without the SSH access the driver pool gives, building the runtime is refused plainly; with it,
 * the vendor builds the SSH runtime under its own name.
 */
import { expect } from 'vitest';
import type { DriverConfig, Vendor } from '../../src/drivers/contract.js';
import { UnsupportedError } from '../../src/drivers/errors.js';
import { MemoryHostKeyPins, SshConnections } from '../../src/ssh/index.js';
import { makeClientKeyPair } from './sshd.js';

export async function expectRuntimeOverSsh(vendor: Vendor, config: DriverConfig): Promise<void> {
  const refused = vendor.createRuntimeDriver({ ...config, ssh: undefined });
  await expect(refused).rejects.toBeInstanceOf(UnsupportedError);
  await expect(refused).rejects.toThrow(/run over SSH, and this cairn process was started without SSH access/);
  const connections = new SshConnections();
  const key = makeClientKeyPair();
  try {
    const runtime = await vendor.createRuntimeDriver({ ...config, ssh: { connections, identity: () => Promise.resolve({ privateKey: key.privateKey }), pins: new MemoryHostKeyPins() } });
    expect(runtime.vendor).toBe(vendor.id);
    await runtime.close();
  } finally {
    await connections.close();
  }
}
