/**
 * @module Azure virtual machines as cairn's ExternalClient, through `@azure/arm-compute`. A VM
 * is named from cairn's idempotency key (resource-names.ts) and tagged with it: a create first
 * GETs that name, and ARM's PUT of the same name returns the same VM, so a lost answer never
 * makes a second one. Everything a VM needs comes with it: the region's shared virtual network
 * (made once, by a PUT of its fixed name), and the VM's own NIC, public IP and OS disk, made by
 * the VM itself (`networkInterfaceConfigurations`) with `deleteOption: Delete`, so deleting the
 * VM deletes them. User data goes in `osProfile.customData` (base64); the SSH keys found in it
 * also go in `linuxConfiguration.ssh` (Azure wants at least one key for a Linux VM without a
 * password: when there is none, a fresh key whose private half is thrown away). Power off is a
 * deallocation (compute billing stops); a resize is an update of `hardwareProfile.vmSize`.
 */
import type { VirtualMachine } from '@azure/arm-compute';
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { ownershipLabels } from '../kit/ownership-labels.js';
import { generateKeyPair } from '../../ssh-keys/key-pairs.js';
import { azureCall, isNotFound } from './azure-errors.js';
import type { AzureClients } from './azure-clients.js';
import { imageReference } from './images.js';
import { nameFromId, networkNameFor, nicNameFor, publicIpNameFor, vmNameForKey } from './resource-names.js';
import { NAME_TAG, readVirtualMachine } from './wire-format.js';

const VM_TYPE = 'Microsoft.Compute/virtualMachines';

/** The VM's administrator (Azure needs one); reached only through the SSH keys. */
export const ADMIN_USER = 'cairn';

