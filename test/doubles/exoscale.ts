/**
 * @module A stateful double of Exoscale's API v2 on loopback, for the exoscale driver's tests:
 * zones, instance types (family, size, memory in bytes, zones, authorised or not), public
 * templates, instances (labels, disk size, user data — kept decoded so a test sees what
 * arrived), and every change answered by an operation that ends after `actionMs` (create:
 * `starting` → `running`; stop: `stopping` → `stopped`; start; reboot; scale, refused unless
 * stopped; delete: `destroying`, then gone). Exoscale's lists are not paged. Errors are its
 * `{ message }`. Every request must carry a good EXO2-HMAC-SHA256 signature, checked here from
 * the rule in Exoscale's document (independently of the driver's signer): a wrong key, a wrong
 * signature or an expired one is refused with 403. One URL serves every zone. Every request
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

export interface ExoscaleDouble extends VendorDouble {
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
  let serial = 10;

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
        return { id: op.id, state: op.state, reference: { id: op.instanceId, link: `/v2/instance/${op.instanceId}`, command: op.command } };
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
