/**
 * @module The state and actions of a TencentDB for MongoDB double (API 2019-07-25): the specs
 * each zone sells per version (DescribeSpecInfo), and replica-set instances — CreateDBInstanceHour
 * (tags from Tags, the `mongouser` password kept to check ResetDBInstancePassword), status 0 →
 * 2 after `actionMs`, IsolateDBInstance (status 1, then -3 after `actionMs`),
 * OfflineIsolatedDBInstance (only an isolated instance; then gone). DescribeDBInstances filters by
 * InstanceIds and Tags, paging by Offset/Limit at most `pageSize` a page. Backups:
 * CreateBackupDBInstance (its BackupRemark kept as BackupDesc; in progress, then done after
 * `actionMs`), DescribeDBBackups (paged likewise), DeleteDBBackups. Instances live in a region:
 * each action sees only those of its `X-TC-Region`.
 */
import { randomBytes } from 'node:crypto';
import { TencentFault, type TencentHandler } from './server.js';

const ZONES = ['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-singapore-1'];
/** SpecCode, CPU, memory MB, storage MB min and max. */
const SPECS: Array<[string, number, number, number, number]> = [
  ['mongo.ge.2c4g', 2, 4096, 10 * 1024, 250 * 1024], ['mongo.ge.4c8g', 4, 8192, 20 * 1024, 500 * 1024],
];
const VERSIONS: Array<[string, number]> = [['MONGO_44_WT', 44], ['MONGO_50_WT', 50], ['MONGO_60_WT', 60]];

export interface MongoInstance {
  id: string;
  region: string;
  zone: string;
  name: string;
  memoryGb: number;
  volumeGb: number;
  nodes: number;
  version: string;
  tags: Record<string, string>;
  password: string;
  status: 0 | 1 | 2 | -3;
  readyAt: number;
  ip: string;
  created: string;
}

export interface MongoBackup {
  id: number;
  instanceId: string;
  remark: string;
  readyAt: number;
  started: string;
}

type Json = Record<string, unknown>;

const time = (iso: string): string => iso.replace('T', ' ').slice(0, 19);

export class MongodbState {
  private readonly instances = new Map<string, MongoInstance>();
  private readonly backupList: MongoBackup[] = [];
  private serial = 1;
  private backupSerial = 100;

  constructor(private readonly options: { actionMs: number; pageSize: number }) {}

  all(): MongoInstance[] {
    const now = Date.now();
    for (const i of this.instances.values()) {
      if (i.readyAt > now) continue;
      if (i.status === 0) i.status = 2;
      if (i.status === 1) i.status = -3;
    }
    return [...this.instances.values()];
  }

  backups(): MongoBackup[] {
    return [...this.backupList];
  }

  private inRegion(region: string, id: string): MongoInstance {
    const found = this.all().find((i) => i.id === id && i.region === region);
    if (!found) throw new TencentFault('InvalidParameterValue.NotFoundInstance', `The instance ${id} does not exist.`);
    return found;
  }

  private page<T>(items: T[], p: Json): T[] {
    const offset = Number(p['Offset'] ?? 0);
    const limit = Number(p['Limit'] ?? 20) || 20;
    return items.slice(offset, offset + Math.min(limit, this.options.pageSize));
  }

