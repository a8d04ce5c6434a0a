/**
 * @module The runtime of a vendor whose servers carry databases and apps over SSH: the SSH
 * runtime (src/drivers/ssh/runtime-driver.ts), loaded when a runtime is first asked for, so that
 * commands that only read the vendor registry (plan, validate) do not load ssh2 and the runtime.
 */
import type { DriverConfig, RuntimeDriver } from '../contract.js';

export async function sshRuntimeFor(vendor: string, config: DriverConfig): Promise<RuntimeDriver> {
  const { sshRuntimeDriver } = await import('../ssh/runtime-driver.js');
  return sshRuntimeDriver(vendor, config);
}
