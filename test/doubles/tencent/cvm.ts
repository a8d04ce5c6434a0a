/**
 * @module The state and actions of a Tencent Cloud CVM double (API 2017-03-12): regions and
 * their zones, the instance types each zone sells (hourly prices, one sold out), public images,
 * and instances — RunInstances (a `ClientToken` seen before answers the same instances, tags
 * from TagSpecification, UserData decoded from base64 and kept), PENDING → RUNNING after
 * `actionMs`, Start/Stop/RebootInstances through STARTING/STOPPING/REBOOTING, ResetInstancesType
 * on a STOPPED instance only (LatestOperationState OPERATING, then SUCCESS), TerminateInstances
 * (TERMINATING, then gone). DescribeInstances filters by `tag:<key>`, `zone`, `instance-name`
 * and `instance-id`, and every Describe list pages by Offset/Limit at most `pageSize` a page.
 * Instances live in a region: each action sees only those of its `X-TC-Region`.
 */
import { randomBytes } from 'node:crypto';
import { TencentFault, type TencentHandler } from './server.js';

/** Regions: id, name, state, zones (id, name, state). */
const REGIONS: Array<[string, string, string, Array<[string, string, string]>]> = [
  ['ap-guangzhou', 'South China (Guangzhou)', 'AVAILABLE', [['ap-guangzhou-3', 'Guangzhou Zone 3', 'AVAILABLE'], ['ap-guangzhou-4', 'Guangzhou Zone 4', 'AVAILABLE'], ['ap-guangzhou-2', 'Guangzhou Zone 2', 'UNAVAILABLE']]],
  ['ap-singapore', 'Southeast Asia (Singapore)', 'AVAILABLE', [['ap-singapore-1', 'Singapore Zone 1', 'AVAILABLE'], ['ap-singapore-2', 'Singapore Zone 2', 'AVAILABLE']]],
  ['eu-frankfurt', 'Europe (Frankfurt)', 'AVAILABLE', [['eu-frankfurt-1', 'Frankfurt Zone 1', 'AVAILABLE']]],
  ['ap-mumbai', 'South Asia Pacific (Mumbai)', 'UNAVAILABLE', [['ap-mumbai-1', 'Mumbai Zone 1', 'AVAILABLE']]],
];

/** Instance types: type, family, vCPUs, memory GB, hourly price, the zones that sell it (and where it is sold out). */
const TYPES: Array<[string, string, number, number, number, string[], string[]]> = [
  ['S5.SMALL1', 'S5', 1, 1, 0.02, ['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-singapore-1', 'ap-singapore-2', 'eu-frankfurt-1'], []],
  ['S5.SMALL2', 'S5', 1, 2, 0.04, ['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-singapore-1', 'ap-singapore-2', 'eu-frankfurt-1'], []],
  ['S5.MEDIUM4', 'S5', 2, 4, 0.08, ['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-singapore-1', 'eu-frankfurt-1'], []],
  ['S5.LARGE8', 'S5', 4, 8, 0.16, ['ap-guangzhou-3', 'ap-singapore-1', 'eu-frankfurt-1'], ['ap-singapore-2']],
  ['SA2.MEDIUM4', 'SA2', 2, 4, 0.07, ['ap-guangzhou-3', 'eu-frankfurt-1'], []],
];

/** Public images in every region: id, OS name, platform. */
const IMAGES: Array<[string, string, string]> = [
  ['img-487zeit5', 'Debian 12.4 64bit', 'Debian'], ['img-6pb6lrmy', 'Debian 11.7 64bit', 'Debian'], ['img-22trbn9x', 'Ubuntu Server 22.04 LTS 64bit', 'Ubuntu'],
  ['img-mmytdhbn', 'Ubuntu Server 24.04 LTS 64bit', 'Ubuntu'], ['img-eb30mz89', 'TencentOS Server 3.1 (TK4)', 'TencentOS'], ['img-l8og963d', 'CentOS 7.9 64bit', 'CentOS'],
];

