/**
 * @module A DocumentDB double on loopback (API 2014-10-31, the query protocol, signed with
 * Signature Version 4 for service `rds` as the real endpoint is), so the unmodified
 * `@aws-sdk/client-docdb` is its client. Every request is parsed against the operation's input
 * shape in DocumentDB's botocore model and every answer serialized from its output shape
 * (test/support/botocore-validator.ts); anything outside it is recorded in `violations`. State:
 * the instance classes each region sells per engine version (DescribeOrderableDBInstanceOptions,
 * paged by MaxRecords/Marker), clusters (`creating` → `available` after `actionMs`; a second
 * CreateDBCluster of a name is DBClusterAlreadyExistsFault; deleted only without instances),
 * instances (`creating` → `available`, `deleting` → gone after `actionMs`), tags, the master
 * password (to check rotation) and manual cluster snapshots (`creating` → `available`).
 * Answers to chosen actions can be held back (the lost-answer window).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { BotocoreService, type Wire } from '../../support/botocore-validator.js';
import { vendorDocument } from '../../support/vendor-double.js';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } from './server.js';
import { Ec2Error as AwsFault } from './ec2.js';
import { answerQueryAction } from './query-answer.js';
import { checkSignature } from './sigv4-check.js';

export const DOCDB_DOCUMENT = vendorDocument('aws', 'docdb', '2014-10-31', 'service-2.json');
const model = new BotocoreService(DOCDB_DOCUMENT);

/** Regions selling DocumentDB, the versions, and the classes (all sold for every version). */
const REGIONS = ['eu-west-1', 'us-east-1', 'eu-central-1'];
const VERSIONS = ['4.0.0', '5.0.0'];
const CLASSES = ['db.t3.medium', 'db.r6g.large', 'db.r6g.xlarge'];

export interface DocdbCluster {
  id: string;
  region: string;
  engineVersion: string;
  username: string;
  password: string;
  tags: Record<string, string>;
  status: 'creating' | 'available' | 'modifying' | 'deleting';
  readyAt: number;
  created: string;
}

export interface DocdbInstance { id: string; cluster: string; region: string; size: string; status: 'creating' | 'available' | 'deleting'; readyAt: number }
export interface DocdbSnapshot { id: string; cluster: string; region: string; tags: Record<string, string>; status: 'creating' | 'available'; readyAt: number; created: string; engineVersion: string }

export interface DocdbDoubleOptions {
  actionMs?: number;
  pageSize?: number;
  slowAnswers?: { actions: readonly string[]; ms: number };
  /** Requests signed for another service (EC2) are passed on here unchanged, so one endpoint serves a Provider. */
  forwardTo?: string;
}

export interface DocdbDouble {
  url: string;
  calls: Array<{ action: string; region: string; status: number; code?: string }>;
  violations: string[];
  clusters(): DocdbCluster[];
  instances(): DocdbInstance[];
  snapshots(): DocdbSnapshot[];
  /** Removes a cluster's instances at once (a create interrupted between its two calls). */
  dropInstances(cluster: string): void;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const tagsOf = (value: unknown): Record<string, string> => Object.fromEntries(((value as Array<{ Key: string; Value: string }> | undefined) ?? []).map((t) => [t.Key, t.Value]));
const tagList = (tags: Record<string, string>): Wire[] => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));

/** Passes a request on to `target` with its headers (the signature covers Host) and body, and its answer back. */
function forward(request: IncomingMessage, body: string, response: ServerResponse, target: string): Promise<void> {
  const url = new URL(target);
  return new Promise((resolve, reject) => {
    const onward = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      answer.on('end', resolve);
    });
    onward.on('error', reject);
    onward.end(body);
  });
}

