/**
 * @module A stateful double of Scaleway's Managed Database API (RDB v1) on loopback, for the
 * scaleway managed database driver's tests: Database Instances per region in one project (tags
 * and the `tags` filter, `project_id` filter, paging by `page`/`page_size` with `total_count`),
 * created `provisioning` and `ready` after `actionMs`, `UpgradeInstance` (node type, volume
 * size) passing through `configuring` for `actionMs`, the user's password kept as sent (create
 * and `UpdateUser`) and checked against Scaleway's rule, engines and node types per region,
 * Scaleway's error shape `{ type, message, ... }` (401 denied_authentication, 403
 * permissions_denied for another project, 404 not_found, 400 invalid_argument), the secret key in
 * `X-Auth-Token`, and its limit as 429s. Every request and answer is checked against Scaleway's
 * RDB document (test/vendor-apis/scaleway/scaleway.rdb.v1.Api.yml).
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';
import { SCALEWAY_TEST_PROJECT } from './scaleway.js';

const DOCUMENT = vendorDocument('scaleway', 'scaleway.rdb.v1.Api.yml');

const GB = 1_000_000_000;
const GIB = 1024 ** 3;

/** Node types: name, vcpus, memory GiB, regions. */
const NODE_TYPES: Array<[string, number, number, string[]]> = [
  ['DB-DEV-S', 2, 2, ['fr-par', 'nl-ams', 'pl-waw']],
  ['DB-DEV-M', 3, 4, ['fr-par', 'nl-ams', 'pl-waw']],
  ['DB-GP-XS', 4, 16, ['fr-par', 'nl-ams']],
  ['DB-PLAY2-PICO', 1, 2, ['fr-par']],
];

const POSTGRES_VERSIONS = ['14', '15', '16'];