type State = 'PENDING' | 'RUNNING' | 'STOPPED' | 'STARTING' | 'STOPPING' | 'REBOOTING' | 'TERMINATING';

export interface CvmInstance {
  id: string;
  region: string;
  zone: string;
  name: string;
  type: string;
  imageId: string;
  tags: Record<string, string>;
  state: State;
  /** What the state (or type) becomes at `at`, or nothing under way. */
  next: { state: State | 'GONE'; type?: string; at: number } | null;
  operation: { name: string; state: 'OPERATING' | 'SUCCESS'; requestId: string } | null;
  /** The cloud-init user data it was created with, decoded from base64. */
  userData: string | null;
  ip: string;
  created: string;
}

export interface CvmDoubleOptions {
  actionMs: number;
  pageSize: number;
}

type Json = Record<string, unknown>;

const zoneIn = (region: string, zone: string): boolean => REGIONS.some(([r, , state, zones]) => r === region && state === 'AVAILABLE' && zones.some(([z, , s]) => z === zone && s === 'AVAILABLE'));
const sells = (type: string, zone: string): boolean => TYPES.some(([t, , , , , zones]) => t === type && zones.includes(zone));

function page<T>(items: T[], params: Json, pageSize: number): T[] {
  const offset = Number(params['Offset'] ?? 0);
  const limit = Number(params['Limit'] ?? 20);
  if (!Number.isInteger(offset) || offset < 0) throw new TencentFault('InvalidParameterValue.Offset', 'Offset must be a non-negative integer.');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new TencentFault('InvalidParameterValue.Limit', 'Limit must be between 1 and 100.');
  return items.slice(offset, offset + Math.min(limit, pageSize));
}

function filtersOf(params: Json): Array<{ Name: string; Values: string[] }> {
  return (params['Filters'] as Array<{ Name: string; Values: string[] }> | undefined) ?? [];
}

export class CvmState {
  private readonly instances = new Map<string, CvmInstance>();
  /** ClientToken → the instances its RunInstances made. */
  private readonly tokens = new Map<string, string[]>();
  private serial = 1;

  constructor(private readonly options: CvmDoubleOptions) {}

  /** Every instance, its pending changes applied when due. */
  all(): CvmInstance[] {
    const now = Date.now();
    for (const instance of [...this.instances.values()]) {
      const next = instance.next;
      if (!next || next.at > now) continue;
      if (next.state === 'GONE') {
        this.instances.delete(instance.id);
        continue;
      }
      instance.state = next.state;
      if (next.type) instance.type = next.type;
      instance.next = null;
      if (instance.operation) instance.operation.state = 'SUCCESS';
    }
    return [...this.instances.values()];
  }

  private inRegion(region: string, id: string): CvmInstance {
    if (!/^ins-[a-z0-9]{8}$/.test(id)) throw new TencentFault('InvalidInstanceId.Malformed', `The instance id ${id} is malformed.`);
    const instance = this.all().find((i) => i.id === id && i.region === region);
    if (!instance) throw new TencentFault('InvalidInstanceId.NotFound', `The instance ${id} does not exist.`);
    return instance;
  }

  private change(instance: CvmInstance, operation: string, now: State, next: State | 'GONE', type?: string): void {
    instance.state = now;
    instance.next = { state: next, at: Date.now() + this.options.actionMs, ...(type ? { type } : {}) };
    instance.operation = { name: operation, state: 'OPERATING', requestId: randomBytes(8).toString('hex') };
  }

  private expect(instance: CvmInstance, states: State[]): void {
    if (instance.next || !states.includes(instance.state)) {
      const state = instance.state.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
      throw new TencentFault(`UnsupportedOperation.InstanceState${state}`, `The instance ${instance.id} is ${instance.state}${instance.next ? ' with an operation under way' : ''}.`);
    }
  }

