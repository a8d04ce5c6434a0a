/**
 * @module A stateful double of the Hetzner Cloud API on loopback, for the hetzner driver's tests:
 * servers (labels and label selectors, paging), their asynchronous actions (create, power,
 * change type — which, as at Hetzner, needs the server off), locations and server types with
 * prices, Hetzner's error shape, bearer tokens, and its published budget as 429s. Every request
 * and answer is checked against Hetzner's document (test/vendor-apis/hetzner/hcloud.json).
 */
import { startVendorDouble, vendorDocument, type DoubleAnswer, type DoubleRequest, type VendorDouble, type CommonDoubleOptions } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('hetzner', 'hcloud.json');

/** Hetzner's locations (https://docs.hetzner.cloud/#locations). */
const LOCATIONS = [
  { id: 1, name: 'fsn1', description: 'Falkenstein DC Park 1', city: 'Falkenstein', country: 'DE', latitude: 50.47612, longitude: 12.370071, network_zone: 'eu-central' },
  { id: 2, name: 'nbg1', description: 'Nuremberg DC Park 1', city: 'Nuremberg', country: 'DE', latitude: 49.452102, longitude: 11.076665, network_zone: 'eu-central' },
  { id: 3, name: 'hel1', description: 'Helsinki DC Park 1', city: 'Helsinki', country: 'FI', latitude: 60.169855, longitude: 24.938379, network_zone: 'eu-central' },
  { id: 4, name: 'ash', description: 'Ashburn, VA', city: 'Ashburn, VA', country: 'US', latitude: 39.045821, longitude: -77.487073, network_zone: 'us-east' },
  { id: 5, name: 'hil', description: 'Hillsboro, OR', city: 'Hillsboro, OR', country: 'US', latitude: 45.54222, longitude: -122.951924, network_zone: 'us-west' },
  { id: 6, name: 'sin', description: 'Singapore', city: 'Singapore', country: 'SG', latitude: 1.283333, longitude: 103.833333, network_zone: 'ap-southeast' },
];

/** Server types: name, cores, memory GB, disk GB, monthly gross EUR, where offered. */
const TYPES: Array<[string, number, number, number, number, string[]]> = [
  ['cx22', 2, 4, 40, 4.51, ['fsn1', 'nbg1', 'hel1']],
  ['cx32', 4, 8, 80, 7.37, ['fsn1', 'nbg1', 'hel1']],
  ['cx42', 8, 16, 160, 18.92, ['fsn1', 'nbg1', 'hel1']],
  ['cpx11', 2, 2, 40, 5.18, ['fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin']],
  ['cpx21', 3, 4, 80, 9.38, ['fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin']],
  ['cpx31', 4, 8, 160, 16.9, ['fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin']],
  ['cax11', 2, 4, 40, 4.51, ['fsn1', 'nbg1', 'hel1']],
];

export type HetznerDoubleOptions = CommonDoubleOptions;

type Json = Record<string, unknown>;
type ServerStatus = 'initializing' | 'starting' | 'running' | 'stopping' | 'off' | 'deleting';

interface ServerState {
  id: number;
  name: string;
  labels: Record<string, string>;
  type: string;
  location: string;
  image: string;
  created: string;
  status: ServerStatus;
  /** The cloud-init user data it was created with. */
  userData: string | null;
  /** Where an action leaves it, and when. */
  next?: { status: ServerStatus; at: number };
  ip: string;
}

interface ActionState {
  id: number;
  command: string;
  serverId: number;
  started: string;
  finishAt: number;
}

export interface HetznerDouble extends VendorDouble {
  /** What the double holds now (tests look at "the cloud" directly). */
  servers(): Array<{ id: number; name: string; labels: Record<string, string>; type: string; location: string; status: string; userData: string | null }>;
}

function error(status: number, code: string, message: string): Json {
  return { error: { code, message, details: status === 422 ? { fields: [] } : null } };
}

/** Hetzner's label selectors: `k=v`, `k==v`, `k!=v`, `k`, `!k`, comma-separated (all must hold). */
function matchesSelector(labels: Record<string, string>, selector: string): boolean {
  return selector.split(',').map((s) => s.trim()).filter((s) => s !== '').every((term) => {
    const m = /^(!?)([^=!]+?)\s*(?:(==|=|!=)\s*(.*))?$/.exec(term);
    if (!m) return false;
    const [, not, key = '', op, value] = m;
    if (op === undefined) return not === '' ? key in labels : !(key in labels);
    return op === '!=' ? labels[key] !== value : labels[key] === value;
  });
}

