/**
 * @module What the Azure double holds: the subscription's locations and VM SKUs, one resource
 * group's virtual networks and virtual machines (each VM with the NIC, public IP and OS disk it
 * made itself, deleted with it), and the asynchronous operations ARM runs (a create, resize,
 * power action or delete takes `actionMs`, and is applied when its time has come, whoever asks).
 */
import { randomUUID } from 'node:crypto';

export interface AzureVm {
  name: string;
  location: string;
  tags: Record<string, string>;
  size: string;
  image: { publisher: string; offer: string; sku: string; version: string };
  computerName: string;
  adminUsername: string;
  /** The user data as it arrived (decoded from base64), or null. */
  userData: string | null;
  sshKeys: string[];
  provisioningState: 'Creating' | 'Updating' | 'Succeeded' | 'Deleting' | 'Failed';
  power: 'starting' | 'running' | 'stopping' | 'stopped' | 'deallocating' | 'deallocated';
  nicName: string;
  publicIpName: string;
  publicIp: string;
  osDiskName: string;
}

export interface AzureOperation {
  id: string;
  location: string;
  doneAt: number;
  status: 'InProgress' | 'Succeeded' | 'Failed';
  apply: () => void;
  startTime: string;
}

export const LOCATIONS = [
  { name: 'westeurope', displayName: 'West Europe', physical: true },
  { name: 'northeurope', displayName: 'North Europe', physical: true },
  { name: 'germanywestcentral', displayName: 'Germany West Central', physical: true },
  { name: 'eastus', displayName: 'East US', physical: true },
  { name: 'europe', displayName: 'Europe', physical: false },
] as const;

export const VM_SKUS = [
  { name: 'Standard_B1s', vcpus: 1, memoryGb: 1, tempMb: 4096, locations: ['westeurope', 'northeurope', 'germanywestcentral', 'eastus'] },
  { name: 'Standard_B2s', vcpus: 2, memoryGb: 4, tempMb: 8192, locations: ['westeurope', 'northeurope', 'germanywestcentral', 'eastus'] },
  { name: 'Standard_D2s_v5', vcpus: 2, memoryGb: 8, tempMb: 0, locations: ['westeurope', 'eastus'] },
  { name: 'Standard_D4s_v5', vcpus: 4, memoryGb: 16, tempMb: 0, locations: ['westeurope', 'eastus'], restrictedIn: ['eastus'] },
  { name: 'Standard_E2s_v5', vcpus: 2, memoryGb: 16, tempMb: 0, locations: ['northeurope'] },
] as const;

export class AzureState {
  readonly vms = new Map<string, AzureVm>();
  readonly networks = new Map<string, { name: string; location: string; tags: Record<string, string>; addressPrefixes: string[]; subnets: Array<{ name: string; addressPrefix: string }> }>();
  readonly operations = new Map<string, AzureOperation>();
  /** NICs, public IPs and disks left behind (never, when VMs are deleted with their parts). */
  private nextAddress = 10;

  constructor(readonly actionMs: number) {}

  /** Applies every operation whose time has come. */
  settle(now = Date.now()): void {
    for (const op of this.operations.values()) {
      if (op.status === 'InProgress' && now >= op.doneAt) {
        op.apply();
        op.status = 'Succeeded';
      }
    }
  }

  /** Starts an operation that applies after actionMs. */
  operation(location: string, apply: () => void): AzureOperation {
    const op: AzureOperation = { id: randomUUID(), location, doneAt: Date.now() + this.actionMs, status: 'InProgress', apply, startTime: new Date().toISOString() };
    this.operations.set(op.id, op);
    return op;
  }

  publicAddress(): string {
    return `20.50.${Math.floor(this.nextAddress / 250)}.${(this.nextAddress++ % 250) + 1}`;
  }
}