  render(i: CvmInstance): Json {
    return {
      Placement: { Zone: i.zone, ProjectId: 0 },
      InstanceId: i.id,
      InstanceType: i.type,
      CPU: TYPES.find(([t]) => t === i.type)?.[2] ?? 1,
      Memory: TYPES.find(([t]) => t === i.type)?.[3] ?? 1,
      RestrictState: 'NORMAL',
      InstanceName: i.name,
      InstanceChargeType: 'POSTPAID_BY_HOUR',
      SystemDisk: { DiskType: 'CLOUD_PREMIUM', DiskId: `disk-${i.id.slice(4)}`, DiskSize: 50 },
      DataDisks: [],
      PrivateIpAddresses: [`10.0.0.${(this.serial % 250) + 2}`],
      PublicIpAddresses: i.state === 'PENDING' ? null : [i.ip],
      InternetAccessible: { InternetChargeType: 'TRAFFIC_POSTPAID_BY_HOUR', InternetMaxBandwidthOut: 10 },
      VirtualPrivateCloud: { VpcId: 'vpc-default1', SubnetId: 'subnet-default1', AsVpcGateway: false },
      ImageId: i.imageId,
      RenewFlag: 'NOTIFY_AND_MANUAL_RENEW',
      CreatedTime: i.created,
      ExpiredTime: '2099-12-31T00:00:00+00:00',
      OsName: IMAGES.find(([id]) => id === i.imageId)?.[1] ?? '',
      SecurityGroupIds: ['sg-default1'],
      LoginSettings: {},
      InstanceState: i.state,
      Tags: Object.entries(i.tags).map(([Key, Value]) => ({ Key, Value })),
      StopChargingMode: 'NOT_APPLICABLE',
      Uuid: `${i.id.slice(4)}-0000-4000-8000-000000000000`,
      LatestOperation: i.operation?.name ?? null,
      LatestOperationState: i.operation?.state ?? null,
      LatestOperationRequestId: i.operation?.requestId ?? null,
      DisasterRecoverGroupId: '',
      IPv6Addresses: null,
      CamRoleName: null,
      HpcClusterId: '',
      RdmaIpAddresses: null,
      DedicatedClusterId: '',
      IsolatedSource: 'NOTISOLATED',
      LicenseType: 'TencentCloud',
      DisableApiTermination: false,
      DefaultLoginUser: 'root',
      DefaultLoginPort: 22,
      LatestOperationErrorMsg: null,
    };
  }

