/**
 * @module A stateful double of DigitalOcean's API v2 on loopback, for the digitalocean driver's
 * tests: droplets (tags and the `tag_name` filter, paging by `links.pages.next` and
 * `meta.total`), their actions (create, power on/off, reboot, resize — which, as at
 * DigitalOcean, needs the droplet off — in progress, then completed after `actionMs`), regions
 * and sizes with prices, DigitalOcean's error shape `{ id, message }` (404, 422, 401), bearer
 * tokens, and its budget as 429s. Every request and answer is checked against DigitalOcean's
 * document (test/vendor-apis/digitalocean/specification/droplets.v2.yaml and the files it
 * refers to). Like DigitalOcean, it lets two droplets share a name: only tags tell them apart.
 * Managed database clusters (PostgreSQL, MongoDB): created `creating`, `online` after
 * `actionMs`, resized in place (`resizing` for `actionMs`), found by tag, with a password the
 * double generates for the default user (as DigitalOcean does), and the options of
 * `/v2/databases/options` (regions, versions, one-node sizes) that a create must meet.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { startVendorDouble, vendorDocument, type DoubleAnswer, type DoubleRequest, type VendorDouble, type CommonDoubleOptions } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('digitalocean', 'specification', 'droplets.v2.yaml');
const PUBLIC_BASE = 'https://api.digitalocean.com/v2';

/** DigitalOcean's regions: slug, name, whether new droplets may be made there. */
const REGIONS: Array<[string, string, boolean]> = [
  ['nyc1', 'New York 1', true], ['nyc2', 'New York 2', false], ['nyc3', 'New York 3', true], ['sfo1', 'San Francisco 1', false],
  ['sfo2', 'San Francisco 2', true], ['sfo3', 'San Francisco 3', true], ['tor1', 'Toronto 1', true], ['atl1', 'Atlanta 1', true],
  ['ams3', 'Amsterdam 3', true], ['lon1', 'London 1', true], ['fra1', 'Frankfurt 1', true], ['blr1', 'Bangalore 1', true],
  ['sgp1', 'Singapore 1', true], ['syd1', 'Sydney 1', true],
];
const OPEN = REGIONS.filter(([, , available]) => available).map(([slug]) => slug);

