/**
 * @module A stateful double of Scaleway's Instance API v1 on loopback, for the scaleway driver's
 * tests: servers per zone in one project (tags and the exact-tag `tags` filter, `project`
 * filter, paging by `page`/`per_page` with `X-Total-Count`), created `stopped` as Scaleway does,
 * `ServerAction` poweron / poweroff / reboot / terminate passing through `starting` / `stopping`
 * for `actionMs` (terminate only from running, as Scaleway allows, then the server is gone), a
 * `commercial_type` change only while stopped, cloud-init user data kept as sent (text/plain)
 * and read back by tests, server types per zone, Scaleway's error shape `{ type, message, ... }`
 * (401 denied_authentication, 403 permissions_denied for another project, 404 not_found, 400
 * invalid_request_error), the secret key in `X-Auth-Token`, and its limit as 429s. Every request
 * and answer is checked against Scaleway's document (test/vendor-apis/scaleway/).
 */
import { randomUUID } from 'node:crypto';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('scaleway', 'scaleway.instance.v1.Api.yml');

export const SCALEWAY_TEST_PROJECT = '8f3b2c1a-4d5e-4f60-9a7b-1c2d3e4f5a6b';

const GB = 1_000_000_000;
const GIB = 1024 ** 3;
const PAR_AMS_WAW = ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'pl-waw-1'];

/** Server types: commercial type, vcpus, RAM GiB, local disk GB (0: block storage only), monthly €, zones. */
const TYPES: Array<[string, number, number, number, number, string[]]> = [
  ['DEV1-S', 2, 2, 20, 6.42, PAR_AMS_WAW],
  ['DEV1-M', 3, 4, 40, 12.84, PAR_AMS_WAW],
  ['DEV1-L', 4, 8, 80, 25.69, PAR_AMS_WAW],
  ['GP1-XS', 4, 16, 150, 60.59, ['fr-par-1', 'nl-ams-1']],
  ['PLAY2-NANO', 1, 2, 0, 4.59, ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'pl-waw-1', 'it-mil-1']],
  ['POP2-2C-8G', 2, 8, 0, 53.29, ['fr-par-1', 'it-mil-1']],
];

/** Marketplace labels the double knows (Scaleway takes a label or an image UUID). */
const IMAGES: Record<string, string> = { debian_bookworm: 'Debian Bookworm', debian_bullseye: 'Debian Bullseye', ubuntu_jammy: 'Ubuntu 22.04 Jammy Jellyfish', ubuntu_noble: 'Ubuntu 24.04 Noble Numbat' };

export interface ScalewayDoubleOptions extends CommonDoubleOptions {
  /** The only project the key may work in. */
  projectId?: string;
  /** The most items a page holds whatever `per_page` asks (Scaleway: 100); small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type State = 'running' | 'stopped' | 'starting' | 'stopping';

interface ServerState {
  id: string;
  zone: string;
  name: string;
  tags: string[];
  commercialType: string;
  image: string;
  project: string;
  created: string;
  state: State;
  /** Where a starting / stopping server ends, and when; `gone` for a terminate. */
  pending?: { to: 'running' | 'stopped' | 'gone'; at: number };
  userData: Map<string, string>;
  ip: string;
  /** Times it was powered on: cloud-init's first boot is the first one. */
  boots: number;
}

export interface ScalewayDouble extends VendorDouble {
  servers(): Array<{ id: string; zone: string; name: string; tags: string[]; commercialType: string; image: string; state: State; userData: Record<string, string>; boots: number }>;
}

function error(status: number, code: string, message: string): Json {
  return { type: code, message };
}

function paged<T>(items: T[], query: DoubleRequest['query'], maxPerPage: number): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query['per_page'] ?? 50)));
  const page = Math.max(1, Number(query['page'] ?? 1));
  return { page: items.slice((page - 1) * perPage, page * perPage), headers: { 'x-total-count': String(items.length) } };
}

