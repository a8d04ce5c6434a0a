/**
 * @module A stateful double of the MongoDB Atlas Administration API v2 on loopback, for the
 * atlas driver's tests: a project, its clusters (named, unique per project: a second create of a
 * name is Atlas's 409 DUPLICATE_CLUSTER_NAME; `CREATING` then `IDLE` after `actionMs`, `UPDATING`
 * for a change, `DELETING` before they are gone), database users (passwords kept to compare),
 * on-demand snapshots (`queued`, then `completed` after `actionMs`; kept after the cluster's
 * deletion with `retainBackups=true`), restore jobs (finished after `actionMs`) and the
 * providers' regions and instance sizes. Lists page by `pageNum`/`itemsPerPage` with a `next`
 * link, at most `pageSize` items a page whatever is asked (Atlas: 500), so tests cross pages.
 * Auth is a service account: `POST /api/oauth/token` (client id and secret as HTTP Basic,
 * `grant_type=client_credentials`) gives a bearer token every other request must carry. Errors
 * are Atlas's `{detail, error, errorCode, reason}`, its budget answers 429.
 *
 * Every request and answer is checked against Atlas's own OpenAPI document
 * (test/vendor-apis/mongodb-atlas/atlas-api.yaml). Atlas versions its resources by media type
 * (`application/vnd.atlas.2024-08-05+json`), which openapi-backend does not read (it checks
 * `application/json` bodies only): the loaded copy gives each operation's versioned body schema
 * under `application/json` as well, and the double records a violation when a request's
 * `Accept` (or a body's `Content-Type`) is not the version the document names for the operation.
 * The copy also gets the 429 answer (Atlas's error shape) that Atlas's rate-limit page describes
 * but its operations do not list.
 */
import { randomBytes } from 'node:crypto';
import type { Document } from 'openapi-backend';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('mongodb-atlas', 'atlas-api.yaml');
export const ATLAS_PROJECT_ID = '64b1f0c0ffee0ddba11c0de1';

/** Instance sizes and the regions (`PROVIDER:REGION`) they are offered in. */
const OFFER: Record<string, Record<string, string[]>> = {
  AWS: { M10: ['US_EAST_1', 'EU_CENTRAL_1', 'EU_WEST_1'], M20: ['US_EAST_1', 'EU_CENTRAL_1', 'EU_WEST_1'], M30: ['US_EAST_1', 'EU_CENTRAL_1'], M40: ['US_EAST_1'] },
  GCP: { M10: ['CENTRAL_US', 'WESTERN_EUROPE'], M20: ['CENTRAL_US', 'WESTERN_EUROPE'] },
  AZURE: { M10: ['US_EAST_2', 'EUROPE_WEST'] },
};

export interface AtlasDoubleOptions extends CommonDoubleOptions {
  /** The service account; default client id `mdb_sa_id_test`, secret the common `token`. */
  clientId?: string;
  /** The most items a page holds whatever `itemsPerPage` asks. Default 2. */
  pageSize?: number;
  /** Seconds an access token lasts. Default 3600. */
  tokenLifetimeS?: number;
}

type Json = Record<string, unknown>;

export interface AtlasClusterState {
  id: string;
  name: string;
  state: 'CREATING' | 'IDLE' | 'UPDATING' | 'DELETING';
  /** When the state it is in ends (ms since epoch). */
  until: number;
  version: string;
  provider: string;
  region: string;
  instanceSize: string;
  nodeCount: number;
  diskSizeGB: number;
  tags: Array<{ key: string; value: string }>;
  host: string;
  created: string;
  /** Snapshots restored into it, in order. */
  restoredFrom: string[];
}

export interface AtlasSnapshotState {
  id: string;
  cluster: string;
  description: string;
  created: string;
  until: number;
}

export interface AtlasUserState {
  username: string;
  password: string;
  roles: Json[];
  scopes: Json[];
}

