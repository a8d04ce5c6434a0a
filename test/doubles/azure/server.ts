/**
 * @module A stateful double of Azure on loopback, over HTTPS (Azure's bearer policy sends no
 * token over plain http) with a self-signed certificate whose PEM the test hands to cairn
 * (`ca`, for CAIRN_VENDOR_CA_FILE). It speaks Entra's token endpoint
 * (`/{tenant}/oauth2/v2.0/token`, client credentials, the secret checked, AADSTS errors) with the
 * tenant's OpenID metadata, and Azure Resource Manager's JSON: the subscription and its
 * locations, compute resource SKUs (paged by nextLink, `pageSize` a page), virtual machines
 * (PUT/GET/PATCH/DELETE, start/deallocate/restart) as long-running operations (201/202 with
 * `Azure-AsyncOperation` and `Retry-After`, the operation taking `actionMs`), virtual networks,
 * subnets, NICs and public IPs; errors as `{error:{code,message}}`; throttling as 429 with
 * Retry-After and `x-ms-ratelimit-remaining-subscription-*` on every answer; 5xx faults at a
 * seeded ratio; slow answers to chosen operations (for the crash test). Every request and answer
 * body is checked against the SDKs' own serializer models (test/support/azure-mapper-validator.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { AzureMapperValidator, sdkMappers, type Direction } from '../../support/azure-mapper-validator.js';
import { seededRandom } from '../../support/seeded-random.js';
import type { DoubleCall } from '../../support/vendor-double.js';
import { postgresRoute, type AzurePostgresServer, type PostgresRouteContext } from './postgres.js';
import { AzureState, LOCATIONS, VM_SKUS, type AzureVm } from './state.js';

export interface AzureDoubleOptions {
  tenantId?: string;
  clientId?: string;
  clientSecret: string;
  subscriptionId?: string;
  resourceGroup?: string;
  actionMs?: number;
  latencyMs?: number;
  /** SKUs a page of the SKU list (default 2). */
  pageSize?: number;
  /** Seconds in the Retry-After of long-running operations (default 1). */
  retryAfterSeconds?: number;
  rateLimit?: { limit: number; windowMs: number };
  /** Answers to these operations are held back this long (the change is made at once). */
  slowAnswers?: { operationIds: string[]; ms: number };
}

export interface AzureDouble {
  url: string;
  /** The PEM of the double's self-signed certificate (trust it through CAIRN_VENDOR_CA_FILE). */
  ca: string;
  /** ARM calls (not the token endpoint's). */
  calls: DoubleCall[];
  tokenRequests: number;
  violations: string[];
  vms(): AzureVm[];
  /** Azure Database for PostgreSQL flexible servers. */
  postgresServers(): AzurePostgresServer[];
  networks(): string[];
  /** NICs, public IPs and OS disks that exist (each VM's own, removed with it). */
  parts(): string[];
  setFaultRatio(ratio: number, seed?: number): void;
  /** Checks a body against a model as the double does (so a test can show the check fails). */
  check(pkg: 'compute' | 'network' | 'subscriptions' | 'postgresql', className: string, body: unknown, direction: Direction): string[];
  stop(): Promise<void>;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The model the answer body is checked against. */
  model?: [pkg: 'compute' | 'network' | 'subscriptions' | 'postgresql', className: string];
}

let certificate: Promise<{ private: string; cert: string }> | undefined;

/** The doubles' self-signed certificate for 127.0.0.1, made once per process (so one CA file serves every double of a test file). */
export function doubleCertificate(): Promise<{ private: string; cert: string }> {
  certificate ??= generate([{ name: 'commonName', value: 'azure-double' }], {
    keyType: 'ec', algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: false }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] }],
  });
  return certificate;
}

/** Writes the doubles' certificate to a file and points CAIRN_VENDOR_CA_FILE at it (for this process and the cairn it spawns). */
export async function trustDoubleCertificate(dir: string): Promise<string> {
  const file = join(dir, 'azure-double-ca.pem');
  writeFileSync(file, (await doubleCertificate()).cert);
  process.env['CAIRN_VENDOR_CA_FILE'] = file;
  return file;
}

