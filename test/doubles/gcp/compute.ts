/**
 * @module The double's Compute Engine: zones, machine types, instances and zone operations of one
 * project, by method id (`compute.instances.insert`, ...), as Google answers them: changes are
 * long-running Operations (PENDING → RUNNING → DONE after `actionMs`, their effect applied when
 * done), an insert's `requestId` answers a repeat with the first operation, an instance name is
 * unique in its zone (409 `alreadyExists`), a machine type changes only while the instance is
 * TERMINATED, lists page by `maxResults`/`pageToken` (at most `maxPerPage` a page), aggregated
 * lists answer by scope (`zones/<zone>`) and take a `labels.<key> = "<value>"` filter. Errors
 * are Google's `{ error: { code, message, status, errors: [{ reason, domain, message }] } }`.
 */
import { randomInt } from 'node:crypto';

export type Json = Record<string, unknown>;

export interface ComputeAnswer {
  status: number;
  body: Json;
}

export interface ComputeRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

const CANONICAL: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ALREADY_EXISTS', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/** Google's error body. */
export function googleError(code: number, reason: string, message: string, domain = 'global'): ComputeAnswer {
  return { status: code, body: { error: { code, message, status: CANONICAL[code] ?? 'UNKNOWN', errors: [{ message, domain, reason }] } } };
}

/** Zones: name, region, status. */
export const ZONES: Array<[string, string, 'UP' | 'DOWN']> = [
  ['europe-west1-b', 'europe-west1', 'UP'], ['europe-west1-c', 'europe-west1', 'UP'], ['europe-west1-d', 'europe-west1', 'UP'],
  ['europe-west4-a', 'europe-west4', 'UP'], ['us-central1-a', 'us-central1', 'UP'], ['us-central1-b', 'us-central1', 'UP'],
  ['us-east1-b', 'us-east1', 'DOWN'], ['asia-northeast1-a', 'asia-northeast1', 'UP'],
];
const ALL_ZONES = ZONES.map(([z]) => z);

/** Machine types: name, vCPUs, memory MB, zones. */
export const MACHINE_TYPES: Array<[string, number, number, string[]]> = [
  ['e2-micro', 2, 1024, ALL_ZONES], ['e2-small', 2, 2048, ALL_ZONES], ['e2-medium', 2, 4096, ALL_ZONES],
  ['e2-standard-2', 2, 8192, ALL_ZONES], ['n2-standard-2', 2, 8192, ['europe-west1-b', 'europe-west1-c', 'us-central1-a']],
  ['c3-standard-4', 4, 16384, ['europe-west4-a', 'us-central1-a']],
];

/** Public image families the double knows, by project. */
const IMAGES: Record<string, string[]> = { 'debian-cloud': ['debian-12', 'debian-11'], 'ubuntu-os-cloud': ['ubuntu-2404-lts-amd64', 'ubuntu-2204-lts'], 'rocky-linux-cloud': ['rocky-linux-9'] };

type InstanceStatus = 'PROVISIONING' | 'STAGING' | 'RUNNING' | 'STOPPING' | 'TERMINATED';

export interface InstanceState {
  id: string;
  name: string;
  zone: string;
  machineType: string;
  status: InstanceStatus;
  labels: Record<string, string>;
  metadata: Array<{ key: string; value: string }>;
  created: string;
  ip: string;
  sourceImage: string;
  /** The `user-data` metadata item it was created with, or null. */
  userData: string | null;
}

interface OperationState {
  id: string;
  name: string;
  zone: string;
  type: string;
  target: string;
  inserted: string;
  doneAt: number;
  done: boolean;
  effect: () => void;
  error?: { code: string; message: string };
}

export interface ComputeOptions {
  project: string;
  actionMs: number;
  maxPerPage: number;
}

const NAME = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

export class ComputeState {
  readonly instances = new Map<string, InstanceState>();
  private readonly operations = new Map<string, OperationState>();
  private readonly byRequestId = new Map<string, string>();
  private serial = 10;
  private readonly base: string;

  constructor(private readonly options: ComputeOptions) {
    this.base = `https://www.googleapis.com/compute/v1/projects/${options.project}`;
  }

  /** Ends the operations whose time has come, applying their effects in order. */
  advance(): void {
    const now = Date.now();
    for (const op of [...this.operations.values()].sort((a, b) => a.doneAt - b.doneAt)) {
      if (!op.done && now >= op.doneAt) {
        op.done = true;
        op.effect();
      }
    }
  }