export interface AtlasDouble extends VendorDouble {
  readonly projectId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  clusters(): AtlasClusterState[];
  snapshots(): AtlasSnapshotState[];
  users(): AtlasUserState[];
  /** Tokens issued at /api/oauth/token. */
  tokensIssued(): number;
}

/** Each operation's versioned media type, from the document as published (filled when the document is first loaded). */
const mediaTypes = new Map<string, string>();

/**
 * Atlas's `oneOf`s are alternatives its server tells apart by a discriminator or not at all
 * (`HardwareSpec20240805`: an M10 is a valid AWS, Azure and GCP size at once), so no answer could
 * match exactly one of them: read as `anyOf`. A discriminated base's branches are `allOf` the base
 * itself (`AWSRegionConfig20240805` = `CloudRegionConfig20240805` + its own part), a cycle no
 * validator leaves: such a base is checked as itself (its properties, `providerName` among
 * them), without its branches. And `regionName` is `type: object` whose branches are the
 * providers' region names (strings): the `type` no region name could meet is dropped.
 */
function alternativesAsMeant(document: Document): void {
  visit(document, new Set(), (schema) => {
    const branches = schema['oneOf'];
    if (!Array.isArray(branches)) return;
    // `regionName` is `type: object` with string branches (the providers' region enums): no region could match.
    if (schema['type'] === 'object' && (branches as Json[]).every((b) => b['type'] === 'string')) Reflect.deleteProperty(schema, 'type');
    if (schema['discriminator'] === undefined) schema['anyOf'] = branches;
    Reflect.deleteProperty(schema, 'oneOf');
    Reflect.deleteProperty(schema, 'discriminator');
  });
}

/** Calls `change` on every object of the tree once (cycles followed once). */
function visit(node: unknown, seen: Set<object>, change: (schema: Json) => void): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  change(node as Json);
  for (const value of Object.values(node)) visit(value, seen, change);
}

export function atlasDocumentAsServed(document: Document): void {
  alternativesAsMeant(document);
  const tooMany = {
    description: 'Too Many Requests.',
    content: { 'application/json': { schema: document.components?.schemas?.['ApiError'] } },
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<{ operationId?: string; requestBody?: { content?: Json }; responses?: Record<string, { content?: Json }> }>) {
      if (typeof op !== 'object' || op === null || !op.operationId) continue;
      const versioned = (content: Json | undefined): void => {
        if (!content || content['application/json'] !== undefined) return;
        const type = Object.keys(content).filter((t) => t.startsWith('application/vnd.atlas.')).sort().pop();
        if (type === undefined) return;
        if (op.operationId) mediaTypes.set(op.operationId, type.replace(/\+(json|csv|gzip)$/, '+json'));
        content['application/json'] = content[type];
      };
      versioned(op.requestBody?.content);
      for (const answer of Object.values(op.responses ?? {})) versioned(answer.content);
      if (op.responses && op.responses['429'] === undefined) op.responses['429'] = tooMany;
    }
  }
}

/** A field of a request body as text (the document has checked its type already). */
function text(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function hex24(): string {
  return randomBytes(12).toString('hex');
}

function error(status: number, code: string, message: string): Json {
  const reasons: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };
  return { detail: message, error: status, errorCode: code.toUpperCase(), reason: reasons[status] ?? 'Error' };
}

