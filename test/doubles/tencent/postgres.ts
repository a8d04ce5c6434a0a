/**
 * @module The state and actions of a TencentDB for PostgreSQL double (API 2017-03-12): the
 * classes (SpecCodes) each zone sells per major version (DescribeClasses), and instances —
 * CreateInstances (tags from TagList, the admin's password kept to check ResetAccountPassword),
 * `initing` → `running` after `actionMs`, IsolateDBInstances (`isolating`, then `isolated` after `actionMs`), DestroyDBInstance
 * (only an isolated instance; then gone). DescribeDBInstances filters by `db-instance-id`,
 * `db-instance-name` and `db-tag-key`, paging by Offset/Limit at most `pageSize` a page.
 * Instances live in a region: each action sees only those of its `X-TC-Region`.
 */
import { randomBytes } from 'node:crypto';
import { TencentFault, type TencentHandler } from './server.js';

/** Zones that sell PostgreSQL, and the classes: SpecCode, CPU, memory MB, storage GB min and max. */
const ZONES = ['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-singapore-1', 'eu-frankfurt-1'];
const CLASSES: Array<[string, number, number, number, number]> = [
  ['pg.it.small2', 1, 2048, 10, 1000], ['pg.it.medium4', 2, 4096, 10, 2000], ['pg.it.large8', 4, 8192, 20, 3000],
];
const VERSIONS = ['12', '13', '14', '15', '16'];

export interface PgInstance {
  id: string;
  region: string;
  zone: string;
  name: string;
  spec: string;
  storage: number;
  version: string;
  tags: Record<string, string>;
  admin: string;
  password: string;
  status: 'initing' | 'running' | 'isolating' | 'isolated';
  readyAt: number;
  ip: string;
  created: string;
}

type Json = Record<string, unknown>;

const time = (iso: string): string => iso.replace('T', ' ').slice(0, 19);

export class PostgresState {
  private readonly instances = new Map<string, PgInstance>();
  private serial = 1;

  constructor(private readonly options: { actionMs: number; pageSize: number }) {}

  all(): PgInstance[] {
    const now = Date.now();
    for (const i of this.instances.values()) {
      if (i.readyAt > now) continue;
      if (i.status === 'initing') i.status = 'running';
      if (i.status === 'isolating') i.status = 'isolated';
    }
    return [...this.instances.values()];
  }

  private inRegion(region: string, id: string): PgInstance {
    const found = this.all().find((i) => i.id === id && i.region === region);
    if (!found) throw new TencentFault('ResourceNotFound.InstanceNotFoundError', `The instance ${id} does not exist.`);
    return found;
  }

