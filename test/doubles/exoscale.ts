/**
 * @module A stateful double of Exoscale's API v2 on loopback, for the exoscale driver's tests:
 * zones, instance types (family, size, memory in bytes, zones, authorised or not), public
 * templates, instances (labels, disk size, user data — kept decoded so a test sees what
 * arrived), and every change answered by an operation that ends after `actionMs` (create:
 * `starting` → `running`; stop: `stopping` → `stopped`; start; reboot; scale, refused unless
 * stopped; delete: `destroying`, then gone). Exoscale's lists are not paged. Errors are its
 * `{ message }`. Every request must carry a good EXO2-HMAC-SHA256 signature, checked here from
 * the rule in Exoscale's document (independently of the driver's signer): a wrong key, a wrong
 * signature or an expired one is refused with 403. One URL serves every zone. DBaaS PostgreSQL
 * services (named by the caller, the name their id): plans with their zones and disks in
 * `list-dbaas-service-types`, `rebuilding` for `actionMs` after a create, `rebalancing` for
 * `actionMs` after a plan change, the admin user made with the password the create gave (kept
 * so a test sees it), its password reset by an operation ending after `actionMs`, a delete that
 * is done at once; a second create of a name is refused (409). Every request
 * and answer is checked against Exoscale's document (test/vendor-apis/exoscale/source.yaml).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('exoscale', 'source.yaml');

export const EXOSCALE_ZONES = ['ch-gva-2', 'ch-dk-2', 'de-fra-1', 'de-muc-1', 'at-vie-1', 'at-vie-2', 'bg-sof-1', 'hr-zag-1'];
const ALL = EXOSCALE_ZONES;
const GIB = 1024 ** 3;

/** Instance types: id, family, size, cpus, memory bytes, authorised, zones. */
const TYPES: Array<[string, string, string, number, number, boolean, string[]]> = [
  ['b6d0c9d4-0000-4000-8000-000000000001', 'standard', 'micro', 1, GIB / 2, true, ALL],
  ['b6d0c9d4-0000-4000-8000-000000000002', 'standard', 'tiny', 1, GIB, true, ALL],
  ['b6d0c9d4-0000-4000-8000-000000000003', 'standard', 'small', 2, 2 * GIB, true, ALL],
  ['b6d0c9d4-0000-4000-8000-000000000004', 'standard', 'medium', 2, 4 * GIB, true, ALL],
  ['b6d0c9d4-0000-4000-8000-000000000005', 'cpu', 'large', 8, 8 * GIB, true, ['ch-gva-2', 'de-fra-1']],
  ['b6d0c9d4-0000-4000-8000-000000000006', 'gpu3', 'large', 12, 56 * GIB, false, ['ch-gva-2']],
];

/** Public templates: id, name, family. */
const TEMPLATES: Array<[string, string, string]> = [
  ['7e9a1c2b-0000-4000-8000-000000000012', 'Linux Debian 12 (Bookworm) 64-bit', 'debian'],
  ['7e9a1c2b-0000-4000-8000-000000000011', 'Linux Debian 11 (Bullseye) 64-bit', 'debian'],
  ['7e9a1c2b-0000-4000-8000-000000002404', 'Linux Ubuntu 24.04 LTS 64-bit', 'ubuntu'],
];

/** DBaaS PostgreSQL plans: name, disk GiB, zones (null: every zone), authorised. */
const PG_PLANS: Array<[string, number, string[] | null, boolean]> = [
  ['hobbyist-2', 8, null, true],
  ['startup-4', 80, null, true],
  ['business-8', 175, ['ch-gva-2', 'de-fra-1', 'at-vie-1'], true],
  ['premium-225', 2400, ['ch-gva-2'], false],
];
const PG_VERSIONS = ['13', '14', '15', '16', '17'];

export interface ExoscaleDoubleOptions extends CommonDoubleOptions {
  /** The API secret of the key `token`. */
  secret?: string;
}