/** Sizes: slug, vcpus, memory MB, disk GB, monthly USD, where offered, still orderable. */
const SIZES: Array<[string, number, number, number, number, string[], boolean]> = [
  ['s-1vcpu-1gb', 1, 1024, 25, 6, OPEN, true],
  ['s-1vcpu-2gb', 1, 2048, 50, 12, OPEN, true],
  ['s-2vcpu-2gb', 2, 2048, 60, 18, OPEN, true],
  ['s-2vcpu-4gb', 2, 4096, 80, 24, OPEN, true],
  ['s-4vcpu-8gb', 4, 8192, 160, 48, OPEN, true],
  ['c-2', 2, 4096, 25, 42, ['nyc1', 'nyc3', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1'], true],
  ['g-2vcpu-8gb', 2, 8192, 25, 63, ['nyc1', 'nyc3', 'fra1'], true],
  ['s-1vcpu-512mb-10gb', 1, 512, 10, 4, ['nyc1', 'fra1'], false],
];

/** Managed database engines: DigitalOcean's slug, versions, default database, default user, port. */
const DATABASE_ENGINES: Record<string, { versions: string[]; database: string; user: string; port: number; scheme: string }> = {
  pg: { versions: ['15', '16', '17'], database: 'defaultdb', user: 'doadmin', port: 25060, scheme: 'postgresql' },
  mongodb: { versions: ['6.0', '7.0'], database: 'admin', user: 'doadmin', port: 27017, scheme: 'mongodb+srv' },
};
const DATABASE_REGIONS = ['ams3', 'blr1', 'fra1', 'lon1', 'nyc1', 'nyc3', 'sfo2', 'sfo3', 'sgp1', 'syd1', 'tor1', 'atl1'];
const DATABASE_SIZES = ['db-s-1vcpu-1gb', 'db-s-1vcpu-2gb', 'db-s-2vcpu-4gb', 'db-s-4vcpu-8gb', 'gd-2vcpu-8gb'];

export interface DigitalOceanDoubleOptions extends CommonDoubleOptions {
  /** The most items a page holds whatever `per_page` asks (DigitalOcean: 200); small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type DropletStatus = 'new' | 'active' | 'off' | 'archive';

interface DropletState {
  id: number;
  name: string;
  tags: string[];
  size: string;
  region: string;
  image: string;
  created: string;
  status: DropletStatus;
  ip: string;
  /** The cloud-init user data it was created with. */
  userData: string | null;
}

interface ActionState {
  id: number;
  type: string;
  dropletId: number;
  region: string;
  started: string;
  finishAt: number;
  /** What the action does to the droplet when it completes. */
  effect: () => void;
  applied: boolean;
}

type ClusterStatus = 'creating' | 'online' | 'resizing';

interface ClusterState {
  id: string;
  name: string;
  engine: string;
  version: string;
  region: string;
  size: string;
  tags: string[];
  storageMib: number | null;
  created: string;
  /** When what runs now (create, resize) is done; the cluster is `online` from then. */
  busyUntil: number;
  busy: ClusterStatus;
  password: string;
}

export interface DigitalOceanDouble extends VendorDouble {
  /** What the double holds now (tests look at "the cloud" directly). */
  droplets(): Array<{ id: number; name: string; tags: string[]; size: string; region: string; status: DropletStatus; userData: string | null }>;
  /** DigitalOcean stops offering `version` of `engine` (`pg`, `mongodb`) for new clusters; those running it go on. */
  retireDatabaseVersion(engine: string, version: string): void;
  /** The managed database clusters, with the password the double chose for each. */
  clusters(): Array<{ id: string; name: string; engine: string; version: string; region: string; size: string; tags: string[]; storageMib: number | null; status: ClusterStatus; host: string; password: string }>;
}

function error(status: number, id: string, message: string): Json {
  return { id, message };
}

function paged<T>(items: T[], query: DoubleRequest['query'], path: string, key: string, render: (item: T) => unknown, maxPerPage: number): DoubleAnswer {
  const page = Math.max(1, Number(query['page'] ?? 1));
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query['per_page'] ?? 20)));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const extra = typeof query['tag_name'] === 'string' ? `&tag_name=${encodeURIComponent(query['tag_name'])}` : '';
  const link = (n: number): string => `${PUBLIC_BASE}${path}?page=${n}&per_page=${perPage}${extra}`;
  const pages: Json = page < last ? { last: link(last), next: link(page + 1) } : page > 1 ? { first: link(1), prev: link(page - 1) } : {};
  return { status: 200, body: { [key]: items.slice((page - 1) * perPage, page * perPage).map(render), links: { pages }, meta: { total: items.length } } };
}