export async function startAtlasDouble(options: AtlasDoubleOptions = {}): Promise<AtlasDouble> {
  const actionMs = options.actionMs ?? 150;
  const pageSize = options.pageSize ?? 2;
  const clientId = options.clientId ?? 'mdb_sa_id_test';
  const clientSecret = options.token ?? 'mdb_sa_sk_test';
  const clusters = new Map<string, AtlasClusterState>();
  /** Deleted clusters whose snapshots were kept (`retainBackups=true`): listed with `includeDeletedWithRetainedBackups`. */
  const retained = new Map<string, AtlasClusterState>();
  const snapshots: AtlasSnapshotState[] = [];
  const users = new Map<string, AtlasUserState>();
  const restoreJobs = new Map<string, { id: string; cluster: string; snapshotId: string; target: string; until: number; created: string }>();
  const tokens = new Map<string, number>();
  let issued = 0;
  let violations: string[] = [];

  /** Moves clusters along: CREATING/UPDATING end in IDLE, DELETING in nothing; restores apply. */
  function advance(): void {
    const now = Date.now();
    for (const c of [...clusters.values()]) {
      if (c.state === 'IDLE' || now < c.until) continue;
      if (c.state === 'DELETING') {
        clusters.delete(c.name);
        if (snapshots.some((s) => s.cluster === c.name)) retained.set(c.name, c);
      } else c.state = 'IDLE';
    }
  }

  function page(items: Json[], query: DoubleRequest['query'], path: string): Json {
    const pageNum = Math.max(1, Number(query['pageNum'] ?? 1));
    const per = Math.min(pageSize, Math.max(1, Number(query['itemsPerPage'] ?? 100)));
    const slice = items.slice((pageNum - 1) * per, pageNum * per);
    const base = `https://cloud.mongodb.com${path}`;
    const links = [{ rel: 'self', href: `${base}?pageNum=${pageNum}&itemsPerPage=${per}` }];
    if (pageNum * per < items.length) links.push({ rel: 'next', href: `${base}?pageNum=${pageNum + 1}&itemsPerPage=${per}` });
    if (pageNum > 1) links.push({ rel: 'previous', href: `${base}?pageNum=${pageNum - 1}&itemsPerPage=${per}` });
    return { links, results: slice, totalCount: items.length };
  }

  function renderCluster(c: AtlasClusterState): Json {
    return {
      id: c.id, groupId: ATLAS_PROJECT_ID, name: c.name, clusterType: 'REPLICASET', stateName: c.state, createDate: c.created, backupEnabled: true, paused: false,
      mongoDBMajorVersion: c.version, mongoDBVersion: `${c.version}.3`, tags: c.tags, versionReleaseSystem: 'LTS',
      connectionStrings: c.state === 'CREATING' ? {} : { standard: `mongodb://${c.name}-shard-00-00.${c.host}:27017,${c.name}-shard-00-01.${c.host}:27017,${c.name}-shard-00-02.${c.host}:27017/?ssl=true`, standardSrv: `mongodb+srv://${c.name}.${c.host}` },
      replicationSpecs: [{
        id: c.id, zoneId: c.id, zoneName: 'Zone 1',
        regionConfigs: [{ providerName: c.provider, regionName: c.region, priority: 7, electableSpecs: { instanceSize: c.instanceSize, nodeCount: c.nodeCount, diskSizeGB: c.diskSizeGB } }],
      }],
    };
  }

  function renderSnapshot(s: AtlasSnapshotState): Json {
    const done = Date.now() >= s.until;
    return {
      id: s.id, type: 'replicaSet', snapshotType: 'onDemand', cloudProvider: clusters.get(s.cluster)?.provider ?? 'AWS', replicaSetName: s.cluster, description: s.description,
      createdAt: s.created, status: done ? 'completed' : 'inProgress', storageSizeBytes: done ? 1_048_576 : 0, mongodVersion: '7.0.3', frequencyType: 'hourly',
    };
  }

  const notFound = (what: string): DoubleAnswer => ({ status: 404, body: error(404, what === 'cluster' ? 'CLUSTER_NOT_FOUND' : 'RESOURCE_NOT_FOUND', `No ${what} found.`) });
  const project = (request: DoubleRequest): DoubleAnswer | null => (request.params['groupId'] === ATLAS_PROJECT_ID ? null : { status: 404, body: error(404, 'GROUP_NOT_FOUND', `No group with ID ${request.params['groupId']} exists.`) });

  /** A request of the wrong media type version is recorded (Atlas would answer another version's shape, or 406). */
  function versioned(handler: (request: DoubleRequest) => DoubleAnswer): (request: DoubleRequest) => DoubleAnswer {
    return (request) => {
      const type = mediaTypes.get(request.operationId);
      const accept = String(request.headers.accept ?? '');
      if (type !== undefined && accept !== type) violations.push(`${request.operationId}: Accept "${accept}", the document's version is "${type}"`);
      if (type !== undefined && request.body !== undefined && String(request.headers['content-type'] ?? '') !== type) {
        violations.push(`${request.operationId}: Content-Type "${String(request.headers['content-type'])}", the document's version is "${type}"`);
      }
      advance();
      return project(request) ?? handler(request);
    };
  }

  function clusterOf(request: DoubleRequest): AtlasClusterState | undefined {
    return clusters.get(request.params['clusterName'] ?? '');
  }

  function token(text: string, headers: Record<string, string | string[] | undefined>): DoubleAnswer {
    const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' } };
    if (headers['authorization'] !== expected) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid client credentials.' } };
    const value = `atlas-${randomBytes(16).toString('hex')}`;
    tokens.set(value, Date.now() + (options.tokenLifetimeS ?? 3600) * 1000);
    issued++;
    return { status: 200, body: { access_token: value, token_type: 'Bearer', expires_in: options.tokenLifetimeS ?? 3600 } };
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    amendDocument: atlasDocumentAsServed,
    outsideDocument: { 'POST /api/oauth/token': (text, headers) => token(text, headers) },
    authenticate(headers) {
      const value = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      const until = value === undefined ? undefined : tokens.get(value);
      return until !== undefined && Date.now() < until ? null : { status: 401, body: error(401, 'NOT_ORG_GROUP_CREATOR', 'Current user is not authorized to perform this action.') };
    },
    handlers: () => ({
      getProject: versioned(() => ({ status: 200, body: { id: ATLAS_PROJECT_ID, name: 'cairn-test', orgId: '64b1f0c0ffee0ddba11c0de0', clusterCount: clusters.size, created: '2024-01-01T00:00:00Z' } })),
      listCloudProviderRegions: versioned((request) => {
        const results = Object.entries(OFFER).map(([provider, sizes]) => ({
          provider, instanceSizes: Object.entries(sizes).map(([name, regions]) => ({ name, availableRegions: regions.map((region, i) => ({ name: region, default: i === 0 })) })),
        }));
        return { status: 200, body: page(results, request.query, `/api/atlas/v2/groups/${ATLAS_PROJECT_ID}/clusters/provider/regions`) };
      }),
      listClusters: versioned((request) => {
        const listed = [...clusters.values(), ...(request.query['includeDeletedWithRetainedBackups'] === 'true' ? [...retained.values()].filter((c) => !clusters.has(c.name)) : [])];
        return { status: 200, body: page(listed.map(renderCluster), request.query, `/api/atlas/v2/groups/${ATLAS_PROJECT_ID}/clusters`) };
      }),
      getCluster: versioned((request) => {
        const c = clusterOf(request);
        return c ? { status: 200, body: renderCluster(c) } : notFound('cluster');
      }),
      createCluster: versioned((request) => {
        const body = request.body as Json;
        const name = text(body['name']);
        if (clusters.has(name)) return { status: 409, body: error(409, 'DUPLICATE_CLUSTER_NAME', `A cluster named ${name} is already present in group ${ATLAS_PROJECT_ID}.`) };
        const config = ((body['replicationSpecs'] as Json[] | undefined)?.[0]?.['regionConfigs'] as Json[] | undefined)?.[0];
        const electable = (config?.['electableSpecs'] ?? {}) as Json;
        const provider = text(config?.['providerName']);
        const region = text(config?.['regionName']);
        const size = text(electable['instanceSize']);
        if (!OFFER[provider]?.[size]?.includes(region)) return { status: 400, body: error(400, 'INVALID_REGION', `No region ${region} exists for provider ${provider} with instance size ${size}.`) };
        const c: AtlasClusterState = {
          id: hex24(), name, state: 'CREATING', until: Date.now() + actionMs, version: text(body['mongoDBMajorVersion'], '8.0'), provider, region, instanceSize: size,
          nodeCount: Number(electable['nodeCount'] ?? 3), diskSizeGB: Number(electable['diskSizeGB'] ?? 10), tags: (body['tags'] as AtlasClusterState['tags'] | undefined) ?? [],
          host: `${randomBytes(3).toString('hex').slice(0, 5)}.mongodb.net`, created: new Date().toISOString(), restoredFrom: [],
        };
        clusters.set(name, c);
        return { status: 201, body: renderCluster(c) };
      }),
      updateCluster: versioned((request) => {
        const c = clusterOf(request);
        if (!c) return notFound('cluster');
        const body = request.body as Json;
        if (body['tags'] !== undefined) c.tags = body['tags'] as AtlasClusterState['tags'];
        const electable = ((((body['replicationSpecs'] as Json[] | undefined)?.[0]?.['regionConfigs'] as Json[] | undefined)?.[0]?.['electableSpecs']) ?? undefined) as Json | undefined;
        let changes = false;
        if (electable?.['instanceSize'] !== undefined && electable['instanceSize'] !== c.instanceSize) {
          if (!OFFER[c.provider]?.[text(electable['instanceSize'])]?.includes(c.region)) return { status: 400, body: error(400, 'INVALID_INSTANCE_SIZE', `Instance size ${text(electable['instanceSize'])} is not available in ${c.region}.`) };
          c.instanceSize = text(electable['instanceSize']);
          changes = true;
        }
        if (electable?.['diskSizeGB'] !== undefined && electable['diskSizeGB'] !== c.diskSizeGB) {
          c.diskSizeGB = Number(electable['diskSizeGB']);
          changes = true;
        }
        if (body['mongoDBMajorVersion'] !== undefined && body['mongoDBMajorVersion'] !== c.version) {
          c.version = text(body['mongoDBMajorVersion']);
          changes = true;
        }
        if (changes) {
          c.state = 'UPDATING';
          c.until = Date.now() + actionMs;
        }
        return { status: 200, body: renderCluster(c) };
      }),
      deleteCluster: versioned((request) => {
        const c = clusterOf(request);
        if (!c || c.state === 'DELETING') return notFound('cluster');
        c.state = 'DELETING';
        c.until = Date.now() + actionMs;
        if (request.query['retainBackups'] !== 'true') for (let i = snapshots.length - 1; i >= 0; i--) if (snapshots[i]?.cluster === c.name) snapshots.splice(i, 1);
        return { status: 202 };
      }),
      createDatabaseUser: versioned((request) => {
        const body = request.body as Json;
        const username = text(body['username']);
        if (users.has(username)) return { status: 409, body: error(409, 'USER_ALREADY_EXISTS', `The user ${username} already exists.`) };
        const user = { username, password: text(body['password']), roles: (body['roles'] as Json[] | undefined) ?? [], scopes: (body['scopes'] as Json[] | undefined) ?? [] };
        users.set(username, user);
        return { status: 201, body: { databaseName: 'admin', groupId: ATLAS_PROJECT_ID, username, roles: user.roles, scopes: user.scopes } };
      }),
      getDatabaseUser: versioned((request) => {
        const user = users.get(request.params['username'] ?? '');
        return user ? { status: 200, body: { databaseName: 'admin', groupId: ATLAS_PROJECT_ID, username: user.username, roles: user.roles, scopes: user.scopes } } : { status: 404, body: error(404, 'USERNAME_NOT_FOUND', `No user with username ${request.params['username']} exists.`) };
      }),
      updateDatabaseUser: versioned((request) => {
        const user = users.get(request.params['username'] ?? '');
        if (!user) return { status: 404, body: error(404, 'USERNAME_NOT_FOUND', `No user with username ${request.params['username']} exists.`) };
        const body = request.body as Json;
        if (typeof body['password'] === 'string') user.password = body['password'];
        return { status: 200, body: { databaseName: 'admin', groupId: ATLAS_PROJECT_ID, username: user.username, roles: user.roles, scopes: user.scopes } };
      }),
      takeSnapshot: versioned((request) => {
        const c = clusterOf(request);
        if (!c || c.state === 'DELETING') return notFound('cluster');
        if (c.state === 'CREATING') return { status: 409, body: error(409, 'CLUSTER_NOT_READY', `Cluster ${c.name} is still being created.`) };
        const s = { id: hex24(), cluster: c.name, description: text((request.body as Json)['description']), created: new Date().toISOString(), until: Date.now() + actionMs };
        snapshots.push(s);
        return { status: 200, body: renderSnapshot(s) };
      }),
      listReplicaSetBackups: versioned((request) => {
        const name = request.params['clusterName'] ?? '';
        const mine = snapshots.filter((s) => s.cluster === name);
        if (!clusters.has(name) && mine.length === 0) return notFound('cluster');
        return { status: 200, body: page(mine.map(renderSnapshot), request.query, `/api/atlas/v2/groups/${ATLAS_PROJECT_ID}/clusters/${name}/backup/snapshots`) };
      }),
      getReplicaSetBackup: versioned((request) => {
        const s = snapshots.find((x) => x.id === request.params['snapshotId'] && x.cluster === request.params['clusterName']);
        return s ? { status: 200, body: renderSnapshot(s) } : notFound('snapshot');
      }),
      deleteReplicaSetBackup: versioned((request) => {
        const at = snapshots.findIndex((x) => x.id === request.params['snapshotId'] && x.cluster === request.params['clusterName']);
        if (at < 0) return notFound('snapshot');
        snapshots.splice(at, 1);
        return { status: 204 };
      }),
      createBackupRestoreJob: versioned((request) => {
        const body = request.body as Json;
        const s = snapshots.find((x) => x.id === body['snapshotId'] && x.cluster === request.params['clusterName']);
        const target = clusters.get(text(body['targetClusterName']));
        if (!s) return notFound('snapshot');
        if (!target) return notFound('cluster');
        const job = { id: hex24(), cluster: s.cluster, snapshotId: s.id, target: target.name, until: Date.now() + actionMs, created: new Date().toISOString() };
        restoreJobs.set(job.id, job);
        target.restoredFrom.push(s.id);
        return { status: 200, body: { id: job.id, deliveryType: 'automated', snapshotId: s.id, targetClusterName: target.name, targetGroupId: ATLAS_PROJECT_ID, timestamp: job.created, cancelled: false, expired: false, failed: false } };
      }),
      getBackupRestoreJob: versioned((request) => {
        const job = restoreJobs.get(request.params['restoreJobId'] ?? '');
        if (!job || job.cluster !== request.params['clusterName']) return notFound('restore job');
        const done = Date.now() >= job.until;
        return {
          status: 200,
          body: { id: job.id, deliveryType: 'automated', snapshotId: job.snapshotId, targetClusterName: job.target, targetGroupId: ATLAS_PROJECT_ID, timestamp: job.created, cancelled: false, expired: false, failed: false, ...(done ? { finishedAt: new Date(job.until).toISOString() } : {}) },
        };
      }),
    }),
  });
  violations = double.violations;
  return {
    ...double,
    projectId: ATLAS_PROJECT_ID,
    clientId,
    clientSecret,
    clusters: () => {
      advance();
      return [...clusters.values()];
    },
    snapshots: () => [...snapshots],
    users: () => [...users.values()],
    tokensIssued: () => issued,
  };
}