export async function startScalewayDouble(options: ScalewayDoubleOptions = {}): Promise<ScalewayDouble> {
  const token = options.token ?? 'scaleway-test-token';
  const project = options.projectId ?? SCALEWAY_TEST_PROJECT;
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 100;
  const servers = new Map<string, ServerState>();
  let serial = 10;

  /** Ends the actions whose time has come. */
  function advance(): void {
    const now = Date.now();
    for (const s of [...servers.values()]) {
      if (!s.pending || now < s.pending.at) continue;
      if (s.pending.to === 'gone') servers.delete(s.id);
      else s.state = s.pending.to;
      delete s.pending;
    }
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
    handlers(example) {
      const template = example('GetServer')['server'] as Json;
      const ipTemplate = ((template['public_ips'] as Json[] | undefined) ?? [])[0] ?? {};
      const denied = (): DoubleAnswer => ({ status: 403, body: { type: 'permissions_denied', message: 'insufficient permissions', details: [{ resource: 'instance_server', action: 'read' }] } });
      const bad = (message: string): DoubleAnswer => ({ status: 400, body: error(400, 'invalid_request_error', message) });

      // The deprecated single-address fields are left out, as Scaleway does with routed IPs (the document does not let them be null).
      const { public_ip: _legacyIp, ipv6: _legacyIpv6, ...current } = template;
      function render(s: ServerState): Json {
        const allowed = s.state === 'running' ? ['poweroff', 'terminate', 'reboot', 'stop_in_place', 'backup'] : s.state === 'stopped' ? ['poweron', 'backup'] : [];
        return {
          ...current, id: s.id, name: s.name, hostname: s.name, tags: s.tags, commercial_type: s.commercialType, project: s.project, organization: s.project, zone: s.zone,
          state: s.state, state_detail: s.state === 'running' ? 'booted' : s.state, allowed_actions: allowed, creation_date: s.created, modification_date: s.created,
          image: { ...(template['image'] as Json), id: randomUUID(), name: IMAGES[s.image] ?? s.image, zone: s.zone, project: s.project },
          public_ips: s.state === 'running' ? [{ ...ipTemplate, id: `ip-${s.id}`, address: s.ip, family: 'inet', dynamic: true, state: 'attached' }] : [],
          private_ip: null, volumes: {}, private_nics: [], maintenances: [], filesystems: [],
        };
      }

      function server(request: DoubleRequest): ServerState | DoubleAnswer {
        advance();
        const found = servers.get(request.params['server_id'] ?? '');
        if (!found || found.zone !== request.params['zone']) {
          return { status: 404, body: { type: 'not_found', message: 'resource is not found', resource: 'instance_server', resource_id: request.params['server_id'] ?? '' } };
        }
        return found;
      }

      function task(s: ServerState, action: string): DoubleAnswer {
        const now = new Date().toISOString();
        return { status: 200, body: { task: { id: randomUUID(), description: `server_${action}`, progress: 0, started_at: now, terminated_at: null, status: 'pending', href_from: `/servers/${s.id}/action`, href_result: `/servers/${s.id}`, zone: s.zone } } };
      }

      return {
        ListServersTypes(r) {
          const zone = r.params['zone'] ?? '';
          const here = TYPES.filter(([, , , , , zones]) => zones.includes(zone));
          const { page, headers } = paged(here, r.query, maxPerPage);
          const map = Object.fromEntries(page.map(([type, ncpus, ram, disk, monthly]) => [type, {
            monthly_price: monthly, hourly_price: Math.round((monthly / 730) * 10000) / 10000, alt_names: [], ncpus, ram: ram * GIB, arch: 'x86_64', baremetal: false,
            volumes_constraint: { min_size: 0, max_size: disk * GB }, ...(disk > 0 ? { per_volume_constraint: { l_ssd: { min_size: 1 * GB, max_size: disk * GB } } } : {}),
          }]));
          return { status: 200, body: { servers: map }, headers };
        },
        ListServers(r) {
          advance();
          if (r.query['project'] !== undefined && r.query['project'] !== project) return denied();
          const zone = r.params['zone'];
          const wanted = typeof r.query['tags'] === 'string' ? r.query['tags'].split(',') : [];
          const all = [...servers.values()].filter((s) => s.zone === zone && wanted.every((t) => s.tags.includes(t)));
          const { page, headers } = paged(all, r.query, maxPerPage);
          return { status: 200, body: { servers: page.map(render) }, headers };
        },
        CreateServer(r) {
          const body = r.body as { name?: string; commercial_type?: string; image?: string; project?: string; tags?: string[] };
          const zone = r.params['zone'] ?? '';
          if (body.project !== project) return denied();
          const type = TYPES.find(([t]) => t === body.commercial_type);
          if (!type || !type[5].includes(zone)) return { status: 400, body: { type: 'invalid_arguments', message: 'invalid argument(s)', details: [{ argument_name: 'commercial_type', reason: 'constraint', help_message: `${body.commercial_type ?? ''} is not available in ${zone}` }] } };
          if (body.image === undefined || !(body.image in IMAGES)) return { status: 404, body: { type: 'not_found', message: 'resource is not found', resource: 'instance_image', resource_id: body.image ?? '' } };
          const created: ServerState = {
            id: randomUUID(), zone, name: body.name ?? '', tags: [...(body.tags ?? [])], commercialType: type[0], image: body.image, project, created: new Date().toISOString(),
            state: 'stopped', userData: new Map(), ip: `51.15.${Math.floor(serial / 250)}.${serial++ % 250}`, boots: 0,
          };
          servers.set(created.id, created);
          return { status: 201, body: { server: render(created) } };
        },
        GetServer(r) {
          const s = server(r);
          return 'id' in s ? { status: 200, body: { server: render(s) } } : s;
        },
        UpdateServer(r) {
          const s = server(r);
          if (!('id' in s)) return s;
          const body = r.body as { commercial_type?: string };
          if (body.commercial_type === undefined) return bad('this double updates commercial_type only');
          if (s.state !== 'stopped') return bad(`commercial_type can only be changed on a stopped server; it is ${s.state}`);
          const type = TYPES.find(([t]) => t === body.commercial_type);
          if (!type || !type[5].includes(s.zone)) return bad(`${body.commercial_type} is not available in ${s.zone}`);
          s.commercialType = type[0];
          return { status: 200, body: { server: render(s) } };
        },
        ServerAction(r) {
          const s = server(r);
          if (!('id' in s)) return s;
          const action = (r.body as { action?: string }).action ?? 'poweron';
          const at = Date.now() + actionMs;
          if (s.state === 'starting' || s.state === 'stopping') return { status: 409, body: { type: 'transient_state', message: `resource instance_server with id ${s.id} is in a transient state: ${s.state}`, resource: 'instance_server', resource_id: s.id, current_state: s.state } };
          if (action === 'poweron' && s.state === 'stopped') {
            s.state = 'starting';
            s.boots++;
            s.pending = { to: 'running', at };
          } else if ((action === 'poweroff' || action === 'reboot') && s.state === 'running') {
            s.state = action === 'reboot' ? 'starting' : 'stopping';
            s.pending = { to: action === 'reboot' ? 'running' : 'stopped', at };
          } else if (action === 'terminate' && s.state === 'running') {
            s.state = 'stopping';
            s.pending = { to: 'gone', at };
          } else {
            return bad(`action ${action} is not allowed on a ${s.state} server`);
          }
          return task(s, action);
        },
        SetServerUserData(r) {
          const s = server(r);
          if (!('id' in s)) return s;
          if (typeof r.body !== 'string') return bad('user data must be sent as text, not JSON');
          s.userData.set(r.params['key'] ?? '', r.body);
          return { status: 204 };
        },
      };
    },
  });
  return {
    ...double,
    servers: () => {
      advance();
      return [...servers.values()].map((s) => ({ id: s.id, zone: s.zone, name: s.name, tags: s.tags, commercialType: s.commercialType, image: s.image, state: s.state, userData: Object.fromEntries(s.userData), boots: s.boots }));
    },
  };
}
