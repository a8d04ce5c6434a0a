/**
 * @module A stateful double of IONOS's Cloud API v6 (https://api.ionos.com/cloudapi/v6), on the
 * vendor-double harness (every request and answer checked against IONOS's own document):
 * locations with their CPU limits and image aliases, data centers (offset paging with
 * `_links.next`), public LANs, servers made with their boot volume and NIC in one request, their
 * power, resize (cores and RAM), and delete (with `deleteVolumes`). Every write answers 202 with
 * a `Location` of `https://api.ionos.com/cloudapi/v6/requests/{id}/status`, as IONOS does, whose
 * request runs for `actionMs` (QUEUED/RUNNING, then DONE); the resource is BUSY meanwhile.
 * Authentication is a bearer token or HTTP Basic, IONOS's two schemes; errors come in IONOS's
 * shape (`httpStatus`, `messages`). User data is recorded decoded, and the image password as sent.
 *
 * The same double serves IONOS's DBaaS PostgreSQL API under `/databases/postgresql` (checked
 * against its own document): clusters connected to a data center's private LAN (which must exist), BUSY
 * for `actionMs` after a create or patch, found by `filter.name` (part of the display name,
 * regardless of case), with the versions it offers and the upgrades a cluster can take; the
 * credentials it was given are recorded.
 */
import { randomUUID } from 'node:crypto';
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('ionos', 'cloudapi-v6.openapi.yaml');
const POSTGRES_DOCUMENT = vendorDocument('ionos', 'dbaas-postgres.openapi.yaml');
const API = 'https://api.ionos.com/cloudapi/v6';
/** The PostgreSQL versions the DBaaS offers, and the DBaaS locations (the document's `Location` list). */
const POSTGRES_VERSIONS = ['13', '14', '15', '16'];
const POSTGRES_LOCATIONS = ['de/fra', 'de/txl', 'gb/lhr', 'es/vit', 'us/ewr', 'us/las'];
/** Users IONOS reserves (the document's `DBUser.username`). */
const RESERVED_USERS = ['postgres', 'admin', 'standby'];

/** Locations: id, name, CPU architectures (family, max cores, max RAM MB), image aliases. */
const LOCATIONS: Array<[string, string, Array<[string, number, number]>]> = [
  ['de/fra', 'frankfurt', [['INTEL_SKYLAKE', 62, 230_400], ['AMD_EPYC', 62, 230_400]]],
  ['de/txl', 'berlin', [['INTEL_SKYLAKE', 62, 230_400]]],
  ['de/fkb', 'karlsruhe', [['INTEL_XEON', 24, 122_880]]],
  ['gb/lhr', 'london', [['INTEL_SKYLAKE', 62, 230_400]]],
  ['us/las', 'lasvegas', [['AMD_EPYC', 62, 230_400]]],
  ['us/ewr', 'newark', [['INTEL_XEON', 2, 8192]]],
  ['es/vit', 'logrono', []],
];
const ALIASES = ['debian:12', 'debian:11', 'ubuntu:22.04', 'ubuntu:24.04', 'ubuntu:latest', 'rocky:9'];

export interface IonosDoubleOptions extends CommonDoubleOptions {
  /** The account's username and password, for HTTP Basic. */
  username?: string;
  password?: string;
  /** The most items a page of a list holds whatever `limit` asks; small to make lists page. */
  maxPerPage?: number;
}

type Json = Record<string, unknown>;
type VmState = 'RUNNING' | 'SHUTOFF';

interface Work {
  /** The state while the request runs and what it becomes after. */
  doneAt: number;
  apply?: () => void;
}

interface ServerState {
  id: string;
  dc: string;
  name: string;
  cores: number;
  ram: number;
  vmState: VmState;
  busyUntil: number;
  volume: { id: string; name: string; type: string; size: number; imageAlias: string | null; image: string | null; imagePassword: string; userData: string | null };
  nic: { id: string; lan: number; ip: string };
}

