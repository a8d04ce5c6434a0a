/**
 * @module The RDS half of the AWS double (API 2014-10-31, Query protocol): what each region sells
 * for PostgreSQL (DescribeOrderableDBInstanceOptions, paged by `Marker` at `pageSize`), DB
 * instances named by their `DBInstanceIdentifier` (unique per region, so a second
 * CreateDBInstance of one name is refused `DBInstanceAlreadyExists`, as RDS does) moving
 * `creating → available` and `deleting → gone` over `actionMs`, the master password kept so a
 * test can see a ModifyDBInstance rotation arrive, and manual DB snapshots (`creating →
 * available`) that outlive their instance, including the one DeleteDBInstance takes as
 * `FinalDBSnapshotIdentifier`. Errors carry RDS's own codes and HTTP statuses.
 */
import type { Wire } from '../../support/botocore-validator.js';
import { Ec2Error as AwsFault } from './ec2.js';

/** PostgreSQL classes, their storage range and the regions selling them. */
export const RDS_CLASSES: ReadonlyArray<{ cls: string; min: number; max: number; regions: readonly string[] }> = [
  { cls: 'db.t4g.micro', min: 20, max: 6144, regions: ['eu-west-1', 'eu-central-1', 'us-east-1'] },
  { cls: 'db.t4g.small', min: 20, max: 6144, regions: ['eu-west-1', 'eu-central-1', 'us-east-1'] },
  { cls: 'db.m6g.large', min: 20, max: 65536, regions: ['eu-west-1', 'us-east-1'] },
];
export const RDS_VERSIONS = ['15.7', '16.3', '16.4'];
const REGIONS = ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-1'];

export interface RdsInstance {
  id: string;
  region: string;
  cls: string;
  version: string;
  storage: number;
  username: string;
  password: string;
  tags: Record<string, string>;
  status: 'creating' | 'available' | 'modifying' | 'deleting';
  settlesAt: number;
  created: string;
}

export interface RdsSnapshot {
  id: string;
  region: string;
  instanceId: string;
  version: string;
  storage: number;
  tags: Record<string, string>;
  status: 'creating' | 'available';
  settlesAt: number;
  created: string;
}

const tagsOf = (input: Wire): Record<string, string> =>
  Object.fromEntries(((input['Tags'] ?? []) as Array<{ Key?: string; Value?: string }>).map((t) => [t.Key ?? '', t.Value ?? '']));
const tagList = (tags: Record<string, string>): Wire[] => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));

export class RdsAccount {
  readonly instances: RdsInstance[] = [];
  readonly snapshots: RdsSnapshot[] = [];

  constructor(private readonly options: { actionMs: number; pageSize: number }) {}

  private settle(): void {
    const now = Date.now();
    for (const i of [...this.instances]) {
      if (i.settlesAt > now) continue;
      if (i.status === 'creating' || i.status === 'modifying') i.status = 'available';
      if (i.status === 'deleting') this.instances.splice(this.instances.indexOf(i), 1);
    }
    for (const s of this.snapshots) if (s.settlesAt <= now) s.status = 'available';
  }

  private instance(region: string, id: string): RdsInstance {
    const found = this.instances.find((i) => i.id === id && i.region === region);
    if (!found) throw new AwsFault('DBInstanceNotFound', `DBInstance ${id} not found.`, 404);
    return found;
  }

  private snapshot(region: string, id: string): RdsSnapshot {
    const found = this.snapshots.find((s) => s.id === id && s.region === region);
    if (!found) throw new AwsFault('DBSnapshotNotFound', `DBSnapshot ${id} not found.`, 404);
    return found;
  }

  private wireInstance(i: RdsInstance): Wire {
    return {
      DBInstanceIdentifier: i.id, DBInstanceClass: i.cls, Engine: 'postgres', EngineVersion: i.version, DBInstanceStatus: i.status, MasterUsername: i.username,
      AllocatedStorage: i.storage, InstanceCreateTime: i.created, AvailabilityZone: `${i.region}a`, MultiAZ: false, StorageType: 'gp3', BackupRetentionPeriod: 1,
      DBInstanceArn: `arn:aws:rds:${i.region}:123456789012:db:${i.id}`, TagList: tagList(i.tags),
      ...(i.status === 'creating' ? {} : { Endpoint: { Address: `${i.id}.c0ffee.${i.region}.rds.amazonaws.com`, Port: 5432, HostedZoneId: 'Z29XKXDKYMONMX' } }),
    };
  }

