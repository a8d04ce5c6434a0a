/**
 * @module A stateful double of Linode's API v4 on loopback, for the linode driver's tests:
 * Linodes (labels unique per account as at Linode, tags and the `X-Filter` header's `tags` and
 * `label` filters, `provisioning` → `running` after `actionMs`; boot, shut down and reboot
 * through `booting`, `shutting_down` and `rebooting`; a resize through `migrating`, as Linode
 * moves the Linode cold to a host with room, back to running or offline; the root password an
 * image needs, checked for strength; user data kept decoded), regions with a status and
 * capabilities, types with prices, managed PostgreSQL databases (engines, database types with
 * per-node prices, instances `provisioning` → `active` after `actionMs`, labels unique and 3 to
 * 32 characters, a resize through `updating` to a type with more disk only, a root password
 * Linode chooses, read through the credentials endpoint), page-number paging (`page`, `pages`, `results`; `page_size` 25 to 500), Linode's error
 * shape `{ errors: [{ reason, field }] }`, bearer tokens, and its limit as 429s.
 *
 * Every request and answer is checked against Linode's document
 * (test/vendor-apis/linode/openapi.yaml), read as Linode means it in two places where its
 * schemas say less than its API does (linodeDocumentAsMeant, below).
 */
import { randomInt } from 'node:crypto';
import type { Document } from 'openapi-backend';
import { loadVendorDocument, startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('linode', 'openapi.yaml');

/** Linode's regions: id, label, country, status. */
const REGIONS: Array<[string, string, string, 'ok' | 'outage']> = [
  ['us-east', 'Newark, NJ', 'us', 'ok'], ['us-central', 'Dallas, TX', 'us', 'ok'], ['us-west', 'Fremont, CA', 'us', 'ok'], ['us-ord', 'Chicago, IL', 'us', 'ok'],
  ['eu-west', 'London, UK', 'gb', 'ok'], ['eu-central', 'Frankfurt, DE', 'de', 'ok'], ['se-sto', 'Stockholm, SE', 'se', 'outage'],
  ['ap-south', 'Singapore, SG', 'sg', 'ok'], ['ap-northeast', 'Tokyo, JP', 'jp', 'ok'], ['ap-southeast', 'Sydney, AU', 'au', 'ok'],
];

/** Regions that run managed databases (the `Managed Databases` capability). */
const DATABASE_REGIONS = ['us-east', 'us-ord', 'eu-central', 'eu-west', 'ap-south'];

/** Managed database engines: id, engine, version. */
const DATABASE_ENGINES: Array<[string, string, string]> = [
  ['mysql/8', 'mysql', '8'], ['postgresql/14', 'postgresql', '14'], ['postgresql/15', 'postgresql', '15'], ['postgresql/16', 'postgresql', '16'],
];

/** The PostgreSQL release each major runs in the double. */
const POSTGRES_RELEASE: Readonly<Record<string, string>> = { '14': '14.13', '15': '15.8', '16': '16.4' };

/** Managed database types: id, label, class, vcpus, memory MB, disk MB, the node counts PostgreSQL takes on it. */
const DATABASE_TYPES: Array<[string, string, string, number, number, number, number[]]> = [
  ['g6-nanode-1', 'DBaaS - Nanode 1GB', 'nanode', 1, 1024, 25_600, [1]],
  ['g6-standard-1', 'DBaaS - Linode 2GB', 'standard', 1, 2048, 51_200, [1, 3]],
  ['g6-standard-2', 'DBaaS - Linode 4GB', 'standard', 2, 4096, 81_920, [1, 3]],
  ['g6-dedicated-2', 'DBaaS - Dedicated 4GB', 'dedicated', 2, 4096, 81_920, [3]],
];

/** Types: id, label, class, vcpus, memory MB, disk MB, monthly USD. */
const TYPES: Array<[string, string, string, number, number, number, number]> = [
  ['g6-nanode-1', 'Nanode 1GB', 'nanode', 1, 1024, 25_600, 5],
  ['g6-standard-1', 'Linode 2GB', 'standard', 1, 2048, 51_200, 12],
  ['g6-standard-2', 'Linode 4GB', 'standard', 2, 4096, 81_920, 24],
  ['g6-standard-4', 'Linode 8GB', 'standard', 4, 8192, 163_840, 48],
  ['g6-dedicated-2', 'Dedicated 4GB', 'dedicated', 2, 4096, 81_920, 36],
  ['g7-highmem-1', 'Linode 24GB', 'highmem', 2, 24_576, 20_480, 60],
];

/** Official images the double knows. */
const IMAGES = ['linode/debian12', 'linode/debian11', 'linode/ubuntu24.04', 'linode/ubuntu22.04', 'linode/alpine3.20'];

export interface LinodeDoubleOptions extends CommonDoubleOptions {
  /** The most items a page holds whatever `page_size` asks (Linode: 500); small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type LinodeStatus = 'provisioning' | 'running' | 'offline' | 'booting' | 'shutting_down' | 'rebooting' | 'migrating';

interface LinodeState {
  id: number;
  label: string;
  tags: string[];
  type: string;
  region: string;
  image: string;
  created: string;
  status: LinodeStatus;
  /** What the Linode becomes when its work ends, at `settlesAt`. */
  then: 'running' | 'offline';
  settlesAt: number;
  rootPassword: string;
  userData: string | null;
  ip: string;
}

type DatabaseStatus = 'provisioning' | 'active' | 'updating';

interface DatabaseState {
  id: number;
  label: string;
  region: string;
  type: string;
  engine: string;
  version: string;
  allowList: string[];
  clusterSize: number;
  created: string;
  status: DatabaseStatus;
  settlesAt: number;
  host: string;
  username: string;
  password: string;
}

export interface LinodeDouble extends VendorDouble {
  /** The managed PostgreSQL databases the double holds now. */
  databases(): Array<{ id: number; label: string; region: string; type: string; engine: string; version: string; allowList: string[]; clusterSize: number; status: DatabaseStatus; host: string; username: string; password: string }>;
  /** What the double holds now (tests look at "the cloud" directly); `userData` decoded. */
  linodes(): Array<{ id: number; label: string; tags: string[]; type: string; region: string; image: string; status: LinodeStatus; rootPassword: string; userData: string | null }>;
}

function error(_status: number, _code: string, reason: string, field?: string): Json {
  return { errors: [field === undefined ? { reason } : { reason, field }] };
}

const fixed = new WeakSet<object>();

/**
 * Linode's document as its API behaves, in two places, changed in the loaded copy only:
 * - A create's body is `allOf: [common properties with additionalProperties: false, the rest]`;
 *   read literally, no create could name its region or type. Such an allOf is read as one closed
 *   object with the properties of all its parts.
 * - `X-Filter` is a header, so it travels as JSON text; the document types it as an object.
 *   It is taken as a string here, and the double reads the JSON itself (400 when it is not).
 * - Some lists (regions, types) answer in pages (`page`, `pages`, `results`) but declare no
 *   `page` or `page_size`; Linode pages every list alike (its pagination reference), so such a
 *   list takes the two parameters the others declare.
 */
export function linodeDocumentAsMeant(document: Document): void {
  if (fixed.has(document)) return;
  fixed.add(document);
  const seen = new Set<object>();
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const schema = node as Record<string, unknown>;
    const parts = schema['allOf'];
    if (Array.isArray(parts) && parts.some((p) => (p as Json | null)?.['additionalProperties'] === false) && parts.every((p) => typeof (p as Json | null)?.['properties'] === 'object')) {
      const properties = Object.assign({}, ...parts.map((p) => (p as Json)['properties'] as Json)) as Json;
      const required = [...new Set(parts.flatMap((p) => ((p as Json)['required'] as string[] | undefined) ?? []))];
      Reflect.deleteProperty(schema, 'allOf');
      Object.assign(schema, { type: 'object', additionalProperties: false, properties, ...(required.length > 0 ? { required } : {}) });
    }
    if (schema['in'] === 'header' && typeof schema['name'] === 'string' && schema['name'].toLowerCase() === 'x-filter') schema['schema'] = { type: 'string' };
    for (const value of Object.values(schema)) walk(value);
  };
  walk(document);
  const shared = document.components?.parameters as Record<string, unknown> | undefined;
  const paging = [shared?.['page-offset'], shared?.['page-size']];
  if (paging.some((p) => p === undefined)) throw new Error('linode document: components.parameters page-offset and page-size are gone');
  for (const item of Object.values(document.paths ?? {})) {
    const list = item?.get as { parameters?: Array<{ name?: string }>; responses?: Record<string, { content?: Record<string, { schema?: { properties?: Json } }> }> } | undefined;
    const answer = list?.responses?.['200']?.content?.['application/json']?.schema?.properties;
    if (!list || !answer || !('pages' in answer) || !('data' in answer)) continue;
    const declared = [...(list.parameters ?? []), ...((item?.parameters ?? []) as Array<{ name?: string }>)].map((p) => p.name);
    if (!declared.includes('page')) list.parameters = [...(list.parameters ?? []), ...(paging as Array<{ name?: string }>)];
  }
}