const PUBLIC_KEY = /(?:ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)) [A-Za-z0-9+/=]+(?: [^"\n]*)?/g;

/** The SSH public keys in the user data (user-data.ts puts the server's keys in `ssh_authorized_keys`). */
export function publicKeysIn(userData: string | null | undefined): string[] {
  return [...new Set((userData ?? '').match(PUBLIC_KEY) ?? [])].map((k) => k.trim());
}

/** A computer name Azure takes for Linux: letters, digits and hyphens, at most 64. */
function computerName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  return cleaned === '' ? 'cairn' : cleaned;
}

/** The name and resource group of any ARM id. */
function parts(id: string): { resourceGroup: string; name: string } | undefined {
  const match = /\/resourceGroups\/([^/]+)\/providers\/[^/]+\/[^/]+\/([^/]+)$/i.exec(id);
  return match ? { resourceGroup: match[1]!, name: match[2]! } : undefined;
}

export class AzureVirtualMachines implements ExternalClient<ServerDesired, ServerObserved> {
  private readonly resourceGroup: string;
  /** Subnet ids of the regions' networks already made by this driver. */
  private readonly subnets = new Map<string, Promise<string>>();

  constructor(
    private readonly clients: AzureClients,
    private readonly pollMs: number,
    /** Refuses a region or size the subscription is not offered, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
  ) {
    this.resourceGroup = clients.credentials.resourceGroup;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    const byId = ref.externalId ? nameFromId(ref.externalId, this.resourceGroup, VM_TYPE) : undefined;
    if (byId !== undefined) {
      const found = await this.get(byId, `observe virtual machine ${byId}`, options);
      if (found) return found;
    }
    if (ref.key === '') return null;
    const name = vmNameForKey(ref.key);
    return this.get(name, `find virtual machine ${name} (key ${ref.key})`, options);
  }

  /** The VM of that name with its power state and public address, or null when there is none. */
  async get(name: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const where = `azure: ${doing}`;
    const vm = await azureCall(where, async () => {
      try {
        return await this.clients.compute.virtualMachines.get(this.resourceGroup, name, { expand: 'instanceView', abortSignal: options.signal });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
    if (!vm) return null;
    return readVirtualMachine(vm, await this.publicAddress(vm, where, options));
  }

  /** The VM's public IPv4 address: its primary NIC's public IP, once the VM is made. */
  private async publicAddress(vm: VirtualMachine, where: string, options: CallOptions): Promise<string | null> {
    if (vm.provisioningState !== 'Succeeded' && vm.provisioningState !== 'Updating') return null;
    const nics = vm.networkProfile?.networkInterfaces ?? [];
    const nicId = (nics.find((n) => n.primary) ?? nics[0])?.id;
    const nic = nicId === undefined ? undefined : parts(nicId);
    if (!nic) return null;
    return azureCall(where, async () => {
      try {
        const found = await this.clients.network.networkInterfaces.get(nic.resourceGroup, nic.name, { abortSignal: options.signal });
        const configurations = found.ipConfigurations ?? [];
        const ipId = (configurations.find((c) => c.primary) ?? configurations[0])?.publicIPAddress?.id;
        const ip = ipId === undefined ? undefined : parts(ipId);
        if (!ip) return null;
        return (await this.clients.network.publicIPAddresses.get(ip.resourceGroup, ip.name, { abortSignal: options.signal })).ipAddress ?? null;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const name = vmNameForKey(key);
    const doing = `create virtual machine ${name} ("${desired.name}")`;
    const existing = await this.get(name, doing, options);
    if (existing) return existing;
    await this.checkPlacement(desired.region, desired.size);
    const image = imageReference(desired.image);
    const subnetId = await this.subnet(desired.region, options);
    const keys = publicKeysIn(desired.userData);
    if (keys.length === 0) keys.push(generateKeyPair({ comment: 'cairn: no key was given; the private half was discarded' }).publicKey);
    const parameters: VirtualMachine = {
      location: desired.region,
      tags: { ...ownershipLabels(key), [NAME_TAG]: desired.name },
      hardwareProfile: { vmSize: desired.size },
      storageProfile: { imageReference: image, osDisk: { createOption: 'FromImage', deleteOption: 'Delete', managedDisk: { storageAccountType: 'StandardSSD_LRS' } } },
      osProfile: {
        computerName: computerName(desired.name),
        adminUsername: ADMIN_USER,
        ...(desired.userData ? { customData: Buffer.from(desired.userData).toString('base64') } : {}),
        linuxConfiguration: {
          disablePasswordAuthentication: true,
          ssh: { publicKeys: keys.map((keyData) => ({ path: `/home/${ADMIN_USER}/.ssh/authorized_keys`, keyData })) },
        },
      },
      networkProfile: {
        networkApiVersion: '2020-11-01',
        networkInterfaceConfigurations: [{
          name: nicNameFor(name),
          primary: true,
          deleteOption: 'Delete',
          ipConfigurations: [{
            name: 'primary',
            primary: true,
            subnet: { id: subnetId },
            publicIPAddressConfiguration: { name: publicIpNameFor(name), deleteOption: 'Delete', sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' },
          }],
        }],
      },
    };
    // The PUT's first answer is enough: the VM exists (Creating); observe follows it from there.
    const poller = await azureCall(`azure: ${doing}`, () => this.clients.compute.virtualMachines.beginCreateOrUpdate(this.resourceGroup, name, parameters, { abortSignal: options.signal, updateIntervalInMs: this.pollMs }));
    const first = poller.getOperationState().result;
    return first ? readVirtualMachine(first, null) : ((await this.get(name, doing, options)) ?? readVirtualMachine({ ...parameters, name, provisioningState: 'Creating' }, null));
  }

  /** The id of the subnet of cairn's network in the region, made first when missing (a PUT of a fixed name: made once however often asked). */
  private subnet(region: string, options: CallOptions): Promise<string> {
    let made = this.subnets.get(region);
    if (!made) {
      made = this.ensureNetwork(region, options);
      this.subnets.set(region, made);
      made.catch(() => this.subnets.delete(region));
    }
    return made;
  }

  private async ensureNetwork(region: string, options: CallOptions): Promise<string> {
    const { vnet, subnet } = networkNameFor(region);
    const where = `azure: make virtual network ${vnet} in ${region}`;
    const found = await azureCall(where, async () => {
      try {
        return await this.clients.network.subnets.get(this.resourceGroup, vnet, subnet, { abortSignal: options.signal });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
    if (found?.id) return found.id;
    const network = await azureCall(where, () =>
      this.clients.network.virtualNetworks.beginCreateOrUpdateAndWait(this.resourceGroup, vnet, {
        location: region,
        tags: { 'managed-by': 'cairn' },
        addressSpace: { addressPrefixes: ['10.40.0.0/16'] },
        subnets: [{ name: subnet, addressPrefix: '10.40.0.0/20' }],
      }, { abortSignal: options.signal, updateIntervalInMs: this.pollMs }),
    );
    const id = network.subnets?.find((s) => s.name === subnet)?.id;
    if (!id) throw new Error(`${where}: Azure's answer has no subnet ${subnet}`);
    return id;
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const name = this.nameOf(externalId);
    const doing = `resize virtual machine ${name} to ${desired.size}`;
    const current = await this.required(name, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(current.region, desired.size);
    await azureCall(`azure: ${doing}`, () => this.clients.compute.virtualMachines.beginUpdateAndWait(this.resourceGroup, name, { hardwareProfile: { vmSize: desired.size } }, { abortSignal: options.signal, updateIntervalInMs: this.pollMs }));
    return this.required(name, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const name = this.nameOf(externalId);
    const doing = `${action} virtual machine ${name}`;
    const where = `azure: ${doing}`;
    const settings = { abortSignal: options.signal, updateIntervalInMs: this.pollMs };
    const vms = this.clients.compute.virtualMachines;
    if (action === 'power_on') await azureCall(where, () => vms.beginStartAndWait(this.resourceGroup, name, settings));
    else if (action === 'power_off') await azureCall(where, () => vms.beginDeallocateAndWait(this.resourceGroup, name, settings));
    else await azureCall(where, () => vms.beginRestartAndWait(this.resourceGroup, name, settings));
    return this.required(name, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const name = this.nameOf(externalId);
    await azureCall(`azure: delete virtual machine ${name}`, async () => {
      try {
        await this.clients.compute.virtualMachines.beginDeleteAndWait(this.resourceGroup, name, { abortSignal: options.signal, updateIntervalInMs: this.pollMs });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
  }

  private nameOf(externalId: string): string {
    const name = nameFromId(externalId, this.resourceGroup, VM_TYPE);
    if (name === undefined) throw new Error(`azure: "${externalId}" is not the id of a virtual machine in resource group ${this.resourceGroup}`);
    return name;
  }

  private async required(name: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const vm = await this.get(name, doing, options);
    if (!vm) throw new Error(`azure: ${doing}: virtual machine ${name} no longer exists`);
    return vm;
  }
}
