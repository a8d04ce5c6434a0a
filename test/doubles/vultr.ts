/**
 * @module A stateful double of Vultr's API v2 on loopback, for the vultr driver's tests:
 * instances (tags and the `tag` filter, `status` pending → active after `actionMs`, resizing by
 * `update-instance` with `plan` while running, then active; start, halt and reboot), regions,
 * plans with prices and locations, operating systems, cursor paging by `meta.links.next`,
 * Vultr's error shape `{ error, status }` (400, 401, 404), bearer tokens, and its limit as 429s.
 * Every request and answer is checked against Vultr's document
 * (test/vendor-apis/vultr/openapi.json). Like Vultr, it lets two instances share a label: only
 * tags tell them apart.
 */
import { randomUUID } from 'node:crypto';
import { startVendorDouble, vendorDocument, type DoubleAnswer, type DoubleRequest, type VendorDouble, type CommonDoubleOptions } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('vultr', 'openapi.json');

/** Vultr's regions: id, city, country, continent. */
const REGIONS: Array<[string, string, string, string]> = [
  ['ams', 'Amsterdam', 'NL', 'Europe'], ['fra', 'Frankfurt', 'DE', 'Europe'], ['lhr', 'London', 'GB', 'Europe'], ['ewr', 'New Jersey', 'US', 'North America'],
  ['ord', 'Chicago', 'US', 'North America'], ['sea', 'Seattle', 'US', 'North America'], ['nrt', 'Tokyo', 'JP', 'Asia'], ['syd', 'Sydney', 'AU', 'Australia'],
];
const ALL = REGIONS.map(([id]) => id);

/** Plans: id, vcpus, ram MB, disk GB, monthly USD, type, locations. */
const PLANS: Array<[string, number, number, number, number, string, string[]]> = [
  ['vc2-1c-1gb', 1, 1024, 25, 5, 'vc2', ALL],
  ['vc2-1c-2gb', 1, 2048, 55, 10, 'vc2', ALL],
  ['vc2-2c-4gb', 2, 4096, 80, 20, 'vc2', ALL],
  ['vc2-4c-8gb', 4, 8192, 160, 40, 'vc2', ALL],
  ['vhf-1c-1gb', 1, 1024, 32, 6, 'vhf', ['ams', 'fra', 'ewr', 'nrt']],
  ['vhf-2c-4gb', 2, 4096, 128, 24, 'vhf', ['fra', 'ewr']],
];

/** Operating systems: id, name, family. */
const SYSTEMS: Array<[number, string, string]> = [
  [2136, 'Debian 12 x64 (bookworm)', 'debian'], [477, 'Debian 11 x64 (bullseye)', 'debian'], [1743, 'Ubuntu 22.04 LTS x64', 'ubuntu'],
  [2284, 'Ubuntu 24.04 LTS x64', 'ubuntu'], [542, 'CentOS 9 Stream x64', 'centos'], [159, 'Custom', 'iso'],
];

export interface VultrDoubleOptions extends CommonDoubleOptions {
  /** The most items a page holds whatever `per_page` asks (Vultr: 500); small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type InstanceStatus = 'pending' | 'active' | 'resizing';

interface InstanceState {
  id: string;
  label: string;
  tags: string[];
  plan: string;
  region: string;
  osId: number;
  created: string;
  status: InstanceStatus;
  power: 'running' | 'stopped';
  /** When a pending create or a resize ends. */
  settlesAt: number;
  ip: string;
  /** The cloud-init user data it was created with, decoded from base64. */
  userData: string | null;
}

export interface VultrDouble extends VendorDouble {
  /** What the double holds now (tests look at "the cloud" directly). */
  instances(): Array<{ id: string; label: string; tags: string[]; plan: string; region: string; osId: number; status: InstanceStatus; power: 'running' | 'stopped'; userData: string | null }>;
}

function error(status: number, _code: string, message: string): Json {
  return { error: message, status };
}

/** A page from `cursor` (an offset, base64 as Vultr's cursors look), with the next cursor in `meta.links`. */
function paged<T>(items: T[], query: DoubleRequest['query'], key: string, render: (item: T) => unknown, maxPerPage: number): DoubleAnswer {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query['per_page'] ?? 100)));
  const cursor = typeof query['cursor'] === 'string' ? query['cursor'] : '';
  const start = cursor === '' ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^next__/, ''));
  if (!Number.isInteger(start) || start < 0) return { status: 400, body: error(400, 'bad_cursor', 'Invalid cursor.') };
  const end = start + perPage;
  const encode = (n: number): string => Buffer.from(`next__${n}`).toString('base64url');
  const links = { next: end < items.length ? encode(end) : '', prev: start > 0 ? encode(Math.max(0, start - perPage)) : '' };
  return { status: 200, body: { [key]: items.slice(start, end).map(render), meta: { total: items.length, links } } };
}