export async function startDigitalOceanDouble(options: DigitalOceanDoubleOptions = {}): Promise<DigitalOceanDouble> {
  const token = options.token ?? 'digitalocean-test-token';
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 200;
  const droplets = new Map<number, DropletState>();
  const actions = new Map<number, ActionState>();
  const clusters = new Map<string, ClusterState>();
  const retired = new Set<string>();
  const offered = (engine: string): string[] => (DATABASE_ENGINES[engine]?.versions ?? []).filter((v) => !retired.has(`${engine} ${v}`));
  let nextId = 3164000;

  function clusterStatus(c: ClusterState): ClusterStatus {
    return Date.now() >= c.busyUntil ? 'online' : c.busy;
  }
  const hostOf = (c: ClusterState): string => `${c.name}-do-user-1-0.${c.id.slice(0, 8)}.db.ondigitalocean.com`;

  /** Completes the actions whose time has come, applying what they do. */
  function advance(): void {
    const now = Date.now();
    for (const action of actions.values()) {
      if (!action.applied && now >= action.finishAt) {
        action.applied = true;
        if (droplets.has(action.dropletId)) action.effect();
      }
    }
  }

  function pending(droplet: DropletState): boolean {
    advance();
    return [...actions.values()].some((a) => a.dropletId === droplet.id && !a.applied);
  }

  function startAction(type: string, droplet: DropletState, effect: () => void): ActionState {
    const action: ActionState = { id: nextId++, type, dropletId: droplet.id, region: droplet.region, started: new Date().toISOString(), finishAt: Date.now() + actionMs, effect, applied: false };
    actions.set(action.id, action);
    return action;
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    // The document's paths carry the /v2 themselves (its server is https://api.digitalocean.com).
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers.authorization === `Bearer ${token}` ? null : { status: 401, body: error(401, 'Unauthorized', 'Unable to authenticate you') };
    },
    handlers(example) {
      const dropletTemplate = example('droplets_get')['droplet'] as Json;
      const sizeTemplate = (example('sizes_list')['sizes'] as Json[])[0] ?? {};
      const regionTemplate = (example('regions_list')['regions'] as Json[])[0] ?? {};

      function renderRegion([slug, name, available]: (typeof REGIONS)[number]): Json {
        const sizes = SIZES.filter((s) => s[6] && s[5].includes(slug)).map(([size]) => size);
        return { ...regionTemplate, slug, name, available, sizes: available ? sizes : [] };
      }

      function renderSize([slug, vcpus, memory, disk, price, regions, available]: (typeof SIZES)[number]): Json {
        return {
          ...sizeTemplate, slug, vcpus, memory, disk, transfer: memory >= 2048 ? 2 : 1, price_monthly: price, price_hourly: Number((price / 672).toFixed(5)), regions, available,
          description: slug.startsWith('c-') ? 'CPU-Optimized' : slug.startsWith('g-') ? 'General Purpose' : 'Basic', disk_info: [{ type: 'local', size: { amount: disk, unit: 'gib' } }],
        };
      }

      const sizeOf = (slug: string): (typeof SIZES)[number] | undefined => SIZES.find(([s]) => s === slug);
      const regionOf = (slug: string): (typeof REGIONS)[number] => REGIONS.find(([r]) => r === slug) ?? REGIONS[0]!;

      function renderDroplet(d: DropletState): Json {
        advance();
        const size = sizeOf(d.size) ?? SIZES[0]!;
        return {
          ...dropletTemplate, id: d.id, name: d.name, memory: size[2], vcpus: size[1], disk: size[3], disk_info: [{ type: 'local', size: { amount: size[3], unit: 'gib' } }],
          locked: false, status: d.status, created_at: d.created, backup_ids: [], snapshot_ids: [], volume_ids: [], features: ['ipv6'],
          image: { ...(dropletTemplate['image'] as Json), slug: d.image, name: d.image }, size: renderSize(size), size_slug: d.size,
          networks: { v4: [{ ip_address: d.ip, netmask: '255.255.240.0', gateway: '203.0.113.1', type: 'public' }], v6: [] },
          region: renderRegion(regionOf(d.region)), tags: d.tags,
        };
      }

      function renderAction(a: ActionState): Json {
        advance();
        return {
          id: a.id, status: a.applied ? 'completed' : 'in-progress', type: a.type, started_at: a.started, completed_at: a.applied ? new Date(a.finishAt).toISOString() : null,
          resource_id: a.dropletId, resource_type: 'droplet', region: renderRegion(regionOf(a.region)), region_slug: a.region,
        };
      }

      function droplet(request: DoubleRequest): DropletState | DoubleAnswer {
        const found = droplets.get(Number(request.params['droplet_id']));
        return found ?? { status: 404, body: error(404, 'not_found', 'The resource you were accessing could not be found.') };
      }

      function unprocessable(message: string): DoubleAnswer {
        return { status: 422, body: error(422, 'unprocessable_entity', message) };
      }

      // The example's own storage and standby nodes are dropped: a cluster has them only when asked for.
      const { storage_size_mib: _storage, standby_connection: _standby, standby_private_connection: _standbyPrivate, ...clusterTemplate } = example('databases_get_cluster')['database'] as Json;

      function renderCluster(c: ClusterState): Json {
        const engine = DATABASE_ENGINES[c.engine]!;
        const host = hostOf(c);
        const connection = {
          uri: `${engine.scheme}://${engine.user}:${c.password}@${host}:${engine.port}/${engine.database}${c.engine === 'pg' ? '?sslmode=require' : '?tls=true&authSource=admin'}`,
          database: engine.database, host, port: engine.port, user: engine.user, password: c.password, ssl: true,
        };
        return {
          ...clusterTemplate, id: c.id, name: c.name, engine: c.engine, version: c.version, semantic_version: `${c.version}.4`, num_nodes: 1, size: c.size, region: c.region,
          status: clusterStatus(c), created_at: c.created, tags: c.tags, db_names: [engine.database],
          connection, private_connection: { ...connection, host: `private-${host}` }, 
          users: [{ name: engine.user, role: 'primary', password: c.password }],
          // The document: "If null, no additional storage is added": present only when some was asked for.
          ...(c.storageMib === null ? {} : { storage_size_mib: c.storageMib }),
        };
      }

      function cluster(request: DoubleRequest): ClusterState | DoubleAnswer {
        const found = clusters.get(String(request.params['database_cluster_uuid']));
        return found ?? { status: 404, body: error(404, 'not_found', 'The resource you were accessing could not be found.') };
      }

      function clusterOptions(): Json {
        const offer = (slug: string): Json => ({
          regions: DATABASE_REGIONS, versions: offered(slug),
          layouts: [{ num_nodes: 1, sizes: DATABASE_SIZES }, { num_nodes: 3, sizes: DATABASE_SIZES.slice(1) }],
        });
        return { options: { pg: offer('pg'), mongodb: offer('mongodb') } };
      }

      return {
        databases_list_options: () => ({ status: 200, body: clusterOptions() }),
        databases_list_clusters(r) {
          const tag = typeof r.query['tag_name'] === 'string' ? r.query['tag_name'] : undefined;
          return { status: 200, body: { databases: [...clusters.values()].filter((c) => tag === undefined || c.tags.includes(tag)).map(renderCluster) } };
        },
        databases_create_cluster(r) {
          const body = r.body as { name: string; engine: string; version?: string; region: string; size: string; num_nodes: number; tags?: string[] | null; storage_size_mib?: number };
          const engine = DATABASE_ENGINES[body.engine];
          if (!engine) return unprocessable(`invalid engine: ${body.engine}`);
          const version = body.version ?? engine.versions[engine.versions.length - 1]!;
          if (!offered(body.engine).includes(version)) return unprocessable(`invalid version ${version} for engine ${body.engine}`);
          if (!DATABASE_REGIONS.includes(body.region)) return unprocessable(`invalid region: ${body.region}`);
          if (!DATABASE_SIZES.includes(body.size)) return unprocessable(`invalid size: ${body.size}`);
          if (body.num_nodes !== 1 && body.num_nodes !== 3) return unprocessable(`invalid number of nodes: ${body.num_nodes}`);
          if ([...clusters.values()].some((c) => c.name === body.name)) return unprocessable(`a database cluster named ${body.name} already exists`);
          const bad = (body.tags ?? []).find((t) => !/^[a-zA-Z0-9_\-:]+$/.test(t) || t.length > 255);
          if (bad !== undefined) return unprocessable(`tag "${bad}" may contain letters, numbers, colons, dashes and underscores only`);
          const created: ClusterState = {
            id: randomUUID(), name: body.name, engine: body.engine, version, region: body.region, size: body.size, tags: [...new Set(body.tags ?? [])],
            storageMib: body.storage_size_mib ?? null, created: new Date().toISOString(), busyUntil: Date.now() + actionMs, busy: 'creating',
            password: randomBytes(12).toString('base64url'),
          };
          clusters.set(created.id, created);
          return { status: 201, body: { database: renderCluster(created) } };
        },
        databases_get_cluster(r) {
          const c = cluster(r);
          return 'id' in c ? { status: 200, body: { database: renderCluster(c) } } : c;
        },
        databases_destroy_cluster(r) {
          const c = cluster(r);
          if (!('id' in c)) return c;
          clusters.delete(c.id);
          return { status: 204 };
        },
        databases_update_clusterSize(r) {
          const c = cluster(r);
          if (!('id' in c)) return c;
          if (clusterStatus(c) !== 'online') return unprocessable(`database cluster is ${clusterStatus(c)}; try again when it is online`);
          const body = r.body as { size: string; num_nodes: number; storage_size_mib?: number };
          if (!DATABASE_SIZES.includes(body.size)) return unprocessable(`invalid size: ${body.size}`);
          c.size = body.size;
          if (body.storage_size_mib !== undefined) c.storageMib = body.storage_size_mib;
          c.busy = 'resizing';
          c.busyUntil = Date.now() + actionMs;
          return { status: 202 };
        },
        regions_list: (r) => paged(REGIONS, r.query, '/regions', 'regions', renderRegion, maxPerPage),
        sizes_list: (r) => paged(SIZES, r.query, '/sizes', 'sizes', renderSize, maxPerPage),
        droplets_list(r) {
          const tag = typeof r.query['tag_name'] === 'string' ? r.query['tag_name'] : undefined;
          const all = [...droplets.values()].filter((d) => tag === undefined || d.tags.includes(tag));
          return paged(all, r.query, '/droplets', 'droplets', renderDroplet, maxPerPage);
        },
        droplets_create(r) {
          const body = r.body as { name?: string; names?: string[]; region?: string; size: string; image: string | number; tags?: string[] | null; user_data?: string };
          if (body.name === undefined) return unprocessable('this double creates one droplet at a time (name, not names)');
          const size = sizeOf(body.size);
          if (!size?.[6]) return unprocessable(`You specified an invalid size for Droplet creation: ${body.size}`);
          const region = body.region ?? 'nyc3';
          if (!OPEN.includes(region)) return unprocessable(`You specified an invalid region for Droplet creation: ${region}`);
          if (!size[5].includes(region)) return unprocessable(`Size ${body.size} is not available in ${region}`);
          const bad = (body.tags ?? []).find((t) => !/^[a-zA-Z0-9_\-:]+$/.test(t) || t.length > 255);
          if (bad !== undefined) return unprocessable(`tag "${bad}" may contain letters, numbers, colons, dashes and underscores only`);
          const id = nextId++;
          const created: DropletState = {
            id, name: body.name, tags: [...new Set(body.tags ?? [])], size: size[0], region, image: String(body.image), created: new Date().toISOString(), status: 'new', ip: `203.0.113.${id % 250}`, userData: body.user_data ?? null,
          };
          droplets.set(id, created);
          const action = startAction('create', created, () => (created.status = 'active'));
          return { status: 202, body: { droplet: renderDroplet(created), links: { actions: [{ id: action.id, rel: 'create', href: `${PUBLIC_BASE}/actions/${action.id}` }] } } };
        },
        droplets_get(r) {
          const d = droplet(r);
          return 'id' in d ? { status: 200, body: { droplet: renderDroplet(d) } } : d;
        },
        droplets_destroy(r) {
          const d = droplet(r);
          if (!('id' in d)) return d;
          droplets.delete(d.id);
          return { status: 204 };
        },
        dropletActions_post(r) {
          const d = droplet(r);
          if (!('id' in d)) return d;
          if (pending(d)) return unprocessable('Droplet already has a pending event.');
          const body = r.body as { type: string; size?: string };
          switch (body.type) {
            case 'power_on':
              return { status: 201, body: { action: renderAction(startAction('power_on', d, () => (d.status = 'active'))) } };
            case 'power_off':
              return { status: 201, body: { action: renderAction(startAction('power_off', d, () => (d.status = 'off'))) } };
            case 'reboot':
              if (d.status !== 'active') return unprocessable('Droplet is currently off.');
              return { status: 201, body: { action: renderAction(startAction('reboot', d, () => undefined)) } };
            case 'resize': {
              if (d.status !== 'off') return unprocessable('Droplet must be powered off before it can be resized.');
              const size = sizeOf(body.size ?? '');
              if (!size?.[6] || !size[5].includes(d.region)) return unprocessable(`Size ${body.size} is not available in ${d.region}`);
              return { status: 201, body: { action: renderAction(startAction('resize', d, () => (d.size = size[0]))) } };
            }
            default:
              return unprocessable(`this double does not model the action type ${body.type}`);
          }
        },
        dropletActions_get(r) {
          const a = actions.get(Number(r.params['action_id']));
          return a && a.dropletId === Number(r.params['droplet_id'])
            ? { status: 200, body: { action: renderAction(a) } }
            : { status: 404, body: error(404, 'not_found', 'The resource you were accessing could not be found.') };
        },
      };
    },
  });
  return {
    ...double,
    url: `${double.url}/v2`,
    droplets: () => {
      advance();
      return [...droplets.values()].map((d) => ({ id: d.id, name: d.name, tags: d.tags, size: d.size, region: d.region, status: d.status, userData: d.userData }));
    },
    retireDatabaseVersion: (engine, version) => void retired.add(`${engine} ${version}`),
    clusters: () =>
      [...clusters.values()].map((c) => ({
        id: c.id, name: c.name, engine: c.engine, version: c.version, region: c.region, size: c.size, tags: c.tags, storageMib: c.storageMib, status: clusterStatus(c), host: hostOf(c), password: c.password,
      })),
  };
}