type Json = Record<string, unknown>;
type State = 'starting' | 'running' | 'stopping' | 'stopped' | 'destroying';

interface InstanceState {
  id: string;
  name: string;
  labels: Record<string, string>;
  typeId: string;
  templateId: string;
  diskSize: number;
  userData: string | null;
  state: State;
  created: string;
  ip: string;
}

interface OperationState {
  id: string;
  instanceId: string;
  command: string;
  state: 'pending' | 'success' | 'failure';
  doneAt: number;
  /** What happens to the instance when the operation ends. */
  finish: () => void;
}

type ServiceState = 'rebuilding' | 'running' | 'rebalancing';

interface PgServiceState {
  name: string;
  plan: string;
  version: string;
  adminUser: string;
  password: string;
  terminationProtection: boolean;
  created: string;
  /** When what runs now (create, plan change) is done; the service is `running` from then. */
  readyAt: number;
  busy: ServiceState;
}

export interface ExoscaleDouble extends VendorDouble {
  /** The DBaaS PostgreSQL services, with the admin user's password as the double holds it. */
  pgServices(): Array<{ name: string; plan: string; version: string; state: ServiceState; adminUser: string; password: string; terminationProtection: boolean; host: string }>;
  /** What the double holds now, user data decoded (tests look at "the cloud" directly). */
  instances(): Array<{ id: string; name: string; labels: Record<string, string>; size: string; template: string; diskSize: number; userData: string | null; state: State }>;
}

function error(_status: number, _code: string, message: string): Json {
  return { message };
}

/** Checks an `Authorization` header against the request, by the rule of Exoscale's document; the refusal's message, or null. */
export function signatureProblem(header: string | undefined, apiKey: string, apiSecret: string, request: { method: string; url: URL; body: string }, nowS: number): string | null {
  const prefix = 'EXO2-HMAC-SHA256 ';
  if (!header?.startsWith(prefix)) return 'missing EXO2-HMAC-SHA256 authorization';
  const fields = new Map<string, string>();
  for (const part of header.slice(prefix.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1));
  }
  const credential = fields.get('credential');
  const expires = fields.get('expires');
  const signature = fields.get('signature');
  if (!credential || !expires || !signature) return 'malformed authorization: credential, expires and signature are required';
  if (credential !== apiKey) return 'invalid API key';
  if (!/^\d+$/.test(expires) || Number(expires) < nowS) return 'request signature has expired';
  const signedNames = fields.get('signed-query-args')?.split(';').filter((n) => n !== '') ?? [];
  const queryLine = signedNames.map((name) => request.url.searchParams.get(name) ?? '').join('');
  const message = `${request.method} ${request.url.pathname}\n${request.body}\n${queryLine}\n\n${expires}`;
  const expected = createHmac('sha256', apiSecret).update(message).digest();
  const given = Buffer.from(signature, 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid request signature';
  const unsigned = [...request.url.searchParams.keys()].filter((name) => !signedNames.includes(name));
  if (unsigned.length > 0) return `query parameters not signed: ${unsigned.join(', ')}`;
  return null;
}