/** A VM's PUT body as the double reads it (already checked against the SDK's model). */
interface WireVm {
  location?: string;
  tags?: Record<string, string>;
  properties?: {
    hardwareProfile?: { vmSize?: string };
    storageProfile?: { imageReference?: AzureVm['image'] };
    osProfile?: { computerName?: string; adminUsername?: string; customData?: string; linuxConfiguration?: { disablePasswordAuthentication?: boolean; ssh?: { publicKeys?: Array<{ keyData: string }> } } };
    networkProfile?: { networkInterfaceConfigurations?: Array<{ name?: string; properties?: { ipConfigurations?: Array<{ properties?: { subnet?: { id?: string }; publicIPAddressConfiguration?: { name?: string } } }> } }> };
  };
}

const API = /^\/subscriptions\/([^/]+)(\/.*)?$/;

export async function startAzureDouble(options: AzureDoubleOptions): Promise<AzureDouble> {
  const tenantId = options.tenantId ?? '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const clientId = options.clientId ?? '1b7c5f1e-0c3c-4c58-9d7e-6b9a2f4c0e11';
  const subscriptionId = options.subscriptionId ?? '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
  const resourceGroup = options.resourceGroup ?? 'cairn';
  const pageSize = options.pageSize ?? 2;
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const state = new AzureState(options.actionMs ?? 200);
  const validators = {
    compute: new AzureMapperValidator(sdkMappers('@azure/arm-compute')),
    network: new AzureMapperValidator(sdkMappers('@azure/arm-network')),
    subscriptions: new AzureMapperValidator(sdkMappers('@azure/arm-resources-subscriptions')),
    postgresql: new AzureMapperValidator(sdkMappers('@azure/arm-postgresql-flexible')),
  };
  const calls: DoubleCall[] = [];
  const violations: string[] = [];
  const tokens = new Set<string>();
  let tokenRequests = 0;
  let faultRatio = 0;
  let random = seededRandom(1);
  const window: number[] = [];

  const pems = await doubleCertificate();
  let url = '';

  const armError = (status: number, code: string, message: string, headers: Record<string, string> = {}): Answer =>
    ({ status, body: { error: { code, message } }, headers, model: ['compute', 'CloudError'] });
  const groupPath = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}`;
  const vmId = (name: string): string => `${groupPath}/providers/Microsoft.Compute/virtualMachines/${name}`;
  const nicId = (name: string): string => `${groupPath}/providers/Microsoft.Network/networkInterfaces/${name}`;
  const ipId = (name: string): string => `${groupPath}/providers/Microsoft.Network/publicIPAddresses/${name}`;
  const vnetId = (name: string): string => `${groupPath}/providers/Microsoft.Network/virtualNetworks/${name}`;
  const asyncHeaders = (op: { id: string; location: string }, apiVersion: string): Record<string, string> => ({
    'azure-asyncoperation': `${url}/subscriptions/${subscriptionId}/providers/Microsoft.Compute/locations/${op.location}/operations/${op.id}?api-version=${apiVersion}`,
    'retry-after': retryAfter,
  });
  const postgresServers = new Map<string, AzurePostgresServer>();
  const postgres: PostgresRouteContext = {
    state, servers: postgresServers,
    serverId: (name) => `${groupPath}/providers/Microsoft.DBforPostgreSQL/flexibleServers/${name}`,
    asyncHeaders: (op) => ({ 'azure-asyncoperation': `${url}/subscriptions/${subscriptionId}/providers/Microsoft.DBforPostgreSQL/locations/${op.location}/azureAsyncOperation/${op.id}?api-version=2025-08-01`, 'retry-after': retryAfter }),
    error: (status, code, message) => armError(status, code, message),
  };

  function vmBody(vm: AzureVm, instanceView: boolean): unknown {
    return {
      id: vmId(vm.name), name: vm.name, type: 'Microsoft.Compute/virtualMachines', location: vm.location, tags: vm.tags,
      properties: {
        vmId: randomUUID(),
        hardwareProfile: { vmSize: vm.size },
        storageProfile: {
          imageReference: { ...vm.image, exactVersion: '0.20251102.1' },
          osDisk: { osType: 'Linux', name: vm.osDiskName, createOption: 'FromImage', caching: 'ReadWrite', deleteOption: 'Delete', managedDisk: { storageAccountType: 'StandardSSD_LRS', id: `${groupPath}/providers/Microsoft.Compute/disks/${vm.osDiskName}` }, diskSizeGB: 30 },
          dataDisks: [],
        },
        osProfile: { computerName: vm.computerName, adminUsername: vm.adminUsername, linuxConfiguration: { disablePasswordAuthentication: true, ssh: { publicKeys: vm.sshKeys.map((keyData) => ({ path: `/home/${vm.adminUsername}/.ssh/authorized_keys`, keyData })) }, provisionVMAgent: true }, secrets: [], allowExtensionOperations: true },
        networkProfile: {
          networkApiVersion: '2020-11-01',
          networkInterfaces: vm.provisioningState === 'Creating' ? [] : [{ id: nicId(vm.nicName), properties: { primary: true, deleteOption: 'Delete' } }],
          networkInterfaceConfigurations: [{ name: vm.nicName, properties: { primary: true, deleteOption: 'Delete', ipConfigurations: [{ name: 'primary', properties: { primary: true, subnet: { id: `${vnetId(`cairn-${vm.location}`)}/subnets/servers` }, publicIPAddressConfiguration: { name: vm.publicIpName, sku: { name: 'Standard' }, properties: { deleteOption: 'Delete', publicIPAllocationMethod: 'Static' } } } }] } }],
        },
        provisioningState: vm.provisioningState,
        ...(instanceView
          ? { instanceView: { computerName: vm.computerName, statuses: [
            { code: `ProvisioningState/${vm.provisioningState.toLowerCase()}`, level: 'Info', displayStatus: `Provisioning ${vm.provisioningState.toLowerCase()}` },
            ...(vm.provisioningState === 'Creating' ? [] : [{ code: `PowerState/${vm.power}`, level: 'Info', displayStatus: `VM ${vm.power}` }]),
          ] } }
          : {}),
        timeCreated: new Date().toISOString(),
      },
    };
  }

  function createVm(name: string, body: WireVm, apiVersion: string): Answer {
    const props = body.properties ?? {};
    const location = body.location ?? '';
    if (!LOCATIONS.some((l) => l.physical && l.name === location)) return armError(400, 'LocationNotAvailableForResourceType', `The provided location '${location}' is not available for resource type 'Microsoft.Compute/virtualMachines'.`);
    const size = String(props.hardwareProfile?.vmSize ?? '');
    const sku = VM_SKUS.find((s) => s.name === size);
    if (!sku || !(sku.locations as readonly string[]).includes(location) || ('restrictedIn' in sku && (sku.restrictedIn as readonly string[]).includes(location))) {
      return armError(409, 'SkuNotAvailable', `The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: ${size}' is currently not available in location '${location}'.`);
    }
    const keys = (props.osProfile?.linuxConfiguration?.ssh?.publicKeys ?? []).map((k) => k.keyData);
    if (props.osProfile?.linuxConfiguration?.disablePasswordAuthentication === true && keys.length === 0) {
      return armError(400, 'InvalidParameter', 'Authentication using either SSH or by user name and password must be enabled in Linux profile.');
    }
    const nicConfig = props.networkProfile?.networkInterfaceConfigurations?.[0];
    const ipConfig = nicConfig?.properties?.ipConfigurations?.[0];
    const subnetId = String(ipConfig?.properties?.subnet?.id ?? '');
    if (!state.networks.has(subnetId.split('/virtualNetworks/')[1]?.split('/')[0] ?? '')) {
      return armError(400, 'InvalidResourceReference', `Resource ${subnetId} referenced by resource ${vmId(name)} was not found.`);
    }
    const customData = props.osProfile?.customData;
    const vm: AzureVm = {
      name, location, tags: body.tags ?? {}, size, image: props.storageProfile?.imageReference ?? { publisher: '', offer: '', sku: '', version: '' },
      computerName: props.osProfile?.computerName ?? '', adminUsername: props.osProfile?.adminUsername ?? '',
      userData: customData === undefined ? null : Buffer.from(customData, 'base64').toString('utf8'), sshKeys: keys,
      provisioningState: 'Creating', power: 'starting', nicName: nicConfig?.name ?? `${name}-nic`, publicIpName: ipConfig?.properties?.publicIPAddressConfiguration?.name ?? `${name}-ip`,
      publicIp: state.publicAddress(), osDiskName: `${name}_OsDisk_1_${randomUUID().replace(/-/g, '')}`,
    };
    state.vms.set(name.toLowerCase(), vm);
    const op = state.operation(location, () => {
      vm.provisioningState = 'Succeeded';
      vm.power = 'running';
    });
    return { status: 201, body: vmBody(vm, false), headers: asyncHeaders(op, apiVersion), model: ['compute', 'VirtualMachine'] };
  }

  /** The ARM routes; `rest` is the path after `/subscriptions/{id}`. */
  function arm(method: string, rest: string, query: URLSearchParams, body: unknown): Answer & { operationId: string } {
    const apiVersion = query.get('api-version') ?? '';
    const named = (operationId: string, answer: Answer): Answer & { operationId: string } => ({ ...answer, operationId });
    if (rest === '' && method === 'GET') {
      return named('Subscriptions_Get', { status: 200, body: { id: `/subscriptions/${subscriptionId}`, subscriptionId, displayName: 'cairn tests', state: 'Enabled', tenantId, subscriptionPolicies: { locationPlacementId: 'Public_2014-09-01', quotaId: 'PayAsYouGo_2014-09-01', spendingLimit: 'Off' }, authorizationSource: 'RoleBased' }, model: ['subscriptions', 'Subscription'] });
    }
    if (rest === '/locations' && method === 'GET') {
      const value = LOCATIONS.map((l) => ({
        id: `/subscriptions/${subscriptionId}/locations/${l.name}`, name: l.name, type: 'Region', displayName: l.displayName, regionalDisplayName: `(Europe) ${l.displayName}`,
        metadata: { regionType: l.physical ? 'Physical' : 'Logical', regionCategory: l.physical ? 'Recommended' : 'Other', ...(l.physical ? { geography: 'Europe', latitude: '52.3667', longitude: '4.9', physicalLocation: 'Netherlands' } : {}) },
      }));
      return named('Subscriptions_ListLocations', { status: 200, body: { value }, model: ['subscriptions', 'LocationListResult'] });
    }
    if (rest === '/providers/Microsoft.Compute/skus' && method === 'GET') {
      const skip = Number(query.get('$skiptoken') ?? 0);
      const page = VM_SKUS.slice(skip, skip + pageSize).map((s) => ({
        resourceType: 'virtualMachines', name: s.name, tier: 'Standard', size: s.name.replace(/^Standard_/, ''), family: 'standardFamily', locations: [...s.locations],
        locationInfo: s.locations.map((location) => ({ location, zones: ['1', '2', '3'] })),
        capabilities: [{ name: 'vCPUs', value: String(s.vcpus) }, { name: 'MemoryGB', value: String(s.memoryGb) }, { name: 'MaxResourceVolumeMB', value: String(s.tempMb) }],
        restrictions: 'restrictedIn' in s ? [{ type: 'Location', values: [...s.restrictedIn], restrictionInfo: { locations: [...s.restrictedIn] }, reasonCode: 'NotAvailableForSubscription' }] : [],
      }));
      const next = skip + pageSize < VM_SKUS.length ? `${url}/subscriptions/${subscriptionId}/providers/Microsoft.Compute/skus?api-version=${apiVersion}&$skiptoken=${skip + pageSize}` : undefined;
      return named('ResourceSkus_List', { status: 200, body: { value: page, ...(next ? { nextLink: next } : {}) }, model: ['compute', 'ResourceSkusResult'] });
    }
    const operation = /^\/providers\/Microsoft\.(?:Compute\/locations\/([^/]+)\/operations|DBforPostgreSQL\/locations\/([^/]+)\/azureAsyncOperation)\/([^/]+)$/i.exec(rest);
    if (operation && method === 'GET') {
      const op = state.operations.get(operation[3]!);
      if (!op) return named('Operations_Get', armError(404, 'NotFound', `The operation ${operation[3]} was not found.`));
      return named('Operations_Get', {
        status: 200, body: { name: op.id, status: op.status, startTime: op.startTime, ...(op.status === 'InProgress' ? {} : { endTime: new Date().toISOString() }) },
        ...(op.status === 'InProgress' ? { headers: { 'retry-after': retryAfter } } : {}),
      });
    }
    const inGroup = /^\/resourceGroups\/([^/]+)\/providers\/(Microsoft\.\w+)\/(\w+)\/([^/]+)(?:\/(\w+)(?:\/([^/]+))?)?$/i.exec(rest);
    if (!inGroup) return named('Unknown', armError(404, 'InvalidResourceType', `No route for ${method} ${rest}`));
    const [, group, namespace, type, name, sub, subName] = inGroup as unknown as string[];
    const kind = `${namespace}/${type}`.toLowerCase();
    if (group!.toLowerCase() !== resourceGroup.toLowerCase()) return named(`${type}_${method}`, armError(404, 'ResourceGroupNotFound', `Resource group '${group}' could not be found.`));
    const notFound = (what: string, n: string): Answer => armError(404, 'ResourceNotFound', `The Resource '${what}/${n}' under resource group '${group}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`);

    if (kind === 'microsoft.dbforpostgresql/flexibleservers') {
      if (sub === undefined && method === 'PUT') check('postgresql', 'Server', body, 'request', `PUT flexibleServers/${name}`);
      if (sub === undefined && method === 'PATCH') check('postgresql', 'ServerForPatch', body, 'request', `PATCH flexibleServers/${name}`);
      return postgresRoute(postgres, method, name!, sub, body);
    }

    if (kind === 'microsoft.compute/virtualmachines') {
      const vm = state.vms.get(name!.toLowerCase());
      if (sub === undefined) {
        if (method === 'GET') {
          if (!vm) return named('VirtualMachines_Get', notFound('Microsoft.Compute/virtualMachines', name!));
          return named('VirtualMachines_Get', { status: 200, body: vmBody(vm, query.get('$expand') === 'instanceView'), model: ['compute', 'VirtualMachine'] });
        }
        if (method === 'PUT') {
          check('compute', 'VirtualMachine', body, 'request', `PUT virtualMachines/${name}`);
          if (vm) return named('VirtualMachines_CreateOrUpdate', { status: 200, body: vmBody(vm, false), model: ['compute', 'VirtualMachine'] });
          return named('VirtualMachines_CreateOrUpdate', createVm(name!, body as WireVm, apiVersion));
        }
        if (method === 'PATCH') {
          check('compute', 'VirtualMachineUpdate', body, 'request', `PATCH virtualMachines/${name}`);
          if (!vm) return named('VirtualMachines_Update', notFound('Microsoft.Compute/virtualMachines', name!));
          const size = String(((body as { properties?: { hardwareProfile?: { vmSize?: string } } }).properties?.hardwareProfile?.vmSize) ?? vm.size);
          const sku = VM_SKUS.find((s) => s.name === size);
          if (!sku || !(sku.locations as readonly string[]).includes(vm.location)) return named('VirtualMachines_Update', armError(409, 'SkuNotAvailable', `The requested size ${size} is not available in location '${vm.location}'.`));
          vm.provisioningState = 'Updating';
          const op = state.operation(vm.location, () => {
            vm.size = size;
            vm.provisioningState = 'Succeeded';
          });
          return named('VirtualMachines_Update', { status: 200, body: vmBody(vm, false), headers: asyncHeaders(op, apiVersion), model: ['compute', 'VirtualMachine'] });
        }
        if (method === 'DELETE') {
          if (!vm) return named('VirtualMachines_Delete', { status: 204 });
          vm.provisioningState = 'Deleting';
          const op = state.operation(vm.location, () => state.vms.delete(name!.toLowerCase()));
          return named('VirtualMachines_Delete', { status: 202, headers: { ...asyncHeaders(op, apiVersion), location: `${url}/subscriptions/${subscriptionId}/providers/Microsoft.Compute/locations/${vm.location}/operations/${op.id}?monitor=true&api-version=${apiVersion}` } });
        }
      }
      if (method === 'POST' && sub !== undefined && ['start', 'deallocate', 'restart', 'poweroff'].includes(sub.toLowerCase())) {
        const action = sub.toLowerCase();
        const operationId = `VirtualMachines_${action === 'poweroff' ? 'PowerOff' : action[0]!.toUpperCase() + action.slice(1)}`;
        if (!vm) return named(operationId, notFound('Microsoft.Compute/virtualMachines', name!));
        if (vm.provisioningState !== 'Succeeded') return named(operationId, armError(409, 'OperationNotAllowed', `Operation '${action}' is not allowed on VM '${name}' since the VM is ${vm.provisioningState.toLowerCase()}.`));
        const [during, after] = ({ start: ['starting', 'running'], deallocate: ['deallocating', 'deallocated'], restart: ['starting', 'running'], poweroff: ['stopping', 'stopped'] } as const)[action as 'start'];
        vm.power = during;
        const op = state.operation(vm.location, () => { vm.power = after; });
        return named(operationId, { status: 202, headers: asyncHeaders(op, apiVersion) });
      }
    }
    if (kind === 'microsoft.network/virtualnetworks') {
      const vnet = state.networks.get(name!);
      if (sub === undefined && method === 'GET') {
        if (!vnet) return named('VirtualNetworks_Get', notFound('Microsoft.Network/virtualNetworks', name!));
        return named('VirtualNetworks_Get', { status: 200, body: vnetBody(vnet), model: ['network', 'VirtualNetwork'] });
      }
      if (sub === undefined && method === 'PUT') {
        check('network', 'VirtualNetwork', body, 'request', `PUT virtualNetworks/${name}`);
        const b = body as { location: string; tags?: Record<string, string>; properties: { addressSpace: { addressPrefixes: string[] }; subnets: Array<{ name: string; properties: { addressPrefix: string } }> } };
        const made = { name: name!, location: b.location, tags: b.tags ?? {}, addressPrefixes: b.properties.addressSpace.addressPrefixes, subnets: b.properties.subnets.map((s) => ({ name: s.name, addressPrefix: s.properties.addressPrefix })) };
        const existed = state.networks.has(name!);
        state.networks.set(name!, made);
        return named('VirtualNetworks_CreateOrUpdate', { status: existed ? 200 : 201, body: vnetBody(made), model: ['network', 'VirtualNetwork'] });
      }
      if (sub?.toLowerCase() === 'subnets' && method === 'GET') {
        const subnet = vnet?.subnets.find((s) => s.name === subName);
        if (!vnet || !subnet) return named('Subnets_Get', notFound('Microsoft.Network/virtualNetworks/subnets', `${name}/${subName}`));
        return named('Subnets_Get', { status: 200, body: subnetBody(name!, subnet), model: ['network', 'Subnet'] });
      }
    }
    if (kind === 'microsoft.network/networkinterfaces' && method === 'GET' && sub === undefined) {
      const vm = [...state.vms.values()].find((v) => v.nicName === name && v.provisioningState !== 'Creating');
      if (!vm) return named('NetworkInterfaces_Get', notFound('Microsoft.Network/networkInterfaces', name!));
      return named('NetworkInterfaces_Get', {
        status: 200, model: ['network', 'NetworkInterface'],
        body: { id: nicId(name!), name, type: 'Microsoft.Network/networkInterfaces', location: vm.location, properties: { provisioningState: 'Succeeded', virtualMachine: { id: vmId(vm.name) }, ipConfigurations: [{ id: `${nicId(name!)}/ipConfigurations/primary`, name: 'primary', properties: { primary: true, privateIPAddress: '10.40.0.4', privateIPAllocationMethod: 'Dynamic', subnet: { id: `${vnetId(`cairn-${vm.location}`)}/subnets/servers` }, publicIPAddress: { id: ipId(vm.publicIpName) }, provisioningState: 'Succeeded' } }] } },
      });
    }
    if (kind === 'microsoft.network/publicipaddresses' && method === 'GET' && sub === undefined) {
      const vm = [...state.vms.values()].find((v) => v.publicIpName === name && v.provisioningState !== 'Creating');
      if (!vm) return named('PublicIPAddresses_Get', notFound('Microsoft.Network/publicIPAddresses', name!));
      return named('PublicIPAddresses_Get', { status: 200, model: ['network', 'PublicIPAddress'], body: { id: ipId(name!), name, type: 'Microsoft.Network/publicIPAddresses', location: vm.location, sku: { name: 'Standard', tier: 'Regional' }, properties: { provisioningState: 'Succeeded', ipAddress: vm.publicIp, publicIPAddressVersion: 'IPv4', publicIPAllocationMethod: 'Static', deleteOption: 'Delete' } } });
    }
    return named('Unknown', armError(405, 'MethodNotAllowed', `The double has no ${method} on ${rest}`));
  }

  function vnetBody(vnet: { name: string; location: string; tags: Record<string, string>; addressPrefixes: string[]; subnets: Array<{ name: string; addressPrefix: string }> }): unknown {
    return { id: vnetId(vnet.name), name: vnet.name, type: 'Microsoft.Network/virtualNetworks', location: vnet.location, tags: vnet.tags, properties: { provisioningState: 'Succeeded', addressSpace: { addressPrefixes: vnet.addressPrefixes }, subnets: vnet.subnets.map((s) => subnetBody(vnet.name, s)) } };
  }

  function subnetBody(vnet: string, subnet: { name: string; addressPrefix: string }): unknown {
    return { id: `${vnetId(vnet)}/subnets/${subnet.name}`, name: subnet.name, type: 'Microsoft.Network/virtualNetworks/subnets', properties: { addressPrefix: subnet.addressPrefix, provisioningState: 'Succeeded' } };
  }

  function check(pkg: keyof typeof validators, className: string, body: unknown, direction: Direction, where: string): void {
    violations.push(...validators[pkg].validate(className, body, direction, `${direction} ${where}`));
  }

  /** Entra: the tenant's OpenID metadata and its token endpoint (client credentials). */
  function identity(method: string, path: string, form: URLSearchParams): Answer | undefined {
    const metadata = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(path);
    if (metadata && method === 'GET') {
      const t = metadata[1];
      return { status: 200, body: { token_endpoint: `${url}/${t}/oauth2/v2.0/token`, issuer: `${url}/${t}/v2.0`, authorization_endpoint: `${url}/${t}/oauth2/v2.0/authorize`, jwks_uri: `${url}/${t}/discovery/v2.0/keys`, end_session_endpoint: `${url}/${t}/oauth2/v2.0/logout`, response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'], subject_types_supported: ['pairwise'], id_token_signing_alg_values_supported: ['RS256'], scopes_supported: ['openid', 'profile', 'email', 'offline_access'], token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'] } };
    }
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (!token || method !== 'POST') return undefined;
    tokenRequests++;
    const aad = (status: number, error: string, code: number, description: string): Answer => ({ status, body: { error, error_description: `AADSTS${code}: ${description} Trace ID: ${randomUUID()} Correlation ID: ${randomUUID()} Timestamp: ${new Date().toISOString()}`, error_codes: [code], timestamp: new Date().toISOString(), trace_id: randomUUID(), correlation_id: randomUUID() } });
    if (form.get('grant_type') !== 'client_credentials') return aad(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
    if (token[1] !== tenantId) return aad(400, 'invalid_request', 90002, `Tenant '${token[1]}' not found.`);
    if (form.get('client_id') !== clientId) return aad(400, 'unauthorized_client', 700016, `Application with identifier '${form.get('client_id')}' was not found in the directory.`);
    if (form.get('client_secret') !== options.clientSecret) return aad(401, 'invalid_client', 7000215, 'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.');
    if (!form.get('scope')?.endsWith('/.default')) violations.push(`token request: scope ${form.get('scope')} is not a resource's /.default`);
    const accessToken = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ tid: tenantId, appid: clientId, n: randomUUID() })).toString('base64url')}.c2ln`;
    tokens.add(accessToken);
    return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: accessToken } };
  }

  function throttled(write: boolean): { answer?: Answer; headers: Record<string, string> } {
    const limit = options.rateLimit;
    const kind = write ? 'writes' : 'reads';
    if (!limit) return { headers: { [`x-ms-ratelimit-remaining-subscription-${kind}`]: '11999' } };
    const now = Date.now();
    while (window.length > 0 && window[0]! <= now - limit.windowMs) window.shift();
    if (window.length >= limit.limit) {
      const wait = Math.max(1, Math.ceil((window[0]! + limit.windowMs - now) / 1000));
      return { answer: armError(429, 'TooManyRequests', `The request is being throttled as the limit has been reached for operation type - ${write ? 'Write' : 'Read'}. For more information, see - https://aka.ms/throttling`, { 'retry-after': String(wait), [`x-ms-ratelimit-remaining-subscription-${kind}`]: '0' }), headers: {} };
    }
    window.push(now);
    return { headers: { [`x-ms-ratelimit-remaining-subscription-${kind}`]: String(limit.limit - window.length) } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url ?? '/', url);
    const method = req.method ?? 'GET';
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    const send = (answer: Answer): void => {
      const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, { ...(body === '' ? {} : { 'content-type': 'application/json; charset=utf-8' }), 'x-ms-request-id': randomUUID(), ...answer.headers });
      res.end(body);
    };
    const signIn = identity(method, parsed.pathname, new URLSearchParams(text));
    if (signIn) {
      send(signIn);
      return;
    }
    const match = API.exec(parsed.pathname);
    if (!match) {
      violations.push(`${method} ${parsed.pathname}: not an Azure path`);
      send({ status: 404, body: { error: { code: 'NotFound', message: 'no such path' } } });
      return;
    }
    const record = (operationId: string, status: number): void => {
      calls.push({ method, path: `${parsed.pathname}${parsed.search}`, operationId, status });
    };
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice('Bearer '.length))) {
      record('Unauthenticated', 401);
      send(armError(401, auth === '' ? 'AuthenticationFailed' : 'InvalidAuthenticationToken', auth === '' ? "Authentication failed. The 'Authorization' header is missing." : 'The access token is invalid.'));
      return;
    }
    if (match[1] !== subscriptionId) {
      record('Subscriptions_Unknown', 404);
      send(armError(404, 'SubscriptionNotFound', `The subscription '${match[1]}' could not be found.`));
      return;
    }
    if (!parsed.searchParams.get('api-version')) violations.push(`${method} ${parsed.pathname}: no api-version`);
    const write = method !== 'GET';
    const limited = throttled(write);
    if (limited.answer) {
      record('Throttled', 429);
      send(limited.answer);
      return;
    }
    if (faultRatio > 0 && random() < faultRatio) {
      record('Fault', 500);
      send(armError(500, 'InternalServerError', 'An internal server error occurred. Please retry later.', limited.headers));
      return;
    }
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        violations.push(`${method} ${parsed.pathname}: the body is not JSON`);
      }
    }
    state.settle();
    const answer = arm(method, match[2] ?? '', parsed.searchParams, body);
    if (answer.operationId === 'Unknown') violations.push(`${method} ${parsed.pathname}: not a route of the double`);
    if (answer.model && answer.body !== undefined) check(answer.model[0], answer.model[1], answer.body, 'answer', `${method} ${parsed.pathname}`);
    record(answer.operationId, answer.status);
    if (options.slowAnswers?.operationIds.includes(answer.operationId)) await new Promise((r) => setTimeout(r, options.slowAnswers!.ms));
    send({ ...answer, headers: { ...limited.headers, ...answer.headers } });
  }

  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`the double failed: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    ca: pems.cert,
    calls,
    get tokenRequests() {
      return tokenRequests;
    },
    violations,
    vms: () => [...state.vms.values()],
    postgresServers: () => [...postgresServers.values()],
    networks: () => [...state.networks.keys()],
    parts: () => [...state.vms.values()].flatMap((vm) => [vm.nicName, vm.publicIpName, vm.osDiskName]),
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    check: (pkg, className, body, direction) => validators[pkg].validate(className, body, direction, 'check'),
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