  render(i: MongoInstance): Json {
    const none = { InstanceId: '', Region: '' };
    return {
      InstanceId: i.id, InstanceName: i.name, PayMode: 0, ProjectId: 0, ClusterType: 0, Region: i.region, Zone: i.zone, NetType: 1, VpcId: 'vpc-cairn001', SubnetId: 'subnet-cairn001',
      Status: i.status, Vip: i.status === 0 ? '' : i.ip, Vport: 27017, CreateTime: time(i.created), DeadLine: '0000-00-00 00:00:00', MongoVersion: i.version, Memory: i.memoryGb * 1024,
      Volume: i.volumeGb * 1024, CpuNum: i.memoryGb / 2, MachineType: 'HCD', SecondaryNum: i.nodes - 1, ReplicationSetNum: 1, AutoRenewFlag: 0, UsedVolume: 0, MaintenanceStart: '03:00',
      MaintenanceEnd: '04:00', ReplicaSets: [{ UsedVolume: 0, ReplicaSetId: `${i.id}_0`, ReplicaSetName: `${i.id}_0`, Memory: i.memoryGb * 1024, Volume: i.volumeGb * 1024, OplogSize: 1024, SecondaryNum: i.nodes - 1, RealReplicaSetId: `${i.id}_0` }],
      ReadonlyInstances: [], StandbyInstances: [], CloneInstances: [], RelatedInstance: none, Tags: Object.entries(i.tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
      InstanceVer: 3, ClusterVer: 1, Protocol: 3, InstanceType: 1, InstanceStatusDesc: '', RealInstanceId: i.id,
    };
  }

  handlers(): Record<string, TencentHandler> {
    return {
      DescribeSpecInfo: (p, region) => {
        const zones = ZONES.filter((z) => z.startsWith(`${region}-`) && (p['Zone'] === undefined || p['Zone'] === z));
        return {
          SpecInfoList: zones.map((Zone) => ({
            Region: region, Zone, SupportMultiAZ: 1,
            SpecItems: VERSIONS.flatMap(([code, value]) => SPECS.map(([SpecCode, Cpu, Memory, MinStorage, MaxStorage]) => ({
              SpecCode, Status: 1, Cpu, Memory, DefaultStorage: MinStorage, MaxStorage, MinStorage, Qps: 1000 * Cpu, Conns: 1000 * Cpu, MongoVersionCode: code, MongoVersionValue: value,
              Version: code, EngineName: 'WiredTiger', ClusterType: 0, MinNodeNum: 3, MaxNodeNum: 7, MinReplicateSetNum: 1, MaxReplicateSetNum: 1, MinReplicateSetNodeNum: 3, MaxReplicateSetNodeNum: 7, MachineType: 'HCD',
            }))),
          })),
        };
      },
      CreateDBInstanceHour: (p, region) => {
        const zone = String(p['Zone']);
        if (!ZONES.includes(zone) || !zone.startsWith(`${region}-`)) throw new TencentFault('InvalidParameterValue.ZoneClosed', `The zone ${zone} is not in ${region}.`);
        const spec = SPECS.find(([, , memory]) => memory === Number(p['Memory']) * 1024);
        if (!spec) throw new TencentFault('InvalidParameterValue.SpecNotOnSale', `No spec of ${String(p['Memory'])} GB is sold.`);
        const volume = Number(p['Volume']) * 1024;
        if (volume < spec[3] || volume > spec[4]) throw new TencentFault('InvalidParameterValue.InvalidTradeOperation', `Volume ${String(p['Volume'])} is out of range.`);
        if (!VERSIONS.some(([code]) => code === p['MongoVersion'])) throw new TencentFault('InvalidParameterValue.InvalidVersion', `Version ${String(p['MongoVersion'])} is not sold.`);
        if (typeof p['Password'] !== 'string' || p['Password'].length < 8) throw new TencentFault('InvalidParameterValue.PasswordRuleFailed', 'The password breaks the rules.');
        const id = `cmgo-${randomBytes(4).toString('hex')}`;
        const tags = Object.fromEntries(((p['Tags'] as Array<{ TagKey: string; TagValue: string }> | undefined) ?? []).map((t) => [t.TagKey, t.TagValue]));
        this.instances.set(id, {
          id, region, zone, name: typeof p['InstanceName'] === 'string' ? p['InstanceName'] : id, memoryGb: spec[2] / 1024, volumeGb: volume / 1024, nodes: Number(p['NodeNum']), version: String(p['MongoVersion']), tags,
          password: String(p['Password']), status: 0, readyAt: Date.now() + this.options.actionMs, ip: `10.2.0.${(this.serial++ % 250) + 2}`, created: new Date().toISOString(),
        });
        return { DealId: `deal-${id}`, InstanceIds: [id] };
      },
      DescribeDBInstances: (p, region) => {
        let items = this.all().filter((i) => i.region === region);
        const ids = p['InstanceIds'] as string[] | undefined;
        if (ids) items = items.filter((i) => ids.includes(i.id));
        const tags = p['Tags'] as Array<{ TagKey: string; TagValue: string }> | undefined;
        if (tags) items = items.filter((i) => tags.some((t) => i.tags[t.TagKey] === t.TagValue));
        return { TotalCount: items.length, InstanceDetails: this.page(items, p).map((i) => this.render(i)) };
      },
      ResetDBInstancePassword: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        if (p['UserName'] !== 'mongouser') throw new TencentFault('InvalidParameterValue.UserNotFound', `The account ${String(p['UserName'])} does not exist.`);
        instance.password = String(p['Password']);
        return { AsyncRequestId: `async-${this.serial++}` };
      },
      IsolateDBInstance: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        instance.status = 1;
        instance.readyAt = Date.now() + this.options.actionMs;
        return { AsyncRequestId: `async-${this.serial++}` };
      },
      OfflineIsolatedDBInstance: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        if (instance.status !== -3) throw new TencentFault('InvalidParameterValue.StatusAbnormal', `The instance ${instance.id} is not isolated.`);
        this.instances.delete(instance.id);
        return { AsyncRequestId: `async-${this.serial++}` };
      },
      CreateBackupDBInstance: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        if (instance.status !== 2) throw new TencentFault('InvalidParameterValue.StatusAbnormal', `The instance ${instance.id} is not running.`);
        this.backupList.push({ id: this.backupSerial++, instanceId: instance.id, remark: typeof p['BackupRemark'] === 'string' ? p['BackupRemark'] : '', readyAt: Date.now() + this.options.actionMs, started: new Date().toISOString() });
        return { AsyncRequestId: `async-${this.serial++}` };
      },
      DescribeDBBackups: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        const now = Date.now();
        const items = this.backupList.filter((b) => b.instanceId === instance.id);
        return {
          TotalCount: items.length,
          BackupList: this.page(items, p).map((b) => ({
            InstanceId: b.instanceId, BackupType: 1, BackupName: `backup-${b.id}`, BackupDesc: b.remark, BackupSize: b.readyAt <= now ? 2048 : 0, StartTime: time(b.started),
            EndTime: b.readyAt <= now ? time(new Date(b.readyAt).toISOString()) : '', Status: b.readyAt <= now ? 2 : 1, BackupMethod: 0, BackId: b.id, DeleteTime: '', BackupRegion: region, RestoreTime: '',
          })),
        };
      },
      DeleteDBBackups: (p, region) => {
        const instance = this.inRegion(region, String(p['InstanceId']));
        for (const id of p['BackupIds'] as number[]) {
          const at = this.backupList.findIndex((b) => b.id === id && b.instanceId === instance.id);
          if (at < 0) throw new TencentFault('InvalidParameterValue.BackupFileNotFound', `Backup ${id} does not exist.`);
          this.backupList.splice(at, 1);
        }
        return {};
      },
    };
  }
}
