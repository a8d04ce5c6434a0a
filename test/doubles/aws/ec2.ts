/**
 * @module The EC2 half of the AWS double: a stateful account with regions (one not opted in),
 * zones, instance types offered per region, public images, and instances that move through
 * `pending → running`, `stopping → stopped`, `shutting-down → terminated` over `actionMs`.
 * RunInstances is idempotent by `ClientToken` as EC2 is (the same token returns the first
 * reservation); lists page by `MaxResults`/`NextToken` at a small page size; errors carry EC2's
 * own codes (InvalidInstanceID.NotFound, IncorrectInstanceState, InvalidParameterValue, …).
 * The decoded user data of every instance is kept so a test can check it arrived intact.
 */
import { randomBytes } from 'node:crypto';
import type { Wire } from '../../support/botocore-validator.js';

export class Ec2Error extends Error {
  constructor(readonly code: string, message: string, readonly status = 400) {
    super(message);
  }
}

export interface DoubleInstance {
  id: string;
  reservationId: string;
  clientToken: string;
  region: string;
  zone: string;
  type: string;
  imageId: string;
  state: 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';
  /** When the current transition ends, and into which state. */
  settles?: { at: number; into: DoubleInstance['state'] };
  tags: Record<string, string>;
  userData: string | null;
  launchTime: string;
  ip: string;
}

const STATE_CODE: Record<DoubleInstance['state'], number> = { pending: 0, running: 16, 'shutting-down': 32, terminated: 48, stopping: 64, stopped: 80 };

export const REGIONS: ReadonlyArray<{ name: string; optIn: string }> = [
  { name: 'eu-west-1', optIn: 'opt-in-not-required' },
  { name: 'eu-central-1', optIn: 'opt-in-not-required' },
  { name: 'us-east-1', optIn: 'opt-in-not-required' },
  { name: 'us-west-2', optIn: 'opt-in-not-required' },
  { name: 'ap-northeast-1', optIn: 'opt-in-not-required' },
  { name: 'eu-south-1', optIn: 'not-opted-in' },
];