export async function startExoscaleDouble(options: ExoscaleDoubleOptions = {}): Promise<ExoscaleDouble> {
  const apiKey = options.token ?? 'EXOtestkey';
  const apiSecret = options.secret ?? 'exoscale-test-secret';
  const actionMs = options.actionMs ?? 150;
  const instances = new Map<string, InstanceState>();
  const operations = new Map<string, OperationState>();
  const services = new Map<string, PgServiceState>();
  let serial = 10;
  const serviceState = (svc: PgServiceState): ServiceState => (Date.now() >= svc.readyAt ? 'running' : svc.busy);
  const hostOf = (svc: PgServiceState): string => `${svc.name}-exoscale-0f1e2d3c.a.aivencloud.com`;

  /** Ends the operations whose time has come. */
  function advance(): void {
    const now = Date.now();
    for (const op of operations.values()) {
      if (op.state === 'pending' && now >= op.doneAt) {
        op.state = 'success';
        op.finish();
      }
    }
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    basePath: '/v2',
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers, request) {
      const header = Array.isArray(headers.authorization) ? headers.authorization[0] : headers.authorization;
      const problem = signatureProblem(header, apiKey, apiSecret, request, Math.floor(Date.now() / 1000));
      return problem === null ? null : { status: 403, body: error(403, 'forbidden', problem) };
    },
    handlers() {
      const typeOf = (id: string): (typeof TYPES)[number] | undefined => TYPES.find(([t]) => t === id);
      const bad = (message: string): DoubleAnswer => ({ status: 400, body: error(400, 'bad_request', message) });
      const notFound = (what: string): DoubleAnswer => ({ status: 404, body: error(404, 'not_found', `${what} not found`) });

      function renderOperation(op: OperationState): Json {
        advance();
        if (op.command.includes('dbaas')) return { id: op.id, state: op.state, reference: { command: op.command } };
        return { id: op.id, state: op.state, reference: { id: op.instanceId, link: `/v2/instance/${op.instanceId}`, command: op.command } };
      }

      /** An operation on a DBaaS service, ending (with `finish`) after `ms`. */
      function serviceOperation(command: string, ms: number, finish: () => void): DoubleAnswer {
        const op: OperationState = { id: randomUUID(), instanceId: '', command, state: 'pending', doneAt: Date.now() + ms, finish };
        operations.set(op.id, op);
        return { status: 200, body: renderOperation(op) };
      }

      function renderService(svc: PgServiceState): Json {
        const host = hostOf(svc);
        const disk = PG_PLANS.find(([name]) => name === svc.plan)?.[1] ?? 0;
        return {
          name: svc.name, type: 'pg', plan: svc.plan, state: serviceState(svc), version: `${svc.version}.4`, 'node-count': 1, 'disk-size': disk * GIB,
          'termination-protection': svc.terminationProtection, 'created-at': svc.created, 'prometheus-uri': { host: `prometheus-${host}`, port: 9273 },
          uri: `postgres://${svc.adminUser}@${host}:21699/defaultdb?sslmode=require`,
          'uri-params': { host, port: '21699', user: svc.adminUser, dbname: 'defaultdb', sslmode: 'require' },
          users: [{ type: 'primary', username: svc.adminUser }],
          databases: ['defaultdb'],
          backups: serviceState(svc) === 'rebuilding' ? [] : [{ 'backup-name': `${svc.name}-backup-1`, 'backup-time': svc.created, 'data-size': 8_192 }],
        };
      }

      function service(request: DoubleRequest, param = 'name'): PgServiceState | DoubleAnswer {
        return services.get(request.params[param] ?? '') ?? notFound('service');
      }

      function operation(instance: InstanceState, command: string, finish: () => void): DoubleAnswer {
        const op: OperationState = { id: randomUUID(), instanceId: instance.id, command, state: 'pending', doneAt: Date.now() + actionMs, finish };
        operations.set(op.id, op);
        return { status: 200, body: renderOperation(op) };
      }

      function renderInstance(i: InstanceState): Json {
        const template = TEMPLATES.find(([t]) => t === i.templateId);
        return {
          id: i.id, name: i.name, state: i.state, labels: i.labels, 'instance-type': { id: i.typeId }, template: { id: i.templateId, ...(template ? { name: template[1] } : {}) },
          'disk-size': i.diskSize, 'created-at': i.created, 'public-ip': i.ip, 'mac-address': '06:00:00:00:00:01', 'security-groups': [], 'private-networks': [],
        };
      }

      function instance(request: DoubleRequest): InstanceState | DoubleAnswer {
        advance();
        return instances.get(request.params['id'] ?? '') ?? notFound('instance');
      }

      function change(request: DoubleRequest, from: State, during: State, to: State, command: string): DoubleAnswer {
        const i = instance(request);
        if (!('id' in i)) return i;
        if (i.state !== from) return bad(`instance is ${i.state}, it must be ${from} to ${command}`);
        i.state = during;
        return operation(i, command, () => {
          i.state = to;
        });
      }

      return {
        'list-zones': () => ({ status: 200, body: { zones: EXOSCALE_ZONES.map((name) => ({ name, 'api-endpoint': `https://api-${name}.exoscale.com/v2`, 'sos-endpoint': `https://sos-${name}.exo.io` })) } }),
        'list-instance-types': () => ({
          status: 200,
          body: { 'instance-types': TYPES.map(([id, family, size, cpus, memory, authorized, zones]) => ({ id, family, size, cpus, memory, authorized, zones })) },
        }),
        'list-templates': (r) => {
          if (r.query['visibility'] === 'private') return { status: 200, body: { templates: [] } };
          return { status: 200, body: { templates: TEMPLATES.map(([id, name, family]) => ({ id, name, family, visibility: 'public', 'default-user': family, 'boot-mode': 'uefi', zones: ALL })) } };
        },
        'list-instances'() {
          advance();
          return { status: 200, body: { instances: [...instances.values()].map(renderInstance) } };
        },
        'create-instance'(r) {
          const body = r.body as { name?: string; 'instance-type'?: { id?: string }; template?: { id?: string }; 'disk-size': number; labels?: Record<string, string>; 'user-data'?: string };
          const type = typeOf(body['instance-type']?.id ?? '');
          if (!type) return bad('invalid instance-type');
          if (!type[5]) return bad(`instance type ${type[1]}.${type[2]} needs authorisation`);
          if (!TEMPLATES.some(([t]) => t === body.template?.id)) return bad('invalid template');
          let userData: string | null = null;
          if (body['user-data'] !== undefined) {
            if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body['user-data'])) return bad('user-data must be base64 encoded');
            userData = Buffer.from(body['user-data'], 'base64').toString('utf8');
          }
          const created: InstanceState = {
            id: randomUUID(), name: body.name ?? `vm-${serial}`, labels: body.labels ?? {}, typeId: type[0], templateId: body.template?.id ?? '', diskSize: body['disk-size'],
            userData, state: 'starting', created: new Date().toISOString(), ip: `194.182.160.${serial++ % 250}`,
          };
          instances.set(created.id, created);
          return operation(created, 'create-instance', () => {
            created.state = 'running';
          });
        },
        'get-instance'(r) {
          const i = instance(r);
          return 'id' in i ? { status: 200, body: renderInstance(i) } : i;
        },
        'get-operation'(r) {
          advance();
          const op = operations.get(r.params['id'] ?? '');
          return op ? { status: 200, body: renderOperation(op) } : notFound('operation');
        },
        'start-instance': (r) => change(r, 'stopped', 'starting', 'running', 'start-instance'),
        'stop-instance': (r) => change(r, 'running', 'stopping', 'stopped', 'stop-instance'),
        'reboot-instance': (r) => change(r, 'running', 'starting', 'running', 'reboot-instance'),
        'scale-instance'(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          if (i.state !== 'stopped') return bad(`instance is ${i.state}, it must be stopped to be scaled`);
          const type = typeOf((r.body as { 'instance-type': { id?: string } })['instance-type'].id ?? '');
          if (!type || !type[5]) return bad('invalid instance-type');
          return operation(i, 'scale-instance', () => {
            i.typeId = type[0];
          });
        },
        'list-dbaas-service-types': () => ({
          status: 200,
          body: {
            'dbaas-service-types': [
              { name: 'mysql', 'available-versions': ['8'], 'default-version': '8', plans: [{ name: 'hobbyist-2', 'disk-space': 8 * GIB, authorized: true }] },
              {
                name: 'pg', description: 'PostgreSQL', 'available-versions': PG_VERSIONS, 'default-version': '16',
                plans: PG_PLANS.map(([name, disk, zones, authorized]) => ({ name, 'node-count': 1, 'node-cpu-count': 2, 'node-memory': 4 * GIB, 'disk-space': disk * GIB, authorized, ...(zones ? { zones } : {}) })),
              },
            ],
          },
        }),
        'create-dbaas-service-pg'(r) {
          const name = r.params['name'] ?? '';
          const body = r.body as { plan: string; version?: string; 'admin-username'?: string; 'admin-password'?: string; 'termination-protection'?: boolean };
          if (!/^[a-z][a-z0-9-]{0,62}$/.test(name)) return bad('invalid service name: lowercase letters, digits and dashes, a letter first');
          if (services.has(name)) return { status: 409, body: error(409, 'conflict', `service ${name} already exists`) };
          if (!PG_PLANS.some(([plan, , , authorized]) => plan === body.plan && authorized)) return bad(`invalid plan ${body.plan}`);
          const version = body.version ?? '16';
          if (!PG_VERSIONS.includes(version)) return bad(`invalid version ${version}`);
          const created: PgServiceState = {
            name, plan: body.plan, version, adminUser: body['admin-username'] ?? 'avnadmin', password: body['admin-password'] ?? randomUUID().replaceAll('-', ''),
            terminationProtection: body['termination-protection'] ?? true, created: new Date().toISOString(), readyAt: Date.now() + actionMs, busy: 'rebuilding',
          };
          services.set(name, created);
          return serviceOperation('create-dbaas-service-pg', 0, () => undefined);
        },
        'get-dbaas-service-pg'(r) {
          const svc = service(r);
          return 'name' in svc ? { status: 200, body: renderService(svc) } : svc;
        },
        'update-dbaas-service-pg'(r) {
          const svc = service(r);
          if (!('name' in svc)) return svc;
          const body = r.body as { plan?: string };
          if (serviceState(svc) !== 'running') return bad(`service is ${serviceState(svc)}; try again when it is running`);
          if (body.plan !== undefined && body.plan !== svc.plan) {
            if (!PG_PLANS.some(([plan, , , authorized]) => plan === body.plan && authorized)) return bad(`invalid plan ${body.plan}`);
            svc.plan = body.plan;
            svc.busy = 'rebalancing';
            svc.readyAt = Date.now() + actionMs;
          }
          return serviceOperation('update-dbaas-service-pg', 0, () => undefined);
        },
        'delete-dbaas-service'(r) {
          const svc = service(r);
          if (!('name' in svc)) return svc;
          if (svc.terminationProtection) return bad('service is protected against termination');
          services.delete(svc.name);
          return serviceOperation('delete-dbaas-service', 0, () => undefined);
        },
        'reset-dbaas-postgres-user-password'(r) {
          const svc = service(r, 'service-name');
          if (!('name' in svc)) return svc;
          if (r.params['username'] !== svc.adminUser) return notFound('user');
          const password = (r.body as { password?: string }).password ?? randomUUID().replaceAll('-', '');
          return serviceOperation('reset-dbaas-postgres-user-password', actionMs, () => {
            svc.password = password;
          });
        },
        'delete-instance'(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          i.state = 'destroying';
          return operation(i, 'delete-instance', () => {
            instances.delete(i.id);
          });
        },
      };
    },
  });
  return {
    ...double,
    pgServices: () =>
      [...services.values()].map((svc) => ({
        name: svc.name, plan: svc.plan, version: svc.version, state: serviceState(svc), adminUser: svc.adminUser, password: svc.password, terminationProtection: svc.terminationProtection, host: hostOf(svc),
      })),
    instances: () => {
      advance();
      return [...instances.values()].map((i) => {
        const type = typeOf(i.typeId);
        return { id: i.id, name: i.name, labels: i.labels, size: type ? `${type[1]}.${type[2]}` : i.typeId, template: i.templateId, diskSize: i.diskSize, userData: i.userData, state: i.state };
      });
    },
  };

  function typeOf(id: string): (typeof TYPES)[number] | undefined {
    return TYPES.find(([t]) => t === id);
  }
}