export async function startDocdbDouble(options: DocdbDoubleOptions = {}): Promise<DocdbDouble> {
  const actionMs = options.actionMs ?? 150;
  const pageSize = options.pageSize ?? 2;
  const clusters = new Map<string, DocdbCluster>();
  const instances = new Map<string, DocdbInstance>();
  const snapshots = new Map<string, DocdbSnapshot>();
  const calls: DocdbDouble['calls'] = [];
  const violations: string[] = [];

  function settle(): void {
    const now = Date.now();
    for (const c of clusters.values()) if (c.readyAt <= now && (c.status === 'creating' || c.status === 'modifying')) c.status = 'available';
    for (const c of [...clusters.values()]) if (c.readyAt <= now && c.status === 'deleting') clusters.delete(`${c.region}/${c.id}`);
    for (const i of [...instances.values()]) {
      if (i.readyAt > now) continue;
      if (i.status === 'creating') i.status = 'available';
      if (i.status === 'deleting') instances.delete(`${i.region}/${i.id}`);
    }
    for (const s of snapshots.values()) if (s.readyAt <= now) s.status = 'available';
  }

  const arn = (region: string, kind: string, id: string): string => `arn:aws:rds:${region}:123456789012:${kind}:${id}`;
  const page = <T>(items: T[], input: Wire): { items: T[]; Marker?: string } => {
    const max = Math.min(Number(input['MaxRecords'] ?? 100), pageSize);
    const at = Number(text(input['Marker']) || 0);
    const next = at + max < items.length ? String(at + max) : undefined;
    return { items: items.slice(at, at + max), ...(next === undefined ? {} : { Marker: next }) };
  };
  const renderCluster = (c: DocdbCluster): Wire => ({
    DBClusterIdentifier: c.id, Status: c.status, Engine: 'docdb', EngineVersion: c.engineVersion, Port: 27017, MasterUsername: c.username, MultiAZ: false, StorageEncrypted: false,
    Endpoint: `${c.id}.cluster-cabc123.${c.region}.docdb.amazonaws.com`, ReaderEndpoint: `${c.id}.cluster-ro-cabc123.${c.region}.docdb.amazonaws.com`,
    DBClusterArn: arn(c.region, 'cluster', c.id), ClusterCreateTime: c.created, DeletionProtection: false,
    DBClusterMembers: [...instances.values()].filter((i) => i.cluster === c.id && i.region === c.region).map((i) => ({ DBInstanceIdentifier: i.id, IsClusterWriter: true, PromotionTier: 1 })),
  });
  const renderInstance = (i: DocdbInstance): Wire => ({
    DBInstanceIdentifier: i.id, DBInstanceClass: i.size, Engine: 'docdb', DBInstanceStatus: i.status, DBClusterIdentifier: i.cluster, DBInstanceArn: arn(i.region, 'db', i.id),
    ...(i.status === 'creating' ? {} : { Endpoint: { Address: `${i.id}.cabc123.${i.region}.docdb.amazonaws.com`, Port: 27017 } }),
  });
  const renderSnapshot = (s: DocdbSnapshot): Wire => ({
    DBClusterSnapshotIdentifier: s.id, DBClusterIdentifier: s.cluster, Status: s.status, Engine: 'docdb', EngineVersion: s.engineVersion, SnapshotType: 'manual', Port: 27017,
    SnapshotCreateTime: s.created, ClusterCreateTime: s.created, PercentProgress: s.status === 'available' ? 100 : 0, DBClusterSnapshotArn: arn(s.region, 'cluster-snapshot', s.id),
  });
  const cluster = (region: string, id: string): DocdbCluster => {
    const found = clusters.get(`${region}/${id}`);
    if (!found) throw new AwsFault('DBClusterNotFoundFault', `DBCluster ${id} not found.`, 404);
    return found;
  };

  function handle(action: string, input: Wire, region: string): Wire {
    settle();
    switch (action) {
      case 'DescribeOrderableDBInstanceOptions': {
        const all = REGIONS.includes(region) ? VERSIONS.flatMap((v) => CLASSES.map((c) => ({ Engine: 'docdb', EngineVersion: v, DBInstanceClass: c, LicenseModel: 'na', Vpc: true, AvailabilityZones: [{ Name: `${region}a` }] }))) : [];
        const { items, Marker } = page(all, input);
        return { OrderableDBInstanceOptions: items, ...(Marker === undefined ? {} : { Marker }) };
      }
      case 'CreateDBCluster': {
        const id = text(input['DBClusterIdentifier']);
        if (clusters.has(`${region}/${id}`)) throw new AwsFault('DBClusterAlreadyExistsFault', `DB Cluster already exists`);
        if (input['Engine'] !== 'docdb') throw new AwsFault('InvalidParameterValue', 'Engine must be docdb');
        const password = text(input['MasterUserPassword']);
        if (password.length < 8 || /[/"@]/.test(password)) throw new AwsFault('InvalidParameterValue', 'The parameter MasterUserPassword is not a valid password.');
        const c: DocdbCluster = {
          id, region, engineVersion: text(input['EngineVersion']) || '5.0.0', username: text(input['MasterUsername']), password, tags: tagsOf(input['Tags']), status: 'creating', readyAt: Date.now() + actionMs, created: new Date().toISOString(),
        };
        clusters.set(`${region}/${id}`, c);
        return { DBCluster: renderCluster(c) };
      }
      case 'CreateDBInstance': {
        const id = text(input['DBInstanceIdentifier']);
        const c = cluster(region, text(input['DBClusterIdentifier']));
        if (instances.has(`${region}/${id}`)) throw new AwsFault('DBInstanceAlreadyExists', `DB instance already exists`);
        if (!CLASSES.includes(text(input['DBInstanceClass']))) throw new AwsFault('InvalidParameterCombination', `${text(input['DBInstanceClass'])} is not sold`);
        const i: DocdbInstance = { id, cluster: c.id, region, size: text(input['DBInstanceClass']), status: 'creating', readyAt: Date.now() + actionMs };
        instances.set(`${region}/${id}`, i);
        return { DBInstance: renderInstance(i) };
      }
      case 'DescribeDBClusters': {
        const id = text(input['DBClusterIdentifier']);
        const all = id ? [cluster(region, id)] : [...clusters.values()].filter((c) => c.region === region);
        const { items, Marker } = page(all, input);
        return { DBClusters: items.map(renderCluster), ...(Marker === undefined ? {} : { Marker }) };
      }
      case 'DescribeDBInstances': {
        const filters = (input['Filters'] as Array<{ Name: string; Values: string[] }> | undefined) ?? [];
        let all = [...instances.values()].filter((i) => i.region === region);
        for (const f of filters) {
          if (f.Name !== 'db-cluster-id') throw new AwsFault('InvalidParameterValue', `Unrecognized filter name: ${f.Name}`);
          all = all.filter((i) => f.Values.includes(i.cluster));
        }
        const { items, Marker } = page(all, input);
        return { DBInstances: items.map(renderInstance), ...(Marker === undefined ? {} : { Marker }) };
      }
      case 'ListTagsForResource': {
        const name = text(input['ResourceName']);
        const c = [...clusters.values()].find((x) => arn(x.region, 'cluster', x.id) === name);
        if (!c) throw new AwsFault('DBClusterNotFoundFault', `${name} not found`, 404);
        return { TagList: tagList(c.tags) };
      }
      case 'ModifyDBCluster': {
        const c = cluster(region, text(input['DBClusterIdentifier']));
        if (typeof input['MasterUserPassword'] === 'string') c.password = input['MasterUserPassword'];
        return { DBCluster: renderCluster(c) };
      }
      case 'DeleteDBInstance': {
        const i = instances.get(`${region}/${text(input['DBInstanceIdentifier'])}`);
        if (!i) throw new AwsFault('DBInstanceNotFound', `DBInstance ${text(input['DBInstanceIdentifier'])} not found.`, 404);
        i.status = 'deleting';
        i.readyAt = Date.now() + actionMs;
        return { DBInstance: renderInstance(i) };
      }
      case 'DeleteDBCluster': {
        const c = cluster(region, text(input['DBClusterIdentifier']));
        if ([...instances.values()].some((i) => i.cluster === c.id && i.region === region)) throw new AwsFault('InvalidDBClusterStateFault', 'Cluster cannot be deleted, it still contains DB instances in non-deleting state.');
        if (input['SkipFinalSnapshot'] !== true) {
          const final = text(input['FinalDBSnapshotIdentifier']);
          if (!final) throw new AwsFault('InvalidParameterCombination', 'FinalDBSnapshotIdentifier is required unless SkipFinalSnapshot is specified.');
          snapshots.set(`${region}/${final}`, { id: final, cluster: c.id, region, tags: {}, status: 'available', readyAt: 0, created: new Date().toISOString(), engineVersion: c.engineVersion });
        }
        c.status = 'deleting';
        c.readyAt = Date.now() + actionMs;
        return { DBCluster: renderCluster(c) };
      }
      case 'CreateDBClusterSnapshot': {
        const id = text(input['DBClusterSnapshotIdentifier']);
        const c = cluster(region, text(input['DBClusterIdentifier']));
        if (snapshots.has(`${region}/${id}`)) throw new AwsFault('DBClusterSnapshotAlreadyExistsFault', `Cannot create the snapshot because a snapshot with the identifier ${id} already exists.`);
        if (c.status !== 'available') throw new AwsFault('InvalidDBClusterStateFault', `DBCluster ${c.id} is not in available state.`);
        const s: DocdbSnapshot = { id, cluster: c.id, region, tags: tagsOf(input['Tags']), status: 'creating', readyAt: Date.now() + actionMs, created: new Date().toISOString(), engineVersion: c.engineVersion };
        snapshots.set(`${region}/${id}`, s);
        return { DBClusterSnapshot: renderSnapshot(s) };
      }
      case 'DescribeDBClusterSnapshots': {
        const id = text(input['DBClusterSnapshotIdentifier']);
        const all = [...snapshots.values()].filter((s) => s.region === region && (!id || s.id === id));
        if (id && all.length === 0) throw new AwsFault('DBClusterSnapshotNotFoundFault', `DBClusterSnapshot ${id} not found.`, 404);
        const { items, Marker } = page(all, input);
        return { DBClusterSnapshots: items.map(renderSnapshot), ...(Marker === undefined ? {} : { Marker }) };
      }
      case 'DeleteDBClusterSnapshot': {
        const key = `${region}/${text(input['DBClusterSnapshotIdentifier'])}`;
        const s = snapshots.get(key);
        if (!s) throw new AwsFault('DBClusterSnapshotNotFoundFault', `DBClusterSnapshot ${text(input['DBClusterSnapshotIdentifier'])} not found.`, 404);
        snapshots.delete(key);
        return { DBClusterSnapshot: renderSnapshot(s) };
      }
      default:
        throw new AwsFault('InvalidAction', `The action ${action} is not served by this double.`);
    }
  }

  function send(response: ServerResponse, status: number, xml: string): void {
    response.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': randomUUID() });
    response.end(xml);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const body = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      request.on('error', reject);
    });
    const params = new URLSearchParams(body);
    const action = params.get('Action') ?? '';
    const call: DocdbDouble['calls'][number] = { action, region: '', status: 200 };
    calls.push(call);
    const refuse = (status: number, code: string, message: string): void => {
      call.status = status;
      call.code = code;
      send(response, status, model.errorXml(code, message, requestId));
    };
    const signature = await checkSignature(request, body, { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY });
    if (!signature.ok) return refuse(403, signature.code, signature.message);
    call.region = signature.region;
    if (signature.service !== 'rds' && options.forwardTo !== undefined) {
      calls.pop();
      return forward(request, body, response, options.forwardTo);
    }
    if (signature.service !== 'rds') {
      violations.push(`${action}: signed for service ${signature.service}, DocumentDB signs as rds`);
      return refuse(400, 'InvalidAction', `The service ${signature.service} is not served here`);
    }
    const answer = answerQueryAction(model, action, params, requestId, (input) => handle(action, input, signature.region), violations);
    if (!answer.ok) return refuse(answer.status, answer.code, answer.message);
    if (options.slowAnswers?.actions.includes(action)) await sleep(options.slowAnswers.ms);
    send(response, 200, answer.xml);
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      violations.push(`double failed: ${(error as Error).stack ?? String(error)}`);
      if (!response.headersSent) send(response, 500, model.errorXml('InternalFailure', 'double failed', 'x'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    violations,
    clusters: () => (settle(), [...clusters.values()]),
    instances: () => (settle(), [...instances.values()]),
    snapshots: () => (settle(), [...snapshots.values()]),
    dropInstances(id) {
      for (const [k, i] of instances) if (i.cluster === id) instances.delete(k);
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