  private wireSnapshot(s: RdsSnapshot): Wire {
    return {
      DBSnapshotIdentifier: s.id, DBInstanceIdentifier: s.instanceId, SnapshotCreateTime: s.created, Engine: 'postgres', EngineVersion: s.version, AllocatedStorage: s.storage,
      Status: s.status, Port: 5432, SnapshotType: 'manual', PercentProgress: s.status === 'available' ? 100 : 0,
      DBSnapshotArn: `arn:aws:rds:${s.region}:123456789012:snapshot:${s.id}`, TagList: tagList(s.tags),
    };
  }

  private takeSnapshot(region: string, id: string, instance: RdsInstance, tags: Record<string, string>): RdsSnapshot {
    if (this.snapshots.some((s) => s.id === id && s.region === region)) throw new AwsFault('DBSnapshotAlreadyExists', `Cannot create the snapshot because a snapshot with the identifier ${id} already exists.`);
    const snapshot: RdsSnapshot = { id, region, instanceId: instance.id, version: instance.version, storage: instance.storage, tags, status: 'creating', settlesAt: Date.now() + this.options.actionMs, created: new Date().toISOString() };
    this.snapshots.push(snapshot);
    return snapshot;
  }

  handle(action: string, input: Wire, region: string): Wire {
    this.settle();
    if (!REGIONS.includes(region)) throw new AwsFault('InvalidClientTokenId', 'The security token included in the request is invalid.', 403);
    switch (action) {
      case 'DescribeOrderableDBInstanceOptions': {
        if (input['Engine'] !== 'postgres') return { OrderableDBInstanceOptions: [] };
        const all = RDS_CLASSES.filter((c) => c.regions.includes(region) && (input['DBInstanceClass'] === undefined || c.cls === input['DBInstanceClass']))
          .flatMap((c) => RDS_VERSIONS.filter((v) => input['EngineVersion'] === undefined || v === input['EngineVersion']).map((v) => ({ c, v })));
        const start = Number(input['Marker'] ?? 0);
        const items = all.slice(start, start + this.options.pageSize);
        const next = start + items.length < all.length ? String(start + items.length) : undefined;
        return {
          OrderableDBInstanceOptions: items.map(({ c, v }) => ({ Engine: 'postgres', EngineVersion: v, DBInstanceClass: c.cls, LicenseModel: 'postgresql-license', StorageType: 'gp3', MinStorageSize: c.min, MaxStorageSize: c.max, Vpc: true, MultiAZCapable: true })),
          ...(next === undefined ? {} : { Marker: next }),
        };
      }
      case 'CreateDBInstance': {
        const id = String(input['DBInstanceIdentifier']);
        if (this.instances.some((i) => i.id === id && i.region === region)) throw new AwsFault('DBInstanceAlreadyExists', 'DB instance already exists');
        const cls = RDS_CLASSES.find((c) => c.cls === input['DBInstanceClass'] && c.regions.includes(region));
        if (input['Engine'] !== 'postgres' || !cls) throw new AwsFault('InvalidParameterCombination', `RDS does not support creating a DB instance with the following combination: DBInstanceClass=${String(input['DBInstanceClass'])}, Engine=${String(input['Engine'])}.`);
        const asked = typeof input['EngineVersion'] === 'string' ? input['EngineVersion'] : '16';
        const version = RDS_VERSIONS.filter((v) => v === asked || v.startsWith(`${asked}.`)).pop();
        if (!version) throw new AwsFault('InvalidParameterCombination', `Cannot find version ${asked} for postgres`);
        const storage = Number(input['AllocatedStorage'] ?? 0);
        if (storage < cls.min || storage > cls.max) throw new AwsFault('InvalidParameterValue', `Invalid storage size for engine name postgres and storage type gp3: ${storage}`);
        const password = typeof input['MasterUserPassword'] === 'string' ? input['MasterUserPassword'] : '';
        if (password.length < 8) throw new AwsFault('InvalidParameterValue', 'The parameter MasterUserPassword is not a valid password because it is shorter than 8 characters.');
        const instance: RdsInstance = {
          id, region, cls: cls.cls, version, storage, username: String(input['MasterUsername']), password, tags: tagsOf(input),
          status: 'creating', settlesAt: Date.now() + this.options.actionMs, created: new Date().toISOString(),
        };
        this.instances.push(instance);
        return { DBInstance: this.wireInstance(instance) };
      }
      case 'DescribeDBInstances': {
        const id = input['DBInstanceIdentifier'];
        if (typeof id === 'string') return { DBInstances: [this.wireInstance(this.instance(region, id))] };
        return { DBInstances: this.instances.filter((i) => i.region === region).map((i) => this.wireInstance(i)) };
      }
      case 'ModifyDBInstance': {
        const instance = this.instance(region, String(input['DBInstanceIdentifier']));
        if (instance.status !== 'available') throw new AwsFault('InvalidDBInstanceState', `Database instance is not in available state.`);
        if (typeof input['MasterUserPassword'] === 'string') instance.password = input['MasterUserPassword'];
        return { DBInstance: this.wireInstance(instance) };
      }
      case 'DeleteDBInstance': {
        const instance = this.instance(region, String(input['DBInstanceIdentifier']));
        if (instance.status === 'deleting') throw new AwsFault('InvalidDBInstanceState', `Instance ${instance.id} is already being deleted.`);
        const final = input['FinalDBSnapshotIdentifier'];
        if (input['SkipFinalSnapshot'] !== true) {
          if (typeof final !== 'string') throw new AwsFault('InvalidParameterCombination', 'FinalDBSnapshotIdentifier is required unless SkipFinalSnapshot is specified.');
          this.takeSnapshot(region, final, instance, instance.tags);
        }
        instance.status = 'deleting';
        instance.settlesAt = Date.now() + this.options.actionMs;
        return { DBInstance: this.wireInstance(instance) };
      }
      case 'CreateDBSnapshot': {
        const instance = this.instance(region, String(input['DBInstanceIdentifier']));
        if (instance.status !== 'available') throw new AwsFault('InvalidDBInstanceState', `Cannot create a snapshot because the database instance ${instance.id} is not currently in the available state.`);
        return { DBSnapshot: this.wireSnapshot(this.takeSnapshot(region, String(input['DBSnapshotIdentifier']), instance, tagsOf(input))) };
      }
      case 'DescribeDBSnapshots': {
        const id = input['DBSnapshotIdentifier'];
        if (typeof id === 'string') return { DBSnapshots: [this.wireSnapshot(this.snapshot(region, id))] };
        return { DBSnapshots: this.snapshots.filter((s) => s.region === region).map((s) => this.wireSnapshot(s)) };
      }
      case 'DeleteDBSnapshot': {
        const snapshot = this.snapshot(region, String(input['DBSnapshotIdentifier']));
        if (snapshot.status !== 'available') throw new AwsFault('InvalidDBSnapshotState', `Cannot delete the snapshot because it is not in the available state.`);
        this.snapshots.splice(this.snapshots.indexOf(snapshot), 1);
        return { DBSnapshot: this.wireSnapshot(snapshot) };
      }
      // Clusters (Aurora's and DocumentDB's) share RDS's API and endpoint; this account holds none,
      // as a real one without clusters answers.
      case 'DescribeDBClusters': {
        const id = input['DBClusterIdentifier'];
        if (typeof id === 'string') throw new AwsFault('DBClusterNotFoundFault', `DBCluster ${id} not found.`, 404);
        return { DBClusters: [] };
      }
      case 'DescribeDBClusterSnapshots': {
        const id = input['DBClusterSnapshotIdentifier'];
        if (typeof id === 'string') throw new AwsFault('DBClusterSnapshotNotFoundFault', `DBClusterSnapshot ${id} not found.`, 404);
        return { DBClusterSnapshots: [] };
      }
      default:
        throw new AwsFault('InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  /** The instances not being deleted, for the tests. */
  live(): RdsInstance[] {
    this.settle();
    return this.instances.filter((i) => i.status !== 'deleting');
  }

  /** The snapshots, for the tests. */
  allSnapshots(): RdsSnapshot[] {
    this.settle();
    return [...this.snapshots];
  }
}