export interface ScalewayRdbDoubleOptions extends CommonDoubleOptions {
  projectId?: string;
  /** The most items a page holds whatever `page_size` asks; small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type Status = 'provisioning' | 'ready' | 'configuring';

interface InstanceState {
  id: string;
  region: string;
  name: string;
  tags: string[];
  engine: string;
  nodeType: string;
  volumeBytes: number;
  userName: string;
  password: string;
  status: Status;
  ready: number;
  ip: string;
  created: string;
}

export interface ScalewayRdbDouble extends VendorDouble {
  instances(): Array<Omit<InstanceState, 'ready' | 'created'>>;
}

function error(status: number, code: string, message: string): Json {
  return { type: code, message };
}

function paged<T>(items: T[], query: DoubleRequest['query'], maxPerPage: number): T[] {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query['page_size'] ?? 20)));
  const page = Math.max(1, Number(query['page'] ?? 1));
  return items.slice((page - 1) * perPage, page * perPage);
}

const PASSWORD_RULE = (p: string): boolean => p.length >= 8 && p.length <= 128 && /[0-9]/.test(p) && /[A-Z]/.test(p) && /[a-z]/.test(p) && /[^0-9A-Za-z]/.test(p);

export async function startScalewayRdbDouble(options: ScalewayRdbDoubleOptions = {}): Promise<ScalewayRdbDouble> {
  const token = options.token ?? 'scaleway-test-token';
  const project = options.projectId ?? SCALEWAY_TEST_PROJECT;
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 100;
  const instances = new Map<string, InstanceState>();
  let serial = 10;

  function advance(): void {
    const now = Date.now();
    for (const i of instances.values()) if (i.status !== 'ready' && now >= i.ready) i.status = 'ready';
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers['x-auth-token'] === token ? null : { status: 401, body: { type: 'denied_authentication', message: 'authentication is denied', method: 'api_key', reason: 'invalid_argument' } };
    },
    handlers() {
      const invalid = (argument: string, help: string): DoubleAnswer => ({ status: 400, body: { type: 'invalid_arguments', message: 'invalid argument(s)', details: [{ argument_name: argument, reason: 'constraint', help_message: help }] } });
      const denied = (): DoubleAnswer => ({ status: 403, body: { type: 'permissions_denied', message: 'insufficient permissions', details: [{ resource: 'rdb_instance', action: 'read' }] } });

      function render(i: InstanceState): Json {
        return {
          created_at: i.created, volume: { type: 'lssd', size: i.volumeBytes, class: 'lssd' }, region: i.region, id: i.id, name: i.name, organization_id: project, project_id: project,
          status: i.status, engine: i.engine, upgradable_version: [], tags: i.tags, settings: [], backup_schedule: { frequency: 24, retention: 7, disabled: false, next_run_at: null },
          is_ha_cluster: false, read_replicas: [], node_type: i.nodeType, init_settings: [],
          endpoints: i.status === 'provisioning' ? [] : [{ id: `ep-${i.id}`, ip: i.ip, port: 5432, name: null, load_balancer: {}, hostname: null }],
          backup_same_region: false, maintenances: [], encryption: { enabled: false },
        };
      }

      function instance(request: DoubleRequest): InstanceState | DoubleAnswer {
        advance();
        const found = instances.get(request.params['instance_id'] ?? '');
        if (!found || found.region !== request.params['region']) return { status: 404, body: { type: 'not_found', message: 'resource is not found', resource: 'instance', resource_id: request.params['instance_id'] ?? '' } };
        return found;
      }

      return {
        ListDatabaseEngines(r) {
          const region = r.params['region'] ?? '';
          const versions = POSTGRES_VERSIONS.map((v) => ({ version: v, name: `PostgreSQL-${v}`, end_of_life: null, available_settings: [], disabled: false, beta: false, available_init_settings: [] }));
          const engines = [
            { name: 'PostgreSQL', logo_url: 'https://example.invalid/pg.svg', versions, region },
            { name: 'MySQL', logo_url: 'https://example.invalid/mysql.svg', versions: [{ version: '8', name: 'MySQL-8', end_of_life: null, available_settings: [], disabled: false, beta: false, available_init_settings: [] }], region },
          ];
          return { status: 200, body: { engines: paged(engines, r.query, maxPerPage), total_count: engines.length } };
        },
        ListNodeTypes(r) {
          const region = r.params['region'] ?? '';
          const here = NODE_TYPES.filter(([, , , regions]) => regions.includes(region)).map(([name, vcpus, memory]) => ({
            name, stock_status: 'available', description: name, vcpus, memory: memory * GIB, disabled: false, beta: false, available_volume_types: [], is_ha_required: false, generation: 'generation_v1', instance_range: 'development', region,
          }));
          return { status: 200, body: { node_types: paged(here, r.query, maxPerPage), total_count: here.length } };
        },
        ListInstances(r) {
          advance();
          if (r.query['project_id'] !== undefined && r.query['project_id'] !== project) return denied();
          const raw = r.query['tags'];
          const wanted = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
          const all = [...instances.values()].filter((i) => i.region === r.params['region'] && wanted.every((t) => i.tags.includes(t)));
          return { status: 200, body: { instances: paged(all, r.query, maxPerPage).map(render), total_count: all.length } };
        },
        CreateInstance(r) {
          const body = r.body as { project_id?: string; name?: string; engine?: string; user_name: string; password: string; node_type: string; tags?: string[]; volume_size?: number };
          const region = r.params['region'] ?? '';
          if (body.project_id !== project) return denied();
          const type = NODE_TYPES.find(([name, , , regions]) => name === body.node_type && regions.includes(region));
          if (!type) return invalid('node_type', `${body.node_type} is not available in ${region}`);
          if (!POSTGRES_VERSIONS.some((v) => `PostgreSQL-${v}` === body.engine)) return invalid('engine', `${body.engine ?? ''} is not available`);
          if (!PASSWORD_RULE(body.password)) return invalid('password', 'password must be between 8 and 128 characters, contain at least one digit, one uppercase, one lowercase and one special character');
          const created: InstanceState = {
            id: randomUUID(), region, name: body.name ?? '', tags: [...(body.tags ?? [])], engine: body.engine ?? '', nodeType: type[0], volumeBytes: body.volume_size ?? 5 * GB,
            userName: body.user_name, password: body.password, status: 'provisioning', ready: Date.now() + actionMs, ip: `51.159.${Math.floor(serial / 250)}.${serial++ % 250}`, created: new Date().toISOString(),
          };
          instances.set(created.id, created);
          return { status: 200, body: render(created) };
        },
        GetInstance(r) {
          const i = instance(r);
          return 'id' in i ? { status: 200, body: render(i) } : i;
        },
        DeleteInstance(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          instances.delete(i.id);
          return { status: 200, body: { ...render(i), status: 'deleting' } };
        },
        UpgradeInstance(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          if (i.status !== 'ready') return { status: 409, body: { type: 'transient_state', message: `resource rdb_instance with id ${i.id} is in a transient state: ${i.status}`, resource: 'rdb_instance', resource_id: i.id, current_state: i.status } };
          const body = r.body as { node_type?: string; volume_size?: number };
          if (body.node_type !== undefined) {
            const type = NODE_TYPES.find(([name, , , regions]) => name === body.node_type && regions.includes(i.region));
            if (!type) return invalid('node_type', `${body.node_type} is not available in ${i.region}`);
            i.nodeType = type[0];
          } else if (body.volume_size !== undefined) {
            if (body.volume_size < i.volumeBytes) return invalid('volume_size', 'a volume cannot shrink');
            i.volumeBytes = body.volume_size;
          } else {
            return invalid('node_type', 'this double upgrades node_type or volume_size only');
          }
          i.status = 'configuring';
          i.ready = Date.now() + actionMs;
          return { status: 200, body: render(i) };
        },
        UpdateUser(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          if (r.params['name'] !== i.userName) return { status: 404, body: { type: 'not_found', message: 'resource is not found', resource: 'user', resource_id: r.params['name'] ?? '' } };
          const body = r.body as { password?: string };
          if (body.password !== undefined) {
            if (!PASSWORD_RULE(body.password)) return invalid('password', 'password does not meet the rule');
            i.password = body.password;
          }
          return { status: 200, body: { name: i.userName, is_admin: true } };
        },
      };
    },
  });
  return {
    ...double,
    instances: () => {
      advance();
      return [...instances.values()].map(({ ready: _ready, created: _created, ...rest }) => rest);
    },
  };
}

/**
 * One loopback address in front of the Instance double and the RDB double, as
 * https://api.scaleway.com serves both APIs: `/rdb/...` goes to the RDB double, everything else to
 * the Instance one (where cairn tests a Provider's credentials). Bodies and headers pass unchanged.
 */
export async function startScalewayFront(instanceUrl: string, rdbUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    const target = new URL(request.url ?? '/', request.url?.startsWith('/rdb/') ? rdbUrl : instanceUrl);
    const outbound = httpRequest(target, { method: request.method, headers: { ...request.headers, host: target.host } }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    outbound.on('error', (cause) => response.writeHead(502).end(String(cause)));
    request.pipe(outbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