export async function startVultrDouble(options: VultrDoubleOptions = {}): Promise<VultrDouble> {
  const token = options.token ?? 'vultr-test-token';
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 500;
  const instances = new Map<string, InstanceState>();
  let serial = 10;

  /** Ends the creates and resizes whose time has come. */
  function advance(): void {
    const now = Date.now();
    for (const i of instances.values()) if (i.status !== 'active' && now >= i.settlesAt) i.status = 'active';
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    basePath: '/v2',
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers.authorization === `Bearer ${token}` ? null : { status: 401, body: error(401, 'unauthorized', 'Invalid API token.') };
    },
    handlers(example) {
      const template = example('get-instance')['instance'] as Json;
      const planOf = (id: string): (typeof PLANS)[number] | undefined => PLANS.find(([p]) => p === id);

      function renderInstance(i: InstanceState): Json {
        advance();
        const plan = planOf(i.plan) ?? PLANS[0]!;
        const os = SYSTEMS.find(([id]) => id === i.osId) ?? SYSTEMS[0]!;
        const ready = i.status !== 'pending';
        return {
          ...template, id: i.id, label: i.label, hostname: i.label, tags: i.tags, plan: i.plan, region: i.region, os: os[1], os_id: os[0], ram: plan[2], disk: plan[3], vcpu_count: plan[1],
          date_created: i.created, status: i.status, power_status: i.power, server_status: ready ? 'ok' : 'installingbooting', main_ip: ready ? i.ip : '0.0.0.0',
          v6_main_ip: '', v6_network: '', v6_network_size: 0, features: [],
        };
      }

      function instance(request: DoubleRequest): InstanceState | DoubleAnswer {
        advance();
        const found = instances.get(request.params['instance-id'] ?? '');
        return found ?? { status: 404, body: error(404, 'not_found', 'Invalid instance-id.') };
      }

      const bad = (message: string): DoubleAnswer => ({ status: 400, body: error(400, 'bad_request', message) });

      function power(request: DoubleRequest, to: 'running' | 'stopped'): DoubleAnswer {
        const i = instance(request);
        if (!('id' in i)) return i;
        if (i.status !== 'active') return bad(`Unable to change power: instance is ${i.status}.`);
        i.power = to;
        return { status: 204 };
      }

      return {
        'list-regions': (r) => paged(REGIONS, r.query, 'regions', ([id, city, country, continent]) => ({ id, city, country, continent, options: ['ddos_protection', 'block_storage'] }), maxPerPage),
        'list-plans': (r) =>
          paged(PLANS, r.query, 'plans', ([id, vcpu_count, ram, disk, monthly_cost, type, locations]) => ({ id, vcpu_count, ram, disk, disk_count: 1, bandwidth: ram, monthly_cost, type, locations }), maxPerPage),
        'list-os': (r) => paged(SYSTEMS, r.query, 'os', ([id, name, family]) => ({ id, name, arch: 'x64', family }), maxPerPage),
        'list-instances'(r) {
          advance();
          const tag = typeof r.query['tag'] === 'string' ? r.query['tag'] : undefined;
          const label = typeof r.query['label'] === 'string' ? r.query['label'] : undefined;
          const all = [...instances.values()].filter((i) => (tag === undefined || i.tags.includes(tag)) && (label === undefined || i.label === label));
          return paged(all, r.query, 'instances', renderInstance, maxPerPage);
        },
        'create-instance'(r) {
          const body = r.body as { region: string; plan: string; os_id?: number; label?: string; tags?: string[]; user_data?: string };
          if (!REGIONS.some(([id]) => id === body.region)) return bad('Invalid region.');
          const plan = planOf(body.plan);
          if (!plan) return bad('Invalid plan.');
          if (!plan[6].includes(body.region)) return bad(`Plan ${body.plan} is not available in ${body.region}.`);
          if (body.os_id === undefined || !SYSTEMS.some(([id]) => id === body.os_id)) return bad('Invalid operating system.');
          const created: InstanceState = {
            id: randomUUID(), label: body.label ?? '', tags: [...new Set(body.tags ?? [])], plan: plan[0], region: body.region, osId: body.os_id,
            created: new Date().toISOString(), status: 'pending', power: 'running', settlesAt: Date.now() + actionMs, ip: `203.0.113.${serial++ % 250}`,
            userData: body.user_data === undefined ? null : Buffer.from(body.user_data, 'base64').toString('utf8'),
          };
          instances.set(created.id, created);
          return { status: 202, body: { instance: { ...renderInstance(created), default_password: 'v8!example' } } };
        },
        'get-instance'(r) {
          const i = instance(r);
          return 'id' in i ? { status: 200, body: { instance: renderInstance(i) } } : i;
        },
        'update-instance'(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          const body = r.body as { plan?: string };
          if (body.plan === undefined) return bad('this double updates the plan only');
          if (i.status !== 'active') return bad(`Unable to upgrade plan: instance is ${i.status}.`);
          const plan = planOf(body.plan);
          if (!plan || !plan[6].includes(i.region)) return bad(`Plan ${body.plan} is not available in ${i.region}.`);
          i.plan = plan[0];
          i.status = 'resizing';
          i.settlesAt = Date.now() + actionMs;
          return { status: 202, body: { instance: renderInstance(i) } };
        },
        'delete-instance'(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          instances.delete(i.id);
          return { status: 204 };
        },
        'start-instance': (r) => power(r, 'running'),
        'halt-instance': (r) => power(r, 'stopped'),
        'reboot-instance': (r) => power(r, 'running'),
      };
    },
  });
  return {
    ...double,
    instances: () => {
      advance();
      return [...instances.values()].map((i) => ({ id: i.id, label: i.label, tags: i.tags, plan: i.plan, region: i.region, osId: i.osId, status: i.status, power: i.power, userData: i.userData }));
    },
  };
}