/** One page of `items`: Linode's `{ data, page, pages, results }`. */
function paged<T>(items: T[], query: DoubleRequest['query'], render: (item: T) => unknown, maxPerPage: number): DoubleAnswer {
  const size = Math.min(maxPerPage, Number(query['page_size'] ?? 100));
  const page = Number(query['page'] ?? 1);
  const pages = Math.max(1, Math.ceil(items.length / size));
  return { status: 200, body: { data: items.slice((page - 1) * size, page * size).map(render), page, pages, results: items.length } };
}

/** Linode's password strength check, roughly: long enough, and three kinds of character. */
function strongEnough(password: string): boolean {
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^a-zA-Z\d]/].filter((kind) => kind.test(password)).length;
  return password.length >= 11 && kinds >= 3;
}

export async function startLinodeDouble(options: LinodeDoubleOptions = {}): Promise<LinodeDouble> {
  const token = options.token ?? 'linode-test-token';
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 500;
  const linodes = new Map<number, LinodeState>();
  const databases = new Map<number, DatabaseState>();
  let databaseSerial = 900;
  let serial = 40_000_000;
  linodeDocumentAsMeant(await loadVendorDocument(DOCUMENT));

  /** Ends the work whose time has come. */
  function advance(): void {
    const now = Date.now();
    for (const l of linodes.values()) if (l.status !== l.then && now >= l.settlesAt) l.status = l.then;
    for (const db of databases.values()) if (db.status !== 'active' && now >= db.settlesAt) db.status = 'active';
  }

  function busy(l: LinodeState, status: LinodeStatus, then: 'running' | 'offline'): void {
    l.status = status;
    l.then = then;
    l.settlesAt = Date.now() + actionMs;
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      return headers.authorization === `Bearer ${token}` ? null : { status: 401, body: error(401, 'unauthorized', 'Invalid Token') };
    },
    handlers(example) {
      const linodeTemplate = example('get-linode-instance');
      const typeTemplate = (example('get-linode-types')['data'] as Json[])[0]!;
      const regionTemplate = (example('get-regions')['data'] as Json[])[0]!;
      const typeOf = (id: string): (typeof TYPES)[number] | undefined => TYPES.find(([t]) => t === id);
      const bad = (reason: string, field?: string): DoubleAnswer => ({ status: 400, body: error(400, 'bad_request', reason, field) });
      const databaseTemplate = example('get-databases-postgre-sql-instance');
      const databaseTypeTemplate = (example('get-databases-types')['data'] as Json[])[0]!;
      const databaseTypeOf = (id: string): (typeof DATABASE_TYPES)[number] | undefined => DATABASE_TYPES.find(([t]) => t === id);

      function renderDatabase(db: DatabaseState): Json {
        advance();
        const type = databaseTypeOf(db.type) ?? DATABASE_TYPES[0]!;
        const provisioned = db.status !== 'provisioning';
        return {
          ...databaseTemplate, id: db.id, label: db.label, region: db.region, type: db.type, engine: 'postgresql', version: db.version, status: db.status,
          allow_list: db.allowList, cluster_size: db.clusterSize, encrypted: false, port: 5432, ssl_connection: true, replication_type: 'none',
          hosts: { primary: provisioned ? db.host : null, secondary: provisioned ? db.host.replace('-primary', '-primary-private') : null },
          total_disk_size_gb: Math.round(type[5] / 1024), used_disk_size_gb: 1, created: db.created, updated: db.created,
        };
      }

      function database(request: DoubleRequest): DatabaseState | DoubleAnswer {
        advance();
        return databases.get(Number(request.params['instanceId'])) ?? { status: 404, body: error(404, 'not_found', 'Not found') };
      }

      function render(l: LinodeState): Json {
        advance();
        const type = typeOf(l.type) ?? TYPES[0]!;
        return {
          ...linodeTemplate, id: l.id, label: l.label, tags: l.tags, type: l.type, region: l.region, image: l.image, status: l.status, group: '',
          ipv4: [l.ip, `192.168.${128 + (l.id % 100)}.${l.id % 250}`], ipv6: `2600:3c00::f03c:93ff:fe${(l.id % 256).toString(16).padStart(2, '0')}:1/128`,
          specs: { disk: type[5], memory: type[4], vcpus: type[3], gpus: 0, transfer: 1000 }, created: l.created, updated: l.created,
          has_user_data: l.userData !== null, lke_cluster_id: null, placement_group: null,
          // Times as the document's `format: date-time` has them (RFC 3339, with the zone), which Prism checks.
          backups: { ...(linodeTemplate['backups'] as Json), last_successful: l.created },
          // The document's example host_uuid is 40 hex digits, which its own `format: uuid` refuses.
          host_uuid: '3a3ddd59-d9a7-48bb-8de0-41391075df44',
        };
      }

      function linode(request: DoubleRequest): LinodeState | DoubleAnswer {
        advance();
        return linodes.get(Number(request.params['linodeId'])) ?? { status: 404, body: error(404, 'not_found', 'Not found') };
      }

      /** `X-Filter`: the `tags` (has this tag) and `label` (is this label) filters, the ones cairn uses. */
      function filterOf(request: DoubleRequest): ((l: LinodeState) => boolean) | DoubleAnswer {
        const header = request.headers['x-filter'];
        if (header === undefined) return () => true;
        let filter: unknown;
        try {
          filter = JSON.parse(String(header));
        } catch {
          return bad('X-Filter is not valid JSON', 'X-Filter');
        }
        if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return bad('X-Filter must be a JSON object', 'X-Filter');
        const tests: Array<(l: LinodeState) => boolean> = [];
        for (const [field, value] of Object.entries(filter)) {
          if (typeof value !== 'string') return bad(`this double filters ${field} by a plain value only`, 'X-Filter');
          if (field === 'tags') tests.push((l) => l.tags.includes(value));
          else if (field === 'label') tests.push((l) => l.label === value);
          else return bad(`Cannot filter on ${field}`, 'X-Filter');
        }
        return (l) => tests.every((test) => test(l));
      }

      function power(request: DoubleRequest, from: 'running' | 'offline' | 'any', status: LinodeStatus, then: 'running' | 'offline'): DoubleAnswer {
        const l = linode(request);
        if (!('id' in l)) return l;
        if (l.status !== 'running' && l.status !== 'offline') return bad(`Linode busy: ${l.status}.`);
        if (from !== 'any' && l.status !== from) return { status: 200, body: {} };
        busy(l, status, then);
        return { status: 200, body: {} };
      }

      return {
        'get-profile': () => ({ status: 200, body: example('get-profile') }),
        'get-regions': (r) =>
          paged(REGIONS, r.query, ([id, label, country, status]) => ({
            ...regionTemplate, id, label, country, status, capabilities: ['Linodes', 'Block Storage', 'Metadata', ...(DATABASE_REGIONS.includes(id) ? ['Managed Databases'] : [])],
          }), maxPerPage),
        'get-linode-types': (r) =>
          paged(TYPES, r.query, ([id, label, cls, vcpus, memory, disk, monthly]) => ({
            ...typeTemplate, id, label, class: cls, vcpus, memory, disk, gpus: 0, transfer: 1000, network_out: 1000, successor: null,
            price: { hourly: Math.round((monthly / 730) * 1000) / 1000, monthly }, region_prices: [],
          }), maxPerPage),
        'get-linode-instances'(r) {
          advance();
          const filter = filterOf(r);
          if (typeof filter !== 'function') return filter;
          return paged([...linodes.values()].filter(filter), r.query, render, maxPerPage);
        },
        'post-linode-instance'(r) {
          const body = r.body as { label?: string; region?: string; type?: string; image?: string; root_pass?: string; tags?: string[]; metadata?: { user_data?: string } };
          const region = REGIONS.find(([id]) => id === body.region);
          if (!region) return bad('region is not valid', 'region');
          if (region[3] !== 'ok') return bad(`Region ${region[0]} is not accepting new Linodes`, 'region');
          const type = body.type === undefined ? undefined : typeOf(body.type);
          if (!type) return bad('A valid plan type by that ID was not found', 'type');
          if (body.image === undefined || !(IMAGES.includes(body.image) || body.image.startsWith('private/'))) return bad('No image with that id', 'image');
          if (body.root_pass === undefined) return bad('root_pass is required when deploying from an image', 'root_pass');
          if (!strongEnough(body.root_pass)) return bad('Password does not meet strength requirement', 'root_pass');
          const label = body.label ?? `linode${serial + 1}`;
          if ([...linodes.values()].some((l) => l.label === label)) return bad('Label must be unique among your Linodes', 'label');
          for (const tag of body.tags ?? []) if (tag.length < 3 || tag.length > 50) return bad('Length must be 3-50 characters', 'tags');
          const id = ++serial;
          const created: LinodeState = {
            id, label, tags: [...new Set(body.tags ?? [])], type: type[0], region: region[0], image: body.image, created: new Date().toISOString(),
            status: 'provisioning', then: 'running', settlesAt: Date.now() + actionMs, rootPassword: body.root_pass,
            userData: body.metadata?.user_data === undefined ? null : Buffer.from(body.metadata.user_data, 'base64').toString('utf8'), ip: `172.105.${randomInt(0, 255)}.${id % 250}`,
          };
          linodes.set(id, created);
          return { status: 200, body: render(created) };
        },
        'get-linode-instance'(r) {
          const l = linode(r);
          return 'id' in l ? { status: 200, body: render(l) } : l;
        },
        'post-resize-linode-instance'(r) {
          const l = linode(r);
          if (!('id' in l)) return l;
          const type = typeOf((r.body as { type: string }).type);
          if (!type) return bad('A valid plan type by that ID was not found', 'type');
          if (l.status !== 'running' && l.status !== 'offline') return bad(`Linode busy: ${l.status}.`);
          if (type[0] === l.type) return bad('Linode is already that type', 'type');
          l.type = type[0];
          busy(l, 'migrating', l.status === 'running' ? 'running' : 'offline');
          return { status: 200, body: {} };
        },
        'delete-linode-instance'(r) {
          const l = linode(r);
          if (!('id' in l)) return l;
          linodes.delete(l.id);
          return { status: 200, body: {} };
        },
        'get-databases-engines': (r) => paged(DATABASE_ENGINES, r.query, ([id, engine, version]) => ({ id, engine, version }), maxPerPage),
        'get-databases-types': (r) =>
          paged(DATABASE_TYPES, r.query, ([id, label, cls, vcpus, memory, disk, nodes]) => {
            const prices = nodes.map((quantity) => ({ quantity, price: { monthly: 15 * quantity * vcpus, hourly: Math.round(((15 * quantity * vcpus) / 730) * 1000) / 1000 } }));
            return { ...databaseTypeTemplate, id, label, class: cls, vcpus, memory, disk, deprecated: false, engines: { mysql: prices, postgresql: prices } };
          }, maxPerPage),
        'get-databases-postgre-sql-instances': (r) => paged([...databases.values()], r.query, renderDatabase, maxPerPage),
        'post-databases-postgre-sql-instances'(r) {
          const body = r.body as { label: string; region: string; type: string; engine: string; cluster_size?: number; allow_list?: string[] };
          if (!DATABASE_REGIONS.includes(body.region)) return bad('Region does not support Managed Databases', 'region');
          const type = databaseTypeOf(body.type);
          const nodes = body.cluster_size ?? 1;
          if (!type) return bad('A valid plan type by that ID was not found', 'type');
          if (!type[6].includes(nodes)) return bad(`Type ${type[0]} does not offer a cluster of ${nodes}`, 'cluster_size');
          const engine = DATABASE_ENGINES.find(([id]) => id === body.engine);
          if (!engine || engine[1] !== 'postgresql') return bad('Invalid engine', 'engine');
          if ([...databases.values()].some((db) => db.label === body.label)) return bad('Label must be unique among your Managed Databases', 'label');
          const id = ++databaseSerial;
          const created: DatabaseState = {
            id, label: body.label, region: body.region, type: type[0], engine: engine[0], version: POSTGRES_RELEASE[engine[2]] ?? engine[2], allowList: body.allow_list ?? [],
            clusterSize: nodes, created: new Date().toISOString(), status: 'provisioning', settlesAt: Date.now() + actionMs,
            host: `lin-${id}-${randomInt(1000, 9999)}-pgsql-primary.servers.linodedb.net`, username: 'linroot', password: `Lp${randomInt(10 ** 9, 10 ** 10)}x${randomInt(10 ** 5, 10 ** 6)}`,
          };
          databases.set(id, created);
          return { status: 200, body: renderDatabase(created) };
        },
        'get-databases-postgre-sql-instance'(r) {
          const db = database(r);
          return 'id' in db ? { status: 200, body: renderDatabase(db) } : db;
        },
        'put-databases-postgre-sql-instance'(r) {
          const db = database(r);
          if (!('id' in db)) return db;
          const body = r.body as { type?: string; label?: string; allow_list?: string[] };
          if (db.status !== 'active') return bad(`Database busy: ${db.status}.`);
          if (body.type !== undefined && body.allow_list !== undefined) return bad("You can't update the allow_list and set a new type in the same request", 'type');
          if (body.type !== undefined && body.type !== db.type) {
            const type = databaseTypeOf(body.type);
            if (!type) return bad('A valid plan type by that ID was not found', 'type');
            if (type[5] <= (databaseTypeOf(db.type)?.[5] ?? 0)) return bad('Needs to be a Linode Type with more disk space than your current one', 'type');
            db.type = type[0];
            db.status = 'updating';
            db.settlesAt = Date.now() + actionMs;
          }
          if (body.label !== undefined) db.label = body.label;
          if (body.allow_list !== undefined) db.allowList = body.allow_list;
          return { status: 200, body: renderDatabase(db) };
        },
        'delete-databases-postgre-sql-instance'(r) {
          const db = database(r);
          if (!('id' in db)) return db;
          databases.delete(db.id);
          return { status: 200, body: {} };
        },
        'get-databases-postgre-sql-instance-credentials'(r) {
          const db = database(r);
          return 'id' in db ? { status: 200, body: { username: db.username, password: db.password } } : db;
        },
        'post-boot-linode-instance': (r) => power(r, 'offline', 'booting', 'running'),
        'post-shutdown-linode-instance': (r) => power(r, 'running', 'shutting_down', 'offline'),
        'post-reboot-linode-instance': (r) => power(r, 'any', 'rebooting', 'running'),
      };
    },
  });
  return {
    ...double,
    url: `${double.url}/v4`,
    linodes: () => {
      advance();
      return [...linodes.values()].map((l) => ({ id: l.id, label: l.label, tags: l.tags, type: l.type, region: l.region, image: l.image, status: l.status, rootPassword: l.rootPassword, userData: l.userData }));
    },
    databases: () => {
      advance();
      return [...databases.values()].map((db) => ({ ...db, allowList: [...db.allowList] })).map(({ created: _created, settlesAt: _settlesAt, ...db }) => db);
    },
  };
}