  handlers(): Record<string, TencentHandler> {
    const { pageSize, actionMs } = this.options;
    return {
      DescribeRegions: () => ({ TotalCount: REGIONS.length, RegionSet: REGIONS.map(([Region, RegionName, RegionState]) => ({ Region, RegionName, RegionState })) }),
      DescribeZones: (_params, region) => {
        const found = REGIONS.find(([r]) => r === region);
        if (!found) throw new TencentFault('InvalidParameterValue.Region', `The region ${region} does not exist.`);
        return { TotalCount: found[3].length, ZoneSet: found[3].map(([Zone, ZoneName, ZoneState], i) => ({ Zone, ZoneName, ZoneId: String(100_001 + i), ZoneState })) };
      },
      DescribeZoneInstanceConfigInfos: (params, region) => {
        const zones = REGIONS.find(([r]) => r === region)?.[3].map(([z]) => z) ?? [];
        for (const filter of filtersOf(params)) {
          if (filter.Name !== 'instance-charge-type' && filter.Name !== 'zone' && filter.Name !== 'instance-type') throw new TencentFault('InvalidFilter', `The filter ${filter.Name} is not supported.`);
        }
        const items = TYPES.flatMap(([type, family, cpu, memory, price, selling, soldOut]) => [...selling, ...soldOut].filter((zone) => zones.includes(zone)).map((zone) => ({
          Zone: zone, InstanceType: type, InstanceChargeType: 'POSTPAID_BY_HOUR', NetworkCard: 0, Externals: {}, Cpu: cpu, Memory: memory, InstanceFamily: family,
          TypeName: `Standard ${family}`, LocalDiskTypeList: [], Status: soldOut.includes(zone) ? 'SOLD_OUT' : 'SELL',
          Price: { UnitPrice: price, ChargeUnit: 'HOUR', UnitPriceDiscount: price, Discount: 100 }, SoldOutReason: soldOut.includes(zone) ? 'sold out' : '',
          InstanceBandwidth: 1.5, InstancePps: 30, StorageBlockAmount: 0, CpuType: 'Intel Xeon Cascade Lake 8255C', Gpu: 0, Fpga: 0, Remark: '', GpuCount: 0, Frequency: '2.5/3.1GHz', StatusCategory: soldOut.includes(zone) ? 'WithoutStock' : 'EnoughStock',
        })));
        return { InstanceTypeQuotaSet: items };
      },
      DescribeImages: (params) => {
        for (const filter of filtersOf(params)) if (filter.Name !== 'image-type' && filter.Name !== 'platform') throw new TencentFault('InvalidFilter', `The filter ${filter.Name} is not supported.`);
        const all = IMAGES.map(([ImageId, OsName, Platform]) => ({
          ImageId, OsName, ImageType: 'PUBLIC_IMAGE', CreatedTime: '2024-01-10T08:00:00+00:00', ImageName: OsName, ImageDescription: OsName, ImageSize: 20, Architecture: 'x86_64',
          ImageState: 'NORMAL', Platform, ImageCreator: '', ImageSource: 'OFFICIAL', SyncPercent: null, IsSupportCloudinit: true, SnapshotSet: [], Tags: [], LicenseType: 'TencentCloud',
        }));
        return { ImageSet: page(all, params, pageSize), TotalCount: all.length };
      },
      DescribeInstances: (params, region) => {
        let found = this.all().filter((i) => i.region === region);
        const ids = params['InstanceIds'] as string[] | undefined;
        if (ids) {
          for (const id of ids) if (!/^ins-[a-z0-9]{8}$/.test(id)) throw new TencentFault('InvalidInstanceId.Malformed', `The instance id ${id} is malformed.`);
          found = found.filter((i) => ids.includes(i.id));
        }
        for (const filter of filtersOf(params)) {
          const tag = /^tag:(.+)$/.exec(filter.Name)?.[1];
          if (tag !== undefined) found = found.filter((i) => filter.Values.includes(i.tags[tag] ?? '\u0000'));
          else if (filter.Name === 'zone') found = found.filter((i) => filter.Values.includes(i.zone));
          else if (filter.Name === 'instance-name') found = found.filter((i) => filter.Values.includes(i.name));
          else if (filter.Name === 'instance-id') found = found.filter((i) => filter.Values.includes(i.id));
          else throw new TencentFault('InvalidFilter', `The filter ${filter.Name} is not supported.`);
        }
        return { TotalCount: found.length, InstanceSet: page(found, params, pageSize).map((i) => this.render(i)) };
      },
      RunInstances: (params, region) => {
        const token = params['ClientToken'] as string | undefined;
        if (token !== undefined) {
          if (token.length > 64) throw new TencentFault('InvalidParameterValue.TooLong', 'ClientToken is at most 64 characters.');
          const made = this.tokens.get(token);
          if (made) return { InstanceIdSet: made };
        }
        const zone = (params['Placement'] as { Zone?: string } | undefined)?.Zone ?? '';
        if (!zoneIn(region, zone)) throw new TencentFault('InvalidZone.MismatchRegion', `The zone ${zone} is not an available zone of ${region}.`);
        const type = (params['InstanceType'] as string | undefined) ?? '';
        if (!sells(type, zone)) throw new TencentFault('InvalidInstanceType.NotSupported', `The instance type ${type} is not sold in ${zone}.`);
        const imageId = (params['ImageId'] as string | undefined) ?? '';
        if (!IMAGES.some(([id]) => id === imageId)) throw new TencentFault('InvalidImageId.NotFound', `The image ${imageId} does not exist.`);
        const encoded = params['UserData'] as string | undefined;
        if (encoded !== undefined && (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length > 16_384)) throw new TencentFault('InvalidParameterValue.InvalidUserDataFormat', 'UserData must be base64, at most 16 KB.');
        const tags: Record<string, string> = {};
        for (const spec of (params['TagSpecification'] as Array<{ ResourceType: string; Tags: Array<{ Key: string; Value: string }> }> | undefined) ?? []) {
          if (spec.ResourceType !== 'instance') throw new TencentFault('InvalidParameterValue.TagSpecificationResourceType', `Tags cannot be given to ${spec.ResourceType} here.`);
          for (const tag of spec.Tags) tags[tag.Key] = tag.Value;
        }
        const count = Number(params['InstanceCount'] ?? 1);
        const ids: string[] = [];
        for (let n = 0; n < count; n++) {
          const id = `ins-${randomBytes(6).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, 'x').slice(0, 8)}`;
          const serial = this.serial++;
          this.instances.set(id, {
            id, region, zone, name: (params['InstanceName'] as string | undefined) ?? 'Unnamed', type, imageId, tags, state: 'PENDING', next: { state: 'RUNNING', at: Date.now() + actionMs },
            operation: { name: 'RunInstances', state: 'OPERATING', requestId: randomBytes(8).toString('hex') },
            userData: encoded === undefined ? null : Buffer.from(encoded, 'base64').toString('utf8'), ip: `203.0.113.${serial % 250}`, created: new Date().toISOString(),
          });
          ids.push(id);
        }
        if (token !== undefined) this.tokens.set(token, ids);
        return { InstanceIdSet: ids };
      },
      StartInstances: (params, region) => {
        const targets = (params['InstanceIds'] as string[]).map((id) => this.inRegion(region, id));
        for (const i of targets) this.expect(i, ['STOPPED']);
        for (const i of targets) this.change(i, 'StartInstances', 'STARTING', 'RUNNING');
        return {};
      },
      StopInstances: (params, region) => {
        const targets = (params['InstanceIds'] as string[]).map((id) => this.inRegion(region, id));
        for (const i of targets) this.expect(i, ['RUNNING']);
        for (const i of targets) this.change(i, 'StopInstances', 'STOPPING', 'STOPPED');
        return {};
      },
      RebootInstances: (params, region) => {
        const targets = (params['InstanceIds'] as string[]).map((id) => this.inRegion(region, id));
        for (const i of targets) this.expect(i, ['RUNNING']);
        for (const i of targets) this.change(i, 'RebootInstances', 'REBOOTING', 'RUNNING');
        return {};
      },
      ResetInstancesType: (params, region) => {
        const targets = (params['InstanceIds'] as string[]).map((id) => this.inRegion(region, id));
        const type = String(params['InstanceType']);
        for (const i of targets) {
          this.expect(i, ['STOPPED']);
          if (!sells(type, i.zone)) throw new TencentFault('InvalidInstanceType.NotSupported', `The instance type ${type} is not sold in ${i.zone}.`);
        }
        for (const i of targets) this.change(i, 'ResetInstancesType', 'STOPPED', 'STOPPED', type);
        return {};
      },
      TerminateInstances: (params, region) => {
        const targets = (params['InstanceIds'] as string[]).map((id) => this.inRegion(region, id));
        for (const i of targets) if (i.state === 'TERMINATING') throw new TencentFault('UnsupportedOperation.InstanceStateTerminating', `The instance ${i.id} is being terminated.`);
        for (const i of targets) this.change(i, 'TerminateInstances', 'TERMINATING', 'GONE');
        return {};
      },
    };
  }
}