export interface PostgresClusterState {
  id: string;
  displayName: string;
  postgresVersion: string;
  cores: number;
  ram: number;
  storageSize: number;
  storageType: string;
  location: string;
  connection: { datacenterId: string; lanId: string; cidr: string };
  username: string;
  password: string;
  dnsName: string;
  busyUntil: number;
}

export interface IonosDouble extends VendorDouble {
  /** The DBaaS PostgreSQL clusters, with the credentials each was given. */
  postgresClusters(): Array<PostgresClusterState & { state: 'BUSY' | 'AVAILABLE' }>;
  datacenters(): Array<{ id: string; name: string; location: string; lans: Array<{ id: number; name: string; public: boolean }> }>;
  /** The servers, with their boot volume (user data decoded). */
  servers(): Array<{ id: string; dc: string; location: string; name: string; cores: number; ram: number; vmState: VmState; busy: boolean; volume: ServerState['volume']; lan: number }>;
  /** Volumes left behind by deleted servers. */
  orphanVolumes(): string[];
}

function error(status: number, code: string, message: string): Json {
  return { httpStatus: status, messages: [{ errorCode: code, message }] };
}

/** IONOS's `imagePassword` rule (the document: "allows all characters from a-z, A-Z, 0-9"), and at least 8 of them. */
function validImagePassword(password: string): boolean {
  return /^[a-zA-Z0-9]{8,}$/.test(password);
}