function paged<T>(items: T[], query: DoubleRequest['query'], key: string, render: (item: T) => unknown): DoubleAnswer {
  const page = Math.max(1, Number(query['page'] ?? 1));
  const perPage = Math.min(50, Math.max(1, Number(query['per_page'] ?? 25)));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  return {
    status: 200,
    body: {
      [key]: slice.map(render),
      meta: { pagination: { page, per_page: perPage, previous_page: page > 1 ? page - 1 : null, next_page: page < last ? page + 1 : null, last_page: last, total_entries: items.length } },
    },
  };
}

export async function startHetznerDouble(options: HetznerDoubleOptions = {}): Promise<HetznerDouble> {
  const token = options.token ?? 'hetzner-test-token';
  const actionMs = options.actionMs ?? 150;
  const servers = new Map<number, ServerState>();
  const actions = new Map<number, ActionState>();
  let nextId = 1000;

  function settle(server: ServerState): ServerState {
    if (server.next && Date.now() >= server.next.at) {
      server.status = server.next.status;
      delete server.next;
    }
    return server;
  }

  function startAction(command: string, server: ServerState, during: ServerStatus | null, after: ServerStatus | null): ActionState {
    const action: ActionState = { id: nextId++, command, serverId: server.id, started: new Date().toISOString(), finishAt: Date.now() + actionMs };
    actions.set(action.id, action);
    if (during) server.status = during;
    if (after) server.next = { status: after, at: action.finishAt };
    return action;
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    basePath: '/v1',
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers.authorization === `Bearer ${token}` ? null : { status: 401, body: error(401, 'unauthorized', 'unable to authenticate') };
    },
    handlers(example) {
      const serverTemplate = example('get_server')['server'] as Json;
      const typeTemplate = (example('list_server_types')['server_types'] as Json[])[0] ?? {};
      const actionTemplate = example('get_action')['action'] as Json;
      const locationById = (name: string): Json => LOCATIONS.find((l) => l.name === name) ?? {};

      function renderType([name, cores, memory, disk, price, where]: (typeof TYPES)[number], index: number): Json {
        return {
          ...typeTemplate, id: index + 1, name, description: name.toUpperCase(), cores, memory, disk, deprecated: false, deprecation: null, cpu_type: 'shared',
          architecture: name.startsWith('cax') ? 'arm' : 'x86', storage_type: 'local',
          prices: where.map((location) => ({
            location,
            price_hourly: { net: (price / 730 / 1.19).toFixed(10), gross: (price / 730).toFixed(10) },
            price_monthly: { net: (price / 1.19).toFixed(10), gross: price.toFixed(10) },
            included_traffic: 21990232555520,
            price_per_tb_traffic: { net: '1.0000000000', gross: '1.1900000000' },
          })),
          locations: where.map((location) => ({ id: LOCATIONS.findIndex((l) => l.name === location) + 1, name: location, deprecation: null })),
        };
      }

      function renderServer(s: ServerState): Json {
        settle(s);
        const typeIndex = TYPES.findIndex(([name]) => name === s.type);
        const template = serverTemplate;
        const publicNet = template['public_net'] as Json;
        return {
          ...template, id: s.id, name: s.name, labels: s.labels, status: s.status, created: s.created,
          location: locationById(s.location), server_type: renderType(TYPES[typeIndex] ?? TYPES[0]!, Math.max(0, typeIndex)),
          image: { ...(template['image'] as Json), name: s.image, labels: {} },
          public_net: { ...publicNet, ipv4: { ...(publicNet['ipv4'] as Json), ip: s.ip }, floating_ips: [], firewalls: [] },
          private_net: [], volumes: [], load_balancers: [], locked: false, iso: null, placement_group: null,
          protection: { delete: false, rebuild: false },
        };
      }

      function renderAction(a: ActionState): Json {
        const done = Date.now() >= a.finishAt;
        return {
          ...actionTemplate, id: a.id, command: a.command, status: done ? 'success' : 'running', progress: done ? 100 : 50, error: null,
          started: a.started, finished: done ? new Date(a.finishAt).toISOString() : null, resources: [{ id: a.serverId, type: 'server' }],
        };
      }

      function server(request: DoubleRequest): ServerState | DoubleAnswer {
        const found = servers.get(Number(request.params['id']));
        return found ? settle(found) : { status: 404, body: error(404, 'not_found', `server with ID ${request.params['id']} not found`) };
      }

      function powerAction(command: string, during: ServerStatus, after: ServerStatus) {
        return (request: DoubleRequest): DoubleAnswer => {
          const s = server(request);
          if ('status' in s && typeof s.status === 'number') return s;
          const state = s;
          if (state.next) return { status: 423, body: error(423, 'locked', `server ${state.id} is locked by a running action`) };
          return { status: 201, body: { action: renderAction(startAction(command, state, during, after)) } };
        };
      }

      return {
        list_locations: (r) => paged(LOCATIONS, r.query, 'locations', (l) => l),
        list_server_types: (r) => paged(TYPES.map((t, i) => renderType(t, i)), r.query, 'server_types', (t) => t),
        list_servers(r) {
          const selector = typeof r.query['label_selector'] === 'string' ? r.query['label_selector'] : '';
          const name = typeof r.query['name'] === 'string' ? r.query['name'] : undefined;
          const all = [...servers.values()].filter((s) => (selector === '' || matchesSelector(s.labels, selector)) && (name === undefined || s.name === name));
          return paged(all, r.query, 'servers', renderServer);
        },
        create_server(r) {
          const body = r.body as { name: string; server_type: string; image: string; location?: string; labels?: Record<string, string>; start_after_create?: boolean; user_data?: string };
          const type = TYPES.find(([name]) => name === body.server_type);
          if (!type) return { status: 422, body: error(422, 'invalid_input', `server type ${body.server_type} not found`) };
          const location = body.location ?? 'fsn1';
          if (!LOCATIONS.some((l) => l.name === location)) return { status: 422, body: error(422, 'invalid_input', `location ${location} not found`) };
          if (!type[5].includes(location)) return { status: 412, body: error(412, 'resource_unavailable', `server type ${type[0]} is not available in ${location}`) };
          if ([...servers.values()].some((s) => s.name === body.name)) return { status: 409, body: error(409, 'uniqueness_error', `server name ${body.name} is already used`) };
          const id = nextId++;
          const created: ServerState = {
            id, name: body.name, labels: body.labels ?? {}, type: type[0], location, image: body.image, created: new Date().toISOString(),
            status: 'initializing', ip: `203.0.113.${id % 250}`, userData: body.user_data ?? null,
          };
          servers.set(id, created);
          const action = startAction('create_server', created, 'initializing', body.start_after_create === false ? 'off' : 'running');
          return { status: 201, body: { server: renderServer(created), action: renderAction(action), next_actions: [], root_password: null } };
        },
        get_server(r) {
          const s = server(r);
          return 'id' in s ? { status: 200, body: { server: renderServer(s) } } : s;
        },
        delete_server(r) {
          const s = server(r);
          if (!('id' in s)) return s;
          servers.delete(s.id);
          return { status: 200, body: { action: renderAction(startAction('delete_server', s, null, null)) } };
        },
        power_on_server: powerAction('start_server', 'starting', 'running'),
        power_off_server: powerAction('stop_server', 'stopping', 'off'),
        shutdown_server: powerAction('shutdown_server', 'stopping', 'off'),
        soft_reboot_server: powerAction('reboot_server', 'starting', 'running'),
        change_type_of_server(r) {
          const s = server(r);
          if (!('id' in s)) return s;
          if (s.status !== 'off') return { status: 422, body: error(422, 'server_not_stopped', 'The specified Server is running, but needs to be powered off') };
          const body = r.body as { server_type: string };
          const type = TYPES.find(([name]) => name === body.server_type);
          if (!type?.[5].includes(s.location)) return { status: 422, body: error(422, 'invalid_input', `server type ${body.server_type} not found in ${s.location}`) };
          s.type = type[0];
          return { status: 201, body: { action: renderAction(startAction('change_server_type', s, null, 'off')) } };
        },
        get_action(r) {
          const a = actions.get(Number(r.params['id']));
          return a ? { status: 200, body: { action: renderAction(a) } } : { status: 404, body: error(404, 'not_found', `action with ID ${r.params['id']} not found`) };
        },
      };
    },
  });
  return {
    ...double,
    servers: () => [...servers.values()].map((s) => settle(s)).map((s) => ({ id: s.id, name: s.name, labels: s.labels, type: s.type, location: s.location, status: s.status, userData: s.userData })),
  };
}