  private page<T>(items: T[], query: URLSearchParams): { slice: T[]; next: string | undefined } | ComputeAnswer {
    const asked = Number(query.get('maxResults') ?? 500);
    const size = Math.min(this.options.maxPerPage, Math.max(1, asked));
    const token = query.get('pageToken');
    const start = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString('utf8').replace(/^page:/, ''));
    if (!Number.isInteger(start) || start < 0) return googleError(400, 'invalid', 'Invalid value for field \'pageToken\'.');
    const end = start + size;
    return { slice: items.slice(start, end), next: end < items.length ? Buffer.from(`page:${end}`).toString('base64url') : undefined };
  }

  private zoneUrl(zone: string): string {
    return `${this.base}/zones/${zone}`;
  }

  private renderZone([name, region, status]: (typeof ZONES)[number]): Json {
    return { kind: 'compute#zone', id: String(2000 + ZONES.findIndex(([z]) => z === name)), creationTimestamp: '1969-12-31T16:00:00.000-08:00', name, description: name, status, region: `${this.base}/regions/${region}`, selfLink: this.zoneUrl(name), availableCpuPlatforms: ['Intel Broadwell', 'AMD Milan'], supportsPzs: false };
  }

  private renderMachineType([name, cpus, memory]: (typeof MACHINE_TYPES)[number], zone: string): Json {
    return { kind: 'compute#machineType', id: String(1000 + MACHINE_TYPES.findIndex(([n]) => n === name)), creationTimestamp: '1969-12-31T16:00:00.000-08:00', name, description: `${cpus} vCPUs, ${memory / 1024} GB RAM`, guestCpus: cpus, memoryMb: memory, imageSpaceGb: 0, maximumPersistentDisks: 128, maximumPersistentDisksSizeGb: '263168', zone, selfLink: `${this.zoneUrl(zone)}/machineTypes/${name}`, isSharedCpu: name.startsWith('e2-micro') };
  }

  renderInstance(i: InstanceState): Json {
    this.advance();
    const ready = i.status === 'RUNNING';
    return {
      kind: 'compute#instance', id: i.id, creationTimestamp: i.created, name: i.name, zone: this.zoneUrl(i.zone),
      machineType: `${this.zoneUrl(i.zone)}/machineTypes/${i.machineType}`, status: i.status, labels: i.labels, labelFingerprint: 'qHUT2EqWbb0=',
      metadata: { kind: 'compute#metadata', fingerprint: 'sKM5fD0hXlQ=', items: i.metadata },
      disks: [{ kind: 'compute#attachedDisk', type: 'PERSISTENT', mode: 'READ_WRITE', source: `${this.zoneUrl(i.zone)}/disks/${i.name}`, deviceName: 'persistent-disk-0', index: 0, boot: true, autoDelete: true, interface: 'SCSI', diskSizeGb: '20' }],
      networkInterfaces: [{ kind: 'compute#networkInterface', network: `${this.base}/global/networks/default`, networkIP: `10.132.0.${Number(i.id) % 250}`, name: 'nic0', accessConfigs: ready ? [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', natIP: i.ip, networkTier: 'PREMIUM' }] : [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }] }],
      selfLink: `${this.zoneUrl(i.zone)}/instances/${i.name}`, cpuPlatform: 'AMD Milan', startRestricted: false, deletionProtection: false,
    };
  }

  private renderOperation(op: OperationState): Json {
    this.advance();
    const status = op.done ? 'DONE' : 'RUNNING';
    return {
      kind: 'compute#operation', id: op.id, name: op.name, zone: this.zoneUrl(op.zone), operationType: op.type, targetLink: op.target, targetId: op.id,
      status, user: 'cairn@double.iam.gserviceaccount.com', progress: op.done ? 100 : 0, insertTime: op.inserted, startTime: op.inserted,
      selfLink: `${this.zoneUrl(op.zone)}/operations/${op.name}`,
      ...(op.done ? { endTime: new Date().toISOString() } : {}),
      ...(op.done && op.error ? { error: { errors: [op.error] }, httpErrorStatusCode: 400, httpErrorMessage: 'BAD REQUEST' } : {}),
    };
  }

  private operation(zone: string, type: string, target: string, effect: () => void, afterMs = this.options.actionMs): OperationState {
    const name = `operation-${Date.now()}-${randomInt(1e9).toString(16)}`;
    const op: OperationState = { id: String(randomInt(1e12)), name, zone, type, target, inserted: new Date().toISOString(), doneAt: Date.now() + afterMs, done: false, effect };
    this.operations.set(name, op);
    return op;
  }

  private instance(params: Record<string, string>): InstanceState | ComputeAnswer {
    this.advance();
    const found = this.instances.get(`${params['zone']}/${params['instance']}`);
    if (found) return found;
    return googleError(404, 'notFound', `The resource 'projects/${this.options.project}/zones/${params['zone']}/instances/${params['instance']}' was not found`);
  }

  private zoneProblem(zone: string | undefined): ComputeAnswer | undefined {
    if (!ZONES.some(([z]) => z === zone)) return googleError(400, 'invalid', `Invalid value for field 'zone': '${zone}'. Unknown zone.`);
    return undefined;
  }

  private typeIn(machineType: string, zone: string): (typeof MACHINE_TYPES)[number] | undefined {
    const name = machineType.split('/').pop() ?? '';
    return MACHINE_TYPES.find(([n, , , zones]) => n === name && zones.includes(zone));
  }

  /** `labels.<key> = "<value>"` (quotes and spaces optional): the only filter the double reads. */
  private filterOf(query: URLSearchParams): ((i: InstanceState) => boolean) | ComputeAnswer {
    const filter = query.get('filter');
    if (filter === null || filter.trim() === '') return () => true;
    const found = /^\s*labels\.([a-z][-_a-z0-9]*)\s*=\s*"?([-_a-z0-9]*)"?\s*$/.exec(filter);
    if (!found) return googleError(400, 'invalid', `Invalid value for field 'filter': '${filter}'. Invalid list filter expression.`);
    return (i) => i.labels[found[1] ?? ''] === found[2];
  }

  private aggregated(key: string, kind: string, query: URLSearchParams, total: Array<[string, Json]>): ComputeAnswer {
    const page = this.page(total, query);
    if ('status' in page) return page;
    const items: Record<string, Json> = {};
    for (const [zone] of ZONES) items[`zones/${zone}`] = { warning: { code: 'NO_RESULTS_ON_PAGE', message: `There are no results for scope 'zones/${zone}' on this page.`, data: [{ key: 'scope', value: `zones/${zone}` }] } };
    for (const [zone, item] of page.slice) {
      const scope = items[`zones/${zone}`];
      if (scope && 'warning' in scope) items[`zones/${zone}`] = { [key]: [] };
      (items[`zones/${zone}`]?.[key] as Json[]).push(item);
    }
    return { status: 200, body: { kind, id: `projects/${this.options.project}/aggregated/${key}`, items, selfLink: `${this.base}/aggregated/${key}`, ...(page.next ? { nextPageToken: page.next } : {}) } };
  }

  /** The handlers, by discovery method id. */
  handlers(): Record<string, (r: ComputeRequest) => ComputeAnswer> {
    return {
      'compute.zones.list': (r) => {
        const page = this.page(ZONES, r.query);
        if ('status' in page) return page;
        return { status: 200, body: { kind: 'compute#zoneList', id: `projects/${this.options.project}/zones`, items: page.slice.map((z) => this.renderZone(z)), selfLink: `${this.base}/zones`, ...(page.next ? { nextPageToken: page.next } : {}) } };
      },
      'compute.machineTypes.aggregatedList': (r) => {
        const all: Array<[string, Json]> = MACHINE_TYPES.flatMap((t) => t[3].map((zone): [string, Json] => [zone, this.renderMachineType(t, zone)]));
        return this.aggregated('machineTypes', 'compute#machineTypeAggregatedList', r.query, all);
      },
      'compute.instances.aggregatedList': (r) => {
        this.advance();
        const keep = this.filterOf(r.query);
        if (typeof keep !== 'function') return keep;
        const all: Array<[string, Json]> = [...this.instances.values()].filter(keep).map((i) => [i.zone, this.renderInstance(i)]);
        return this.aggregated('instances', 'compute#instanceAggregatedList', r.query, all);
      },
      'compute.instances.get': (r) => {
        const i = this.instance(r.params);
        return 'name' in i ? { status: 200, body: this.renderInstance(i) } : i;
      },
      'compute.instances.insert': (r) => this.insert(r),
      'compute.instances.stop': (r) => this.change(r, 'stop', (i) => {
        if (i.status === 'TERMINATED') return undefined;
        i.status = 'STOPPING';
        return () => { i.status = 'TERMINATED'; };
      }),
      'compute.instances.start': (r) => this.change(r, 'start', (i) => {
        if (i.status === 'RUNNING') return undefined;
        if (i.status !== 'TERMINATED') return googleError(400, 'resourceNotReady', `The resource 'projects/${this.options.project}/zones/${i.zone}/instances/${i.name}' is not ready`);
        i.status = 'STAGING';
        return () => { i.status = 'RUNNING'; };
      }),
      'compute.instances.reset': (r) => this.change(r, 'reset', (i) => {
        if (i.status !== 'RUNNING') return googleError(400, 'resourceNotReady', `The resource 'projects/${this.options.project}/zones/${i.zone}/instances/${i.name}' is not ready`);
        return () => undefined;
      }),
      'compute.instances.setMachineType': (r) => this.change(r, 'setMachineType', (i) => {
        if (i.status !== 'TERMINATED') return googleError(400, 'invalid', `Instance '${i.name}' must be stopped (TERMINATED) to change its machine type.`);
        const body = r.body as { machineType?: string };
        const type = this.typeIn(body.machineType ?? '', i.zone);
        if (!type) return googleError(400, 'invalid', `Invalid value for field 'resource.machineType': '${body.machineType}'. Machine type does not exist in zone ${i.zone}.`);
        return () => { i.machineType = type[0]; };
      }),
      'compute.instances.delete': (r) => this.change(r, 'delete', (i) => {
        i.status = 'STOPPING';
        return () => { this.instances.delete(`${i.zone}/${i.name}`); };
      }),
      'compute.zoneOperations.get': (r) => {
        const op = this.operations.get(r.params['operation'] ?? '');
        if (!op || op.zone !== r.params['zone']) return googleError(404, 'notFound', `The resource 'projects/${this.options.project}/zones/${r.params['zone']}/operations/${r.params['operation']}' was not found`);
        return { status: 200, body: this.renderOperation(op) };
      },
    };
  }

  /** A change on one instance: `begin` refuses (an answer), does nothing (undefined: done at once), or returns the effect applied when its operation ends. */
  private change(r: ComputeRequest, type: string, begin: (i: InstanceState) => ComputeAnswer | (() => void) | undefined): ComputeAnswer {
    const i = this.instance(r.params);
    if (!('name' in i)) return i;
    const outcome = begin(i);
    if (outcome !== undefined && typeof outcome !== 'function') return outcome;
    const op = this.operation(i.zone, type, `${this.zoneUrl(i.zone)}/instances/${i.name}`, outcome ?? (() => undefined), outcome === undefined ? 0 : this.options.actionMs);
    return { status: 200, body: this.renderOperation(op) };
  }

  private insert(r: ComputeRequest): ComputeAnswer {
    this.advance();
    const zone = r.params['zone'] ?? '';
    const requestId = r.query.get('requestId');
    const earlier = requestId === null ? undefined : this.byRequestId.get(requestId);
    const earlierOp = earlier === undefined ? undefined : this.operations.get(earlier);
    if (earlierOp) return { status: 200, body: this.renderOperation(earlierOp) };
    const zoneProblem = this.zoneProblem(zone);
    if (zoneProblem) return zoneProblem;
    const body = r.body as { name?: string; machineType?: string; labels?: Record<string, string>; metadata?: { items?: Array<{ key: string; value: string }> }; disks?: Array<{ boot?: boolean; initializeParams?: { sourceImage?: string } }> };
    if (!body.name || !NAME.test(body.name)) return googleError(400, 'invalid', `Invalid value for field 'resource.name': '${body.name ?? ''}'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'`);
    const type = this.typeIn(body.machineType ?? '', zone);
    if (!type) return googleError(400, 'invalid', `Invalid value for field 'resource.machineType': '${body.machineType ?? ''}'. Machine type with name '${(body.machineType ?? '').split('/').pop() ?? ''}' does not exist in zone '${zone}'.`);
    const image = body.disks?.find((d) => d.boot)?.initializeParams?.sourceImage ?? '';
    const family = /^projects\/([^/]+)\/global\/images\/family\/([^/]+)$/.exec(image);
    if (!family || !IMAGES[family[1] ?? '']?.includes(family[2] ?? '')) return googleError(400, 'invalid', `Invalid value for field 'resource.disks[0].initializeParams.sourceImage': '${image}'. The referenced image resource cannot be found.`);
    const key = `${zone}/${body.name}`;
    if (this.instances.has(key)) return googleError(409, 'alreadyExists', `The resource 'projects/${this.options.project}/zones/${zone}/instances/${body.name}' already exists`);
    const metadata = body.metadata?.items ?? [];
    const created: InstanceState = {
      id: String(7_000_000_000_000_000_000n + BigInt(this.serial)), name: body.name, zone, machineType: type[0], status: 'PROVISIONING', labels: { ...body.labels }, metadata,
      created: new Date().toISOString(), ip: `34.76.0.${this.serial++ % 250}`, sourceImage: image, userData: metadata.find((m) => m.key === 'user-data')?.value ?? null,
    };
    this.instances.set(key, created);
    const op = this.operation(zone, 'insert', `${this.zoneUrl(zone)}/instances/${body.name}`, () => {
      if (created.status === 'PROVISIONING') created.status = 'RUNNING';
    });
    if (requestId !== null) this.byRequestId.set(requestId, op.name);
    return { status: 200, body: this.renderOperation(op) };
  }
}