export async function startIonosDouble(options: IonosDoubleOptions = {}): Promise<IonosDouble> {
  const token = options.token ?? 'ionos-test-token';
  const basic = `Basic ${Buffer.from(`${options.username ?? 'ops@example.com'}:${options.password ?? 'ionos-test-password'}`).toString('base64')}`;
  const actionMs = options.actionMs ?? 150;
  const maxPerPage = options.maxPerPage ?? 1000;
  const datacenters = new Map<string, { id: string; name: string; location: string; busyUntil: number; lans: Array<{ id: number; name: string; public: boolean }> }>();
  const servers = new Map<string, ServerState>();
  const requests = new Map<string, Work>();
  const orphans: string[] = [];
  let ipSerial = 10;
  const pgClusters = new Map<string, PostgresClusterState>();
  const pgState = (c: PostgresClusterState): 'BUSY' | 'AVAILABLE' => (Date.now() < c.busyUntil ? 'BUSY' : 'AVAILABLE');
  function renderPgCluster(c: PostgresClusterState, state: string = pgState(c)): Json {
    return {
      type: 'cluster', id: c.id,
      metadata: { createdDate: '2026-01-01T00:00:00Z', createdBy: 'ops@example.com', state },
      properties: {
        displayName: c.displayName, postgresVersion: c.postgresVersion, location: c.location, dnsName: c.dnsName, backupLocation: 'de', instances: 1,
        ram: c.ram, cores: c.cores, storageSize: c.storageSize, storageType: c.storageType, connections: [c.connection],
        maintenanceWindow: { dayOfTheWeek: 'Sunday', time: '03:00:00' }, synchronizationMode: 'ASYNCHRONOUS',
      },
    };
  }
  function pgCluster(request: DoubleRequest): PostgresClusterState | DoubleAnswer {
    return pgClusters.get(request.params['clusterId'] ?? '') ?? notFound(`cluster ${request.params['clusterId']}`);
  }

  function settle(): void {
    const now = Date.now();
    for (const [id, work] of requests) {
      if (work.apply && now >= work.doneAt) {
        work.apply();
        requests.set(id, { doneAt: work.doneAt });
      }
    }
  }

  /** A 202 for a write carried out over `actionMs`; `apply` runs when it is done. */
  function accepted(body: unknown, apply?: () => void): DoubleAnswer {
    const id = randomUUID();
    requests.set(id, { doneAt: Date.now() + actionMs, ...(apply ? { apply } : {}) });
    return { status: 202, ...(body === undefined ? {} : { body }), headers: { location: `${API}/requests/${id}/status` } };
  }

  const notFound = (what: string): DoubleAnswer => ({ status: 404, body: error(404, '309', `Resource does not exist: ${what}`) });
  const invalid = (message: string): DoubleAnswer => ({ status: 422, body: error(422, '100', message) });
  const metadata = (busy: boolean, state = 'AVAILABLE'): Json => ({ etag: 'e2b3c1d0', createdDate: '2026-01-01T00:00:00Z', createdBy: 'ops@example.com', state: busy ? 'BUSY' : state });

  function paged(items: unknown[], request: DoubleRequest, path: string): DoubleAnswer {
    const offset = Number(request.query['offset'] ?? 0);
    const limit = Math.min(maxPerPage, Number(request.query['limit'] ?? 1000));
    const page = items.slice(offset, offset + limit);
    const links: Json = { self: `${API}${path}?offset=${offset}&limit=${limit}` };
    if (offset + limit < items.length) links['next'] = `${API}${path}?offset=${offset + limit}&limit=${limit}`;
    return { status: 200, body: { id: path, href: `${API}${path}`, items: page, offset, limit, _links: links } };
  }

  function renderServer(s: ServerState): Json {
    const now = Date.now();
    const busy = now < s.busyUntil;
    const v = s.volume;
    return {
      id: s.id, href: `${API}/datacenters/${s.dc}/servers/${s.id}`, metadata: metadata(busy),
      properties: { name: s.name, cores: s.cores, ram: s.ram, type: 'ENTERPRISE', availabilityZone: 'AUTO', vmState: s.vmState, cpuFamily: 'INTEL_SKYLAKE', bootVolume: { id: v.id } },
      entities: {
        volumes: { id: `${s.id}/volumes`, items: [{ id: v.id, metadata: metadata(busy), properties: { name: v.name, type: v.type, size: v.size, ...(v.imageAlias === null ? {} : { imageAlias: v.imageAlias }), image: v.image ?? '5b1d1ec4-0d3c-11ef-8b4a-0a58a9feac02', bootServer: s.id } }] },
        nics: { id: `${s.id}/nics`, items: [{ id: s.nic.id, metadata: metadata(busy), properties: { name: 'public', lan: s.nic.lan, dhcp: true, ips: busy ? [] : [s.nic.ip], mac: '02:01:aa:bb:cc:dd' } }] },
      },
    };
  }

  function dcOf(request: DoubleRequest): { id: string; location: string; lans: Array<{ id: number; name: string; public: boolean }> } | DoubleAnswer {
    return datacenters.get(request.params['datacenterId'] ?? '') ?? notFound(`datacenter ${request.params['datacenterId']}`);
  }

  function serverOf(request: DoubleRequest): ServerState | DoubleAnswer {
    settle();
    const dc = dcOf(request);
    if ('status' in dc) return dc;
    const s = servers.get(request.params['serverId'] ?? '');
    return s && s.dc === dc.id ? s : notFound(`server ${request.params['serverId']}`);
  }

  function busyRefusal(s: ServerState): DoubleAnswer | null {
    return Date.now() < s.busyUntil ? { status: 422, body: error(422, '422', `The server ${s.id} is currently busy; try again when its request is done`) } : null;
  }

  function power(request: DoubleRequest, then: VmState): DoubleAnswer {
    const s = serverOf(request);
    if (!('id' in s)) return s;
    const refused = busyRefusal(s);
    if (refused) return refused;
    s.busyUntil = Date.now() + actionMs;
    return accepted(undefined, () => {
      s.vmState = then;
    });
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    basePath: '/cloudapi/v6',
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    authenticate(headers) {
      const given = headers.authorization;
      if (given === `Bearer ${token}` || given === basic) return null;
      return { status: 401, body: error(401, '315', 'Unauthorized: the credentials are not valid') };
    },
    alsoServes: [{
      document: POSTGRES_DOCUMENT,
      basePath: '/databases/postgresql',
      handlers: () => ({
        clustersGet: (r) => {
          const contains = typeof r.query['filter.name'] === 'string' ? r.query['filter.name'].toLowerCase() : undefined;
          const items = [...pgClusters.values()].filter((c) => contains === undefined || c.displayName.toLowerCase().includes(contains)).map((c) => renderPgCluster(c));
          return { status: 200, body: { type: 'collection', id: 'clusters', items, offset: 0, limit: items.length, _links: {} } };
        },
        clustersPost: (r) => {
          const p = (r.body as { properties: { displayName: string; postgresVersion: string; cores: number; ram: number; storageSize: number; storageType: string; location: string; connections: Array<{ datacenterId: string; lanId: string; cidr: string }>; credentials: { username: string; password: string } } }).properties;
          if (!POSTGRES_VERSIONS.includes(p.postgresVersion)) return invalid(`postgresVersion ${p.postgresVersion} is not supported`);
          if (!POSTGRES_LOCATIONS.includes(p.location)) return invalid(`location ${p.location} is not supported`);
          if (RESERVED_USERS.includes(p.credentials.username)) return invalid(`username ${p.credentials.username} is reserved`);
          const connection = p.connections[0];
          if (!connection) return invalid('connections: one connection is required');
          const dc = datacenters.get(connection.datacenterId);
          if (!dc || dc.location !== p.location) return invalid(`connections[0].datacenterId ${connection.datacenterId} is not a data center in ${p.location}`);
          const lan = dc.lans.find((l) => String(l.id) === connection.lanId);
          if (!lan) return invalid(`connections[0].lanId ${connection.lanId} does not exist in data center ${dc.id}`);
          if (lan.public) return invalid(`connections[0].lanId ${connection.lanId} is a public LAN; a database connects only to a private LAN`);
          if (!/^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/.test(connection.cidr) || connection.cidr.startsWith('10.233.')) return invalid(`connections[0].cidr ${connection.cidr} is not a usable address`);
          const ip = connection.cidr.split('/')[0];
          if ([...pgClusters.values()].some((c) => c.connection.datacenterId === dc.id && c.connection.lanId === connection.lanId && c.connection.cidr.split('/')[0] === ip)) return invalid(`connections[0].cidr ${ip} is already used in this LAN`);
          const id = randomUUID();
          const c: PostgresClusterState = {
            id, displayName: p.displayName, postgresVersion: p.postgresVersion, cores: p.cores, ram: p.ram, storageSize: p.storageSize, storageType: p.storageType, location: p.location,
            connection: { ...connection }, username: p.credentials.username, password: p.credentials.password,
            dnsName: `pg-${id.slice(0, 8)}.postgresql.${p.location.replace('/', '-')}.ionos.com`, busyUntil: Date.now() + actionMs,
          };
          pgClusters.set(id, c);
          return { status: 200, body: renderPgCluster(c) };
        },
        clustersFindById: (r) => {
          const c = pgCluster(r);
          return 'id' in c ? { status: 200, body: renderPgCluster(c) } : c;
        },
        clustersPatch: (r) => {
          const c = pgCluster(r);
          if (!('id' in c)) return c;
          if (pgState(c) === 'BUSY') return invalid(`cluster ${c.id} is BUSY; try again when it is AVAILABLE`);
          const p = (r.body as { properties: { cores?: number; ram?: number; storageSize?: number; postgresVersion?: string } }).properties;
          if (p.storageSize !== undefined && p.storageSize < c.storageSize) return invalid('storageSize cannot shrink');
          if (p.postgresVersion !== undefined && !(POSTGRES_VERSIONS.includes(p.postgresVersion) && Number(p.postgresVersion) > Number(c.postgresVersion))) return invalid(`cannot move from ${c.postgresVersion} to ${p.postgresVersion}`);
          Object.assign(c, Object.fromEntries(Object.entries(p).filter(([k]) => ['cores', 'ram', 'storageSize', 'postgresVersion'].includes(k))));
          c.busyUntil = Date.now() + actionMs;
          return { status: 200, body: renderPgCluster(c) };
        },
        clustersDelete: (r) => {
          const c = pgCluster(r);
          if (!('id' in c)) return c;
          pgClusters.delete(c.id);
          return { status: 200, body: renderPgCluster(c, 'DESTROYING') };
        },
        postgresVersionsGet: () => ({ status: 200, body: { data: POSTGRES_VERSIONS.map((name) => ({ name })) } }),
        clusterPostgresVersionsGet: (r) => {
          const c = pgCluster(r);
          if (!('id' in c)) return c;
          return { status: 200, body: { data: POSTGRES_VERSIONS.filter((v) => Number(v) > Number(c.postgresVersion)).map((name) => ({ name })) } };
        },
      }),
    }],
    handlers: () => ({
      locationsGet: () => ({
        status: 200,
        body: {
          id: 'locations', href: `${API}/locations`,
          items: LOCATIONS.map(([id, name, cpus]) => ({
            id, href: `${API}/locations/${id}`,
            properties: { name, features: ['SSD'], imageAliases: ALIASES, cpuArchitecture: cpus.map(([cpuFamily, maxCores, maxRam]) => ({ cpuFamily, maxCores, maxRam, vendor: 'GenuineIntel' })) },
          })),
        },
      }),
      datacentersGet: (r) => {
        settle();
        return paged([...datacenters.values()].map((dc) => ({ id: dc.id, href: `${API}/datacenters/${dc.id}`, metadata: metadata(Date.now() < dc.busyUntil), properties: { name: dc.name, location: dc.location, version: 1 } })), r, '/datacenters');
      },
      datacentersPost: (r) => {
        const properties = (r.body as { properties: { name?: string; location: string } }).properties;
        if (!LOCATIONS.some(([id]) => id === properties.location)) return invalid(`[(root).properties.location] location ${properties.location} does not exist`);
        const dc = { id: randomUUID(), name: properties.name ?? '', location: properties.location, busyUntil: Date.now() + actionMs, lans: [] };
        datacenters.set(dc.id, dc);
        return accepted({ id: dc.id, href: `${API}/datacenters/${dc.id}`, metadata: metadata(true), properties: { name: dc.name, location: dc.location } });
      },
      datacentersLansGet: (r) => {
        const dc = dcOf(r);
        if ('status' in dc) return dc;
        return paged(dc.lans.map((lan) => ({ id: String(lan.id), properties: { name: lan.name, public: lan.public } })), r, `/datacenters/${dc.id}/lans`);
      },
      datacentersLansPost: (r) => {
        const dc = dcOf(r);
        if ('status' in dc) return dc;
        const properties = (r.body as { properties: { name?: string; public?: boolean } }).properties;
        const lan = { id: dc.lans.length + 1, name: properties.name ?? '', public: properties.public ?? false };
        dc.lans.push(lan);
        return accepted({ id: String(lan.id), properties: { name: lan.name, public: lan.public } });
      },
      datacentersServersGet: (r) => {
        settle();
        const dc = dcOf(r);
        if ('status' in dc) return dc;
        return paged([...servers.values()].filter((s) => s.dc === dc.id).map(renderServer), r, `/datacenters/${dc.id}/servers`);
      },
      datacentersServersPost: (r) => {
        const dc = dcOf(r);
        if ('status' in dc) return dc;
        const body = r.body as { properties: { name?: string; cores: number; ram: number }; entities?: { volumes?: { items?: Array<{ properties: Json }> }; nics?: { items?: Array<{ properties: Json }> } } };
        const volume = body.entities?.volumes?.items?.[0]?.properties as { name?: string; type?: string; size: number; imageAlias?: string; image?: string; imagePassword?: string; userData?: string } | undefined;
        const nic = body.entities?.nics?.items?.[0]?.properties as { lan: number } | undefined;
        if (!volume) return invalid('[(root).entities.volumes] a server needs a boot volume here');
        if (volume.imageAlias === undefined && volume.image === undefined) return invalid('[(root).entities.volumes.items[0].properties] image or imageAlias is required');
        if (volume.imageAlias !== undefined && !ALIASES.includes(volume.imageAlias)) return invalid(`[(root).entities.volumes.items[0].properties.imageAlias] image alias ${volume.imageAlias} is not available in ${dc.location}`);
        if (volume.imagePassword === undefined || !validImagePassword(volume.imagePassword)) return invalid('[(root).entities.volumes.items[0].properties.imagePassword] a public image needs an imagePassword of letters and digits (at least 8), or sshKeys');
        if (body.properties.ram % 256 !== 0) return invalid('[(root).properties.ram] RAM must be a multiple of 256 MB');
        const cpus = LOCATIONS.find(([id]) => id === dc.location)?.[2] ?? [];
        if (!cpus.some(([, maxCores, maxRam]) => maxCores >= body.properties.cores && maxRam >= body.properties.ram)) return invalid(`[(root).properties] ${body.properties.cores} cores and ${body.properties.ram} MB are more than ${dc.location} offers`);
        if (nic && !dc.lans.some((lan) => lan.id === nic.lan)) return invalid(`[(root).entities.nics.items[0].properties.lan] LAN ${nic.lan} does not exist`);
        const s: ServerState = {
          id: randomUUID(), dc: dc.id, name: body.properties.name ?? '', cores: body.properties.cores, ram: body.properties.ram, vmState: 'RUNNING', busyUntil: Date.now() + actionMs,
          volume: {
            id: randomUUID(), name: volume.name ?? '', type: volume.type ?? 'HDD', size: volume.size, imageAlias: volume.imageAlias ?? null, image: volume.image ?? null, imagePassword: volume.imagePassword,
            userData: volume.userData === undefined ? null : Buffer.from(volume.userData, 'base64').toString('utf8'),
          },
          nic: { id: randomUUID(), lan: nic?.lan ?? 0, ip: `85.215.${ipSerial >> 8}.${ipSerial++ & 255}` },
        };
        servers.set(s.id, s);
        return accepted({ id: s.id, href: `${API}/datacenters/${dc.id}/servers/${s.id}`, metadata: metadata(true), properties: { name: s.name, cores: s.cores, ram: s.ram } });
      },
      datacentersServersFindById: (r) => {
        const s = serverOf(r);
        return 'id' in s ? { status: 200, body: renderServer(s) } : s;
      },
      datacentersServersPatch: (r) => {
        const s = serverOf(r);
        if (!('id' in s)) return s;
        const refused = busyRefusal(s);
        if (refused) return refused;
        const properties = r.body as { cores: number; ram: number };
        s.cores = properties.cores;
        s.ram = properties.ram;
        s.busyUntil = Date.now() + actionMs;
        return accepted(renderServer(s));
      },
      datacentersServersDelete: (r) => {
        const s = serverOf(r);
        if (!('id' in s)) return s;
        servers.delete(s.id);
        if (r.query['deleteVolumes'] !== 'true') orphans.push(s.volume.id);
        return accepted(undefined);
      },
      datacentersServersStartPost: (r) => power(r, 'RUNNING'),
      datacentersServersStopPost: (r) => power(r, 'SHUTOFF'),
      datacentersServersRebootPost: (r) => power(r, 'RUNNING'),
      requestsStatusGet: (r) => {
        settle();
        const id = r.params['requestId'] ?? '';
        const work = requests.get(id);
        if (!work) return notFound(`request ${id}`);
        const status = Date.now() >= work.doneAt ? 'DONE' : 'RUNNING';
        return { status: 200, body: { id, href: `${API}/requests/${id}/status`, metadata: { status, message: status === 'DONE' ? 'Request has been successfully executed' : 'Request is being executed' } } };
      },
    }),
  });
  return {
    ...double,
    url: `${double.url}`,
    datacenters: () => [...datacenters.values()].map((dc) => ({ id: dc.id, name: dc.name, location: dc.location, lans: dc.lans.map((l) => ({ ...l })) })),
    servers: () => {
      settle();
      return [...servers.values()].map((s) => ({
        id: s.id, dc: s.dc, location: datacenters.get(s.dc)?.location ?? '', name: s.name, cores: s.cores, ram: s.ram, vmState: s.vmState, busy: Date.now() < s.busyUntil, volume: { ...s.volume }, lan: s.nic.lan,
      }));
    },
    orphanVolumes: () => [...orphans],
    postgresClusters: () => [...pgClusters.values()].map((c) => ({ ...c, connection: { ...c.connection }, state: pgState(c) })),
  };
}