  render(i: PgInstance): Json {
    const cls = CLASSES.find(([c]) => c === i.spec);
    return {
      Region: i.region, Zone: i.zone, VpcId: 'vpc-cairn001', SubnetId: 'subnet-cairn001', DBInstanceId: i.id, DBInstanceName: i.name, DBInstanceStatus: i.status,
      DBInstanceMemory: (cls?.[2] ?? 2048) / 1024, DBInstanceStorage: i.storage, DBInstanceCpu: cls?.[1] ?? 1, DBInstanceClass: i.spec, DBMajorVersion: i.version,
      DBVersion: `${i.version}.4`, DBKernelVersion: `v${i.version}.4_r1.10`, DBInstanceType: 'primary', DBInstanceVersion: 'standard', DBCharset: 'UTF8',
      CreateTime: time(i.created), UpdateTime: time(i.created), ExpireTime: '0000-00-00 00:00:00', IsolatedTime: '0000-00-00 00:00:00', PayType: 'postpaid', AutoRenew: 0,
      DBInstanceNetInfo: i.status === 'initing' ? [] : [{ Address: '', Ip: i.ip, Port: 5432, NetType: 'private', Status: 'opened', VpcId: 'vpc-cairn001', SubnetId: 'subnet-cairn001', ProtocolType: 'postgresql' }],
      Type: 'Tencent', AppId: 1250000000, Uid: 100000, ProjectId: 0, TagList: Object.entries(i.tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
      MasterDBInstanceId: '', ReadOnlyInstanceNum: 0, StatusInReadonlyGroup: '', OfflineTime: '', DBNodeSet: [{ Role: 'Primary', Zone: i.zone }], IsSupportTDE: 0,
      DBEngine: 'postgresql', DBEngineConfig: '', NetworkAccessList: null, SupportIpv6: 0,
    };
  }

  handlers(): Record<string, TencentHandler> {
    return {
      DescribeClasses: (p) => {
        if (!ZONES.includes(String(p['Zone']))) throw new TencentFault('InvalidParameterValue.InvalidZoneIdError', `The zone ${String(p['Zone'])} does not sell PostgreSQL.`);
        if (!VERSIONS.includes(String(p['DBMajorVersion']))) throw new TencentFault('InvalidParameterValue.InvalidDBVersion', `The version ${String(p['DBMajorVersion'])} is not sold.`);
        return { ClassInfoSet: CLASSES.map(([SpecCode, CPU, Memory, MinStorage, MaxStorage]) => ({ SpecCode, CPU, Memory, MinStorage, MaxStorage, QPS: 1000 * CPU })) };
      },
      CreateInstances: (p, region) => {
        const zone = String(p['Zone']);
        if (!ZONES.includes(zone) || !zone.startsWith(`${region}-`)) throw new TencentFault('InvalidParameterValue.InvalidZoneIdError', `The zone ${zone} is not in ${region}.`);
        const cls = CLASSES.find(([c]) => c === p['SpecCode']);
        if (!cls) throw new TencentFault('InvalidParameterValue.SpecNotRecognizedError', `The SpecCode ${String(p['SpecCode'])} is not sold.`);
        const storage = Number(p['Storage']);
        if (storage < cls[3] || storage > cls[4] || storage % 10 !== 0) throw new TencentFault('InvalidParameterValue.StorageError', `Storage ${storage} is out of range.`);
        if (p['AdminName'] === 'postgres' || String(p['AdminPassword']).length < 8) throw new TencentFault('InvalidParameterValue.InvalidAccountFormatError', 'The admin name or password breaks the rules.');
        const id = `postgres-${randomBytes(4).toString('hex')}`;
        const tags = Object.fromEntries(((p['TagList'] as Array<{ TagKey: string; TagValue: string }> | undefined) ?? []).map((t) => [t.TagKey, t.TagValue]));
        this.instances.set(id, {
          id, region, zone, name: typeof p['Name'] === 'string' ? p['Name'] : id, spec: cls[0], storage, version: typeof p['DBMajorVersion'] === 'string' ? p['DBMajorVersion'] : '16', tags, admin: String(p['AdminName']),
          password: String(p['AdminPassword']), status: 'initing', readyAt: Date.now() + this.options.actionMs, ip: `10.1.0.${(this.serial++ % 250) + 2}`, created: new Date().toISOString(),
        });
        return { DealNames: [`deal-${id}`], BillId: `bill-${id}`, DBInstanceIdSet: [id] };
      },
      DescribeDBInstances: (p, region) => {
        const filters = (p['Filters'] as Array<{ Name: string; Values: string[] }> | undefined) ?? [];
        let items = this.all().filter((i) => i.region === region);
        for (const f of filters) {
          if (f.Name === 'db-instance-id') items = items.filter((i) => f.Values.includes(i.id));
          else if (f.Name === 'db-instance-name') items = items.filter((i) => f.Values.some((v) => i.name.includes(v)));
          else if (f.Name === 'db-tag-key') items = items.filter((i) => f.Values.some((v) => v in i.tags));
          else throw new TencentFault('InvalidParameterValue.ParameterValueExceed', `The filter ${f.Name} is not supported by the double.`);
        }
        const offset = Number(p['Offset'] ?? 0);
        const limit = Number(p['Limit'] ?? 10) || 10;
        return { TotalCount: items.length, DBInstanceSet: items.slice(offset, offset + Math.min(limit, this.options.pageSize)).map((i) => this.render(i)) };
      },
      ResetAccountPassword: (p, region) => {
        const instance = this.inRegion(region, String(p['DBInstanceId']));
        if (p['UserName'] !== instance.admin) throw new TencentFault('InvalidParameterValue.AccountNotExist', `The account ${String(p['UserName'])} does not exist.`);
        instance.password = String(p['Password']);
        return {};
      },
      IsolateDBInstances: (p, region) => {
        for (const id of p['DBInstanceIdSet'] as string[]) {
          const instance = this.inRegion(region, id);
          instance.status = 'isolating';
          instance.readyAt = Date.now() + this.options.actionMs;
        }
        return {};
      },
      DestroyDBInstance: (p, region) => {
        const instance = this.inRegion(region, String(p['DBInstanceId']));
        if (instance.status !== 'isolated') throw new TencentFault('OperationDenied.InstanceStatusLimitOpError', `The instance ${instance.id} is ${instance.status}; only an isolated instance is destroyed.`);
        this.instances.delete(instance.id);
        return {};
      },
    };
  }
}