export const INSTANCE_TYPES: ReadonlyArray<{ type: string; vcpus: number; memoryMiB: number; storageGb?: number; regions: readonly string[] }> = [
  { type: 't3.nano', vcpus: 2, memoryMiB: 512, regions: ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-1'] },
  { type: 't3.micro', vcpus: 2, memoryMiB: 1024, regions: ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-1'] },
  { type: 't3.small', vcpus: 2, memoryMiB: 2048, regions: ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-1'] },
  { type: 't3.medium', vcpus: 2, memoryMiB: 4096, regions: ['eu-west-1', 'eu-central-1', 'us-east-1'] },
  { type: 'm5.large', vcpus: 2, memoryMiB: 8192, regions: ['eu-west-1', 'us-east-1'] },
  { type: 'c5d.large', vcpus: 2, memoryMiB: 4096, storageGb: 50, regions: ['us-east-1'] },
  { type: 'c5.xlarge', vcpus: 4, memoryMiB: 8192, regions: ['eu-west-1', 'eu-central-1', 'us-east-1'] },
];

export const IMAGES: ReadonlyArray<{ id: string; name: string; created: string }> = [
  { id: 'ami-0a1b2c3d4e5f60718', name: 'debian-12-amd64-20240507-1740', created: '2024-05-07T17:40:00.000Z' },
  { id: 'ami-0f9e8d7c6b5a40312', name: 'debian-12-amd64-20240717-1811', created: '2024-07-17T18:11:00.000Z' },
  { id: 'ami-01234abcd5678ef90', name: 'ubuntu-24.04-amd64-server-20240701', created: '2024-07-01T00:00:00.000Z' },
  { id: 'ami-0abcdef0123456789', name: 'debian-11-amd64-20240507-1740', created: '2024-05-07T17:40:00.000Z' },
];

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** EC2's filter values take `*` and `?` wildcards. */
function matches(pattern: string, value: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(value);
}

/** A string parameter of the parsed input (the validator has checked its type), or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

type Filters = Array<{ Name?: string; Values?: string[] }>;

function filterValues(filters: unknown, name: string): string[] | undefined {
  const found = ((filters ?? []) as Filters).find((f) => f.Name === name);
  return found ? (found.Values ?? []) : undefined;
}

/** One page of `items` from `NextToken`, at most `min(MaxResults, pageSize)` long. */
function page<T>(items: T[], input: Wire, pageSize: number): { items: T[]; next?: string } {
  const token = text(input['NextToken']);
  const start = token === undefined ? 0 : Number(token.replace(/^page-/, ''));
  if (!Number.isInteger(start) || start < 0 || start > items.length) throw new Ec2Error('InvalidParameterValue', `The token '${token ?? ''}' is invalid.`);
  const size = Math.min(typeof input['MaxResults'] === 'number' ? input['MaxResults'] : 1000, pageSize);
  const end = start + size;
  return end < items.length ? { items: items.slice(start, end), next: `page-${end}` } : { items: items.slice(start) };
}

export interface Ec2Options {
  actionMs: number;
  pageSize: number;
}

export class Ec2Account {
  readonly instances: DoubleInstance[] = [];
  private ipCounter = 10;

  constructor(private readonly options: Ec2Options) {}

  /** Moves instances whose transition has ended into its end state. */
  private settle(): void {
    const now = Date.now();
    for (const i of this.instances) {
      if (i.settles && i.settles.at <= now) {
        i.state = i.settles.into;
        delete i.settles;
      }
    }
  }

  private begin(instance: DoubleInstance, now: DoubleInstance['state'], into: DoubleInstance['state']): void {
    instance.state = now;
    instance.settles = { at: Date.now() + this.options.actionMs, into };
  }

  private find(id: string, region: string): DoubleInstance {
    if (!/^i-[0-9a-f]{8,17}$/.test(id)) throw new Ec2Error('InvalidInstanceID.Malformed', `Invalid id: "${id}"`);
    const found = this.instances.find((i) => i.id === id && i.region === region);
    if (!found) throw new Ec2Error('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    return found;
  }

  private wireInstance(i: DoubleInstance): Wire {
    const state = { Code: STATE_CODE[i.state], Name: i.state };
    return {
      InstanceId: i.id, ImageId: i.imageId, InstanceType: i.type, ClientToken: i.clientToken, LaunchTime: i.launchTime, State: state,
      Placement: { AvailabilityZone: i.zone, Tenancy: 'default' }, Architecture: 'x86_64', Hypervisor: 'xen', VirtualizationType: 'hvm', RootDeviceType: 'ebs',
      ...(i.state === 'running' ? { PublicIpAddress: `203.0.113.${i.ip}`, PrivateIpAddress: `172.31.0.${i.ip}` } : {}),
      Tags: Object.entries(i.tags).map(([Key, Value]) => ({ Key, Value })),
    };
  }

  private reservation(list: DoubleInstance[]): Wire {
    return { ReservationId: list[0]!.reservationId, OwnerId: '123456789012', Groups: [], Instances: list.map((i) => this.wireInstance(i)) };
  }

  private stateChange(i: DoubleInstance, previous: DoubleInstance['state']): Wire {
    return { InstanceId: i.id, CurrentState: { Code: STATE_CODE[i.state], Name: i.state }, PreviousState: { Code: STATE_CODE[previous], Name: previous } };
  }

  private offered(region: string): void {
    const known = REGIONS.find((r) => r.name === region);
    if (!known || known.optIn === 'not-opted-in') throw new Ec2Error('AuthFailure', `AWS was not able to validate the provided access credentials`, 401);
  }

  /** The handlers by Action, for a request signed for `region`. */
  handle(action: string, input: Wire, region: string): Wire {
    this.settle();
    this.offered(region);
    switch (action) {
      case 'DescribeRegions': {
        const all = input['AllRegions'] === true;
        return { Regions: REGIONS.filter((r) => all || r.optIn !== 'not-opted-in').map((r) => ({ RegionName: r.name, Endpoint: `ec2.${r.name}.amazonaws.com`, OptInStatus: r.optIn })) };
      }
      case 'DescribeAvailabilityZones':
        return { AvailabilityZones: ['a', 'b', 'c'].map((z, n) => ({ ZoneName: `${region}${z}`, ZoneId: `${region.slice(0, 2)}${n + 1}-az${n + 1}`, RegionName: region, State: 'available', OptInStatus: 'opt-in-not-required', ZoneType: 'availability-zone' })) };
      case 'DescribeInstanceTypes': {
        const wanted = input['InstanceTypes'] as string[] | undefined;
        const types = INSTANCE_TYPES.filter((t) => t.regions.includes(region) && (!wanted || wanted.includes(t.type)));
        const { items, next } = page(types, input, this.options.pageSize);
        return {
          InstanceTypes: items.map((t) => ({
            InstanceType: t.type, CurrentGeneration: true, VCpuInfo: { DefaultVCpus: t.vcpus }, MemoryInfo: { SizeInMiB: t.memoryMiB },
            InstanceStorageSupported: t.storageGb !== undefined, ...(t.storageGb !== undefined ? { InstanceStorageInfo: { TotalSizeInGB: t.storageGb } } : {}),
          })),
          ...(next ? { NextToken: next } : {}),
        };
      }
      case 'DescribeInstanceTypeOfferings': {
        if (input['LocationType'] !== undefined && input['LocationType'] !== 'region') throw new Ec2Error('InvalidParameterValue', 'The double offers LocationType region only');
        const { items, next } = page(INSTANCE_TYPES.filter((t) => t.regions.includes(region)), input, this.options.pageSize);
        return { InstanceTypeOfferings: items.map((t) => ({ InstanceType: t.type, LocationType: 'region', Location: region })), ...(next ? { NextToken: next } : {}) };
      }
      case 'DescribeImages': {
        const ids = input['ImageIds'] as string[] | undefined;
        const names = filterValues(input['Filters'], 'name');
        const images = IMAGES.filter((im) => (!ids || ids.includes(im.id)) && (!names || names.some((n) => matches(n, im.name))));
        if (ids && images.length < ids.length) throw new Ec2Error('InvalidAMIID.NotFound', `The image id '[${ids.join(', ')}]' does not exist`);
        return { Images: images.map((im) => ({ ImageId: im.id, Name: im.name, CreationDate: im.created, State: 'available', Public: true, ImageOwnerAlias: 'amazon', Architecture: 'x86_64', RootDeviceType: 'ebs', VirtualizationType: 'hvm' })) };
      }
      case 'DescribeInstances': {
        const ids = input['InstanceIds'] as string[] | undefined;
        if (ids && input['MaxResults'] !== undefined) throw new Ec2Error('InvalidParameterCombination', 'The parameter instancesSet cannot be used with the parameter maxResults');
        if (input['MaxResults'] !== undefined && ((input['MaxResults'] as number) < 5 || (input['MaxResults'] as number) > 1000)) throw new Ec2Error('InvalidParameterValue', 'Value for parameter maxResults is invalid. Expecting a value between 5 and 1000.');
        const chosen = ids ? ids.map((id) => this.find(id, region)) : this.instances.filter((i) => i.region === region);
        const filters = (input['Filters'] ?? []) as Filters;
        const kept = chosen.filter((i) => filters.every((f) => {
          const values = f.Values ?? [];
          if (f.Name?.startsWith('tag:')) return values.some((v) => i.tags[f.Name!.slice(4)] !== undefined && matches(v, i.tags[f.Name!.slice(4)]!));
          if (f.Name === 'instance-state-name') return values.includes(i.state);
          if (f.Name === 'client-token') return values.includes(i.clientToken);
          throw new Ec2Error('InvalidParameterValue', `The filter '${f.Name ?? ''}' is invalid`);
        }));
        const { items, next } = ids ? { items: kept, next: undefined } : page(kept, input, this.options.pageSize);
        return { Reservations: items.map((i) => this.reservation([i])), ...(next ? { NextToken: next } : {}) };
      }
      case 'RunInstances':
        return this.run(input, region);
      case 'StopInstances':
        return { StoppingInstances: (input['InstanceIds'] as string[]).map((id) => this.transition(id, region, ['running', 'stopping', 'stopped'], 'stopping', 'stopped')) };
      case 'StartInstances':
        return { StartingInstances: (input['InstanceIds'] as string[]).map((id) => this.transition(id, region, ['stopped', 'pending', 'running'], 'pending', 'running')) };
      case 'RebootInstances':
        for (const id of input['InstanceIds'] as string[]) {
          const i = this.find(id, region);
          if (i.state !== 'running') throw new Ec2Error('IncorrectInstanceState', `The instance '${id}' is not in a state from which it can be rebooted.`);
        }
        return {};
      case 'TerminateInstances':
        return { TerminatingInstances: (input['InstanceIds'] as string[]).map((id) => {
          const i = this.find(id, region);
          const previous = i.state;
          if (i.state !== 'terminated' && i.state !== 'shutting-down') this.begin(i, 'shutting-down', 'terminated');
          return this.stateChange(i, previous);
        }) };
      case 'ModifyInstanceAttribute': {
        const i = this.find(text(input['InstanceId']) ?? '', region);
        const type = (input['InstanceType'] as { Value?: string } | undefined)?.Value;
        if (type === undefined) throw new Ec2Error('InvalidParameterCombination', 'The double changes InstanceType only');
        if (i.state !== 'stopped') throw new Ec2Error('IncorrectInstanceState', `The instance '${i.id}' is not in the 'stopped' state.`);
        if (!INSTANCE_TYPES.some((t) => t.type === type && t.regions.includes(region))) throw new Ec2Error('InvalidParameterValue', `Value (${type}) for parameter instanceType is invalid.`);
        i.type = type;
        return {};
      }
      default:
        throw new Ec2Error('InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  private transition(id: string, region: string, allowed: DoubleInstance['state'][], now: DoubleInstance['state'], into: DoubleInstance['state']): Wire {
    const i = this.find(id, region);
    const previous = i.state;
    if (!allowed.includes(i.state)) throw new Ec2Error('IncorrectInstanceState', `The instance '${id}' is not in a state from which it can be ${into === 'stopped' ? 'stopped' : 'started'}.`);
    if (i.state === allowed[0]) this.begin(i, now, into);
    return this.stateChange(i, previous);
  }

  private run(input: Wire, region: string): Wire {
    const token = typeof input['ClientToken'] === 'string' ? input['ClientToken'] : '';
    if (token !== '') {
      const earlier = this.instances.filter((i) => i.clientToken === token && i.region === region);
      if (earlier.length > 0) {
        if (earlier[0]!.type !== input['InstanceType'] || earlier[0]!.imageId !== input['ImageId']) {
          throw new Ec2Error('IdempotentParameterMismatch', `The client token '${token}' was used with different parameters.`);
        }
        return this.reservation(earlier);
      }
    }
    if (input['MinCount'] !== 1 || input['MaxCount'] !== 1) throw new Ec2Error('InvalidParameterValue', 'The double launches one instance at a time');
    const type = text(input['InstanceType']) ?? 'm1.small';
    if (!INSTANCE_TYPES.some((t) => t.type === type && t.regions.includes(region))) throw new Ec2Error('Unsupported', `The requested configuration is currently not supported. Please check the documentation for supported configurations.`);
    const imageId = text(input['ImageId']) ?? '';
    if (!IMAGES.some((im) => im.id === imageId)) throw new Ec2Error('InvalidAMIID.NotFound', `The image id '[${imageId}]' does not exist`);
    const tags: Record<string, string> = {};
    for (const spec of (input['TagSpecifications'] ?? []) as Array<{ ResourceType?: string; Tags?: Array<{ Key?: string; Value?: string }> }>) {
      if (spec.ResourceType === 'instance') for (const t of spec.Tags ?? []) tags[t.Key ?? ''] = t.Value ?? '';
    }
    const userData = typeof input['UserData'] === 'string' ? Buffer.from(input['UserData'], 'base64').toString('utf8') : null;
    const zone = (input['Placement'] as { AvailabilityZone?: string } | undefined)?.AvailabilityZone ?? `${region}a`;
    if (!zone.startsWith(region)) throw new Ec2Error('InvalidParameterValue', `Invalid availability zone: [${zone}]`);
    const instance: DoubleInstance = {
      id: `i-0${hex(8)}`, reservationId: `r-0${hex(8)}`, clientToken: token, region, zone, type, imageId, state: 'pending',
      tags, userData, launchTime: new Date().toISOString(), ip: String(this.ipCounter++ % 250),
    };
    this.instances.push(instance);
    this.begin(instance, 'pending', 'running');
    return this.reservation([instance]);
  }

  /** The instances not terminated nor shutting down, for the tests. */
  live(): DoubleInstance[] {
    this.settle();
    return this.instances.filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
  }
}
