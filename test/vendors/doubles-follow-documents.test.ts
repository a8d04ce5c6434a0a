/**
 * @module Each vendor double holds cairn to the vendor's own document, both ways: a request the
 * document forbids is refused in the vendor's error shape and recorded as a violation, and an
 * answer the document forbids is replaced by a 500 and recorded, so no driver test can pass on a
 * wire format the vendor would not speak.
 */
import { describe, expect, it } from 'vitest';
import { exoscaleAuthorization } from '../../src/drivers/exoscale/signature.js';
import { ATLAS_PROJECT_ID, atlasDocumentAsServed, startAtlasDouble } from '../doubles/atlas.js';
import { startContaboDouble } from '../doubles/contabo.js';
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';
import { startExoscaleDouble } from '../doubles/exoscale.js';
import { startHetznerDouble } from '../doubles/hetzner.js';
import { startLeasewebDouble } from '../doubles/leaseweb.js';
import { startIonosDouble } from '../doubles/ionos.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';
import { startScalewayRdbDouble } from '../doubles/scaleway-rdb.js';
import { startLinodeDouble } from '../doubles/linode.js';
import { startVultrDouble } from '../doubles/vultr.js';
import { GCP_CLIENT_EMAIL, GCP_PROJECT, startGcpDouble } from '../doubles/gcp/server.js';
import { startVendorDouble, vendorDocument, type VendorDouble, type VendorDoubleOptions } from '../support/vendor-double.js';

interface Case {
  vendor: string;
  start(token: string): Promise<VendorDouble>;
  /** A create the document forbids (a required field missing, another of the wrong type), below the double's URL. */
  badCreate: { path: string; body: unknown; operationId: string };
  /** The document, and a list operation whose answer is replaced by one the document forbids. */
  document: string[];
  basePath?: string;
  /** Where the document's paths start, given the double's URL, when not at it (a second document the double serves). */
  baseOf?: (doubleUrl: string) => string;
  /** How the double takes its token, when not as a bearer token. */
  auth?: (token: string) => Record<string, string>;
  /** The request's authorization header, given the double's URL and the request (default: the token as a bearer). */
  authorization?: (request: { doubleUrl: string; url: URL; body: string; token: string }) => string | Promise<string>;
  list: { operationId: string; path: string; badAnswer: unknown };
  /** Headers every request of the document must carry besides auth (Contabo: `x-request-id`). */
  required?: Record<string, string>;
  /** How the vendor's double reads its document (Atlas: versioned media types as JSON). */
  amendDocument?: VendorDoubleOptions['amendDocument'];
}

const CASES: Case[] = [
  {
    vendor: 'hetzner',
    start: (token) => startHetznerDouble({ token }),
    badCreate: { path: '/servers', body: { name: 42, image: 'debian-12' }, operationId: 'create_server' },
    document: ['hetzner', 'hcloud.json'],
    basePath: '/v1',
    list: { operationId: 'list_locations', path: '/locations', badAnswer: { locations: [{ name: 7 }] } },
  },
  {
    vendor: 'digitalocean',
    start: (token) => startDigitalOceanDouble({ token }),
    badCreate: { path: '/droplets', body: { name: 42, region: 'fra1' }, operationId: 'droplets_create' },
    document: ['digitalocean', 'specification', 'droplets.v2.yaml'],
    list: { operationId: 'regions_list', path: '/v2/regions', badAnswer: { regions: 'not a list' } },
  },
  {
    vendor: 'vultr',
    start: (token) => startVultrDouble({ token }),
    badCreate: { path: '/instances', body: { region: 7, plan: ['vc2-1c-1gb'] }, operationId: 'create-instance' },
    document: ['vultr', 'openapi.json'],
    basePath: '/v2',
    list: { operationId: 'list-regions', path: '/regions', badAnswer: { regions: 'not a list' } },
  },
  {
    vendor: 'scaleway',
    start: (token) => startScalewayDouble({ token }),
    badCreate: { path: '/instance/v1/zones/fr-par-1/servers', body: { name: 42, commercial_type: ['DEV1-S'], project: SCALEWAY_TEST_PROJECT }, operationId: 'CreateServer' },
    document: ['scaleway', 'scaleway.instance.v1.Api.yml'],
    auth: (token) => ({ 'x-auth-token': token }),
    list: { operationId: 'ListServersTypes', path: '/instance/v1/zones/fr-par-1/products/servers', badAnswer: { servers: 'not a map' } },
  },
  {
    vendor: 'scaleway (RDB)',
    start: (token) => startScalewayRdbDouble({ token }),
    badCreate: { path: '/rdb/v1/regions/fr-par/instances', body: { engine: 'PostgreSQL-16', node_type: ['DB-DEV-S'], password: 'x' }, operationId: 'CreateInstance' },
    document: ['scaleway', 'scaleway.rdb.v1.Api.yml'],
    auth: (token) => ({ 'x-auth-token': token }),
    list: { operationId: 'ListNodeTypes', path: '/rdb/v1/regions/fr-par/node-types?include_disabled_types=false', badAnswer: { node_types: 'not a list' } },
  },
  {
    vendor: 'exoscale',
    start: (token) => startExoscaleDouble({ token, secret: 'doc-secret' }),
    authorization: ({ url, body, token }) => exoscaleAuthorization(token, 'doc-secret', { method: 'POST', url, body }, Math.floor(Date.now() / 1000) + 600),
    badCreate: { path: '/instance', body: { name: 42, 'disk-size': 10, template: {} }, operationId: 'create-instance' },
    document: ['exoscale', 'source.yaml'],
    basePath: '/v2',
    list: { operationId: 'list-zones', path: '/zone', badAnswer: { zones: 'not a list' } },
  },
  {
    vendor: 'contabo',
    start: (token) => startContaboDouble({ token }),
    badCreate: { path: '/v1/compute/instances', body: { period: 1, region: 'mars' }, operationId: 'createInstance' },
    document: ['contabo', 'openapi.yaml'],
    list: { operationId: 'retrieveDataCenterList', path: '/v1/data-centers', badAnswer: { data: 'not a list' } },
    required: { 'x-request-id': '04e0f898-37b4-48bc-a794-1a57abe6aa31' },
    async authorization({ doubleUrl: url, token }) {
      const form = new URLSearchParams({ grant_type: 'password', client_id: 'cairn-client', client_secret: token, username: 'ops@example.com', password: 'api-password' });
      const answer = await fetch(`${url}/auth/realms/contabo/protocol/openid-connect/token`, { method: 'POST', body: form });
      return `Bearer ${((await answer.json()) as { access_token: string }).access_token}`;
    },
  },
  {
    vendor: 'linode',
    start: (token) => startLinodeDouble({ token }),
    badCreate: { path: '/linode/instances', body: { region: 7, type: ['g6-nanode-1'], label: 'web-1' }, operationId: 'post-linode-instance' },
    document: ['linode', 'openapi.yaml'],
    list: { operationId: 'get-regions', path: '/v4/regions', badAnswer: { data: 'not a list', page: 1, pages: 1, results: 0 } },
  },
  {
    vendor: 'leaseweb',
    start: (token) => startLeasewebDouble({ token }),
    badCreate: { path: '/instances', body: { region: 7, type: ['lsw.m3.large'], imageId: 'DEBIAN_12_64BIT', contractType: 'HOURLY', contractTerm: 0, billingFrequency: 1, rootDiskStorageType: 'CENTRAL' }, operationId: 'launchInstance' },
    document: ['leaseweb', 'publiccloud.openapi.yaml'],
    basePath: '/publicCloud/v1',
    auth: (token) => ({ 'x-lsw-auth': token }),
    list: { operationId: 'getRegionList', path: '/regions', badAnswer: { regions: 'not a list', _metadata: { totalCount: 0, limit: 50, offset: 0 } } },
  },
  {
    vendor: 'ionos',
    start: (token) => startIonosDouble({ token }),
    badCreate: { path: '/datacenters/0b7c5e2a-6f1d-4c1e-9a53-2d4f7b8e9c10/servers', body: { properties: { name: 42, cores: 1, ram: 1024 } }, operationId: 'datacentersServersPost' },
    document: ['ionos', 'cloudapi-v6.openapi.yaml'],
    basePath: '/cloudapi/v6',
    list: { operationId: 'locationsGet', path: '/locations', badAnswer: { items: 'not a list' } },
  },
  {
    vendor: 'ionos (DBaaS PostgreSQL, on the same double)',
    start: (token) => startIonosDouble({ token }),
    baseOf: (doubleUrl) => doubleUrl.replace(/\/cloudapi\/v6$/, '/databases/postgresql'),
    badCreate: { path: '/clusters', body: { properties: { displayName: 42, cores: 1 } }, operationId: 'clustersPost' },
    document: ['ionos', 'dbaas-postgres.openapi.yaml'],
    basePath: '/databases/postgresql',
    list: { operationId: 'clustersGet', path: '/clusters', badAnswer: { items: 'not a list' } },
  },
  {
    vendor: 'atlas',
    start: (token) => startAtlasDouble({ token }),
    badCreate: { path: `/api/atlas/v2/groups/${ATLAS_PROJECT_ID}/clusters`, body: { name: 42, clusterType: 'REPLICASET' }, operationId: 'createCluster' },
    document: ['mongodb-atlas', 'atlas-api.yaml'],
    amendDocument: atlasDocumentAsServed,
    list: { operationId: 'listClusters', path: `/api/atlas/v2/groups/${ATLAS_PROJECT_ID}/clusters`, badAnswer: { results: 'not a list' } },
    async authorization({ doubleUrl: url, token }) {
      const basic = Buffer.from(`mdb_sa_id_test:${token}`).toString('base64');
      const answer = await fetch(`${url}/api/oauth/token`, { method: 'POST', body: 'grant_type=client_credentials', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
      return `Bearer ${((await answer.json()) as { access_token: string }).access_token}`;
    },
  },
];

describe.each(CASES)('the $vendor double', (c) => {
  it('refuses a request its document forbids, in the vendor’s error shape, and records it', async () => {
    const double = await c.start('doc-token');
    try {
      const url = new URL(`${c.baseOf ? c.baseOf(double.url) : double.url}${c.badCreate.path}`);
      const body = JSON.stringify(c.badCreate.body);
      const answer = await fetch(url, {
        method: 'POST',
        headers: {
          ...(c.auth ? c.auth('doc-token') : { authorization: c.authorization ? await c.authorization({ doubleUrl: double.url, url, body, token: 'doc-token' }) : 'Bearer doc-token' }),
          'content-type': 'application/json',
          ...c.required,
        },
        body,
      });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(await answer.json())).toMatch(/server_type|name|region|plan|commercial_type|instance-type|connections/);
      expect(double.violations).toEqual([expect.stringContaining(`${c.badCreate.operationId}: request breaks the document`)]);
      const documented = double.calls.filter((call) => !call.operationId.includes(' ')); // routes outside the document (a token endpoint) are logged as `METHOD /path`
      expect(documented).toEqual([expect.objectContaining({ operationId: c.badCreate.operationId, status: 400 })]);
    } finally {
      await double.stop();
    }
  });

  it('replaces an answer its document forbids by a 500, and records it', async () => {
    const double = await startVendorDouble({
      document: vendorDocument(...c.document),
      ...(c.basePath ? { basePath: c.basePath } : {}),
      ...(c.amendDocument ? { amendDocument: c.amendDocument } : {}),
      error: (status, code, message) => ({ status, code, message }),
      authenticate: () => null,
      handlers: () => ({ [c.list.operationId]: () => ({ status: 200, body: c.list.badAnswer }) }),
    });
    try {
      const answer = await fetch(`${double.url}${c.list.path}`, { headers: { ...c.required } });
      expect(answer.status).toBe(500);
      expect(double.violations).toEqual([expect.stringContaining(`answer to ${c.list.operationId} (200) breaks the document`)]);
    } finally {
      await double.stop();
    }
  });
});

// Google's double is not built on openapi-backend: it checks against Google's discovery document (test/support/discovery-validator.ts).
describe('the gcp double', () => {
  it('refuses a request its discovery document forbids, in Google’s error shape, and records it; replaces an answer it forbids by a 500', async () => {
    const double = await startGcpDouble();
    try {
      double.tokens.issued.set('ya29.test', GCP_CLIENT_EMAIL);
      const headers = { authorization: 'Bearer ya29.test', 'content-type': 'application/json' };
      const base = `${double.url}/compute/v1/projects/${GCP_PROJECT}/zones/europe-west1-b/instances`;
      const refused = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ name: 'web-1', machine_type: 'e2-small' }) });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', errors: [{ reason: 'invalid' }], message: expect.stringContaining('machine_type') } });
      expect(double.violations).toEqual([expect.stringContaining('compute.instances.insert request: Instance must NOT have additional properties (machine_type)')]);
      double.violations.length = 0;
      const inserted = await fetch(`${base}?requestId=0d7c4b5e-1f2a-5b3c-8d4e-5f6a7b8c9d0e`, { method: 'POST', headers, body: JSON.stringify({ name: 'web-1', machineType: 'zones/europe-west1-b/machineTypes/e2-small', disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }] }) });
      expect(inserted.status).toBe(200);
      (double.compute.instances.get('europe-west1-b/web-1') as unknown as { status: string }).status = 'SLEEPING';
      const broken = await fetch(`${base}/web-1`, { headers });
      expect(broken.status).toBe(500);
      expect(double.violations).toEqual([expect.stringContaining('compute.instances.get answer: Instance/status must be equal to one of the allowed values')]);
      double.violations.length = 0;
    } finally {
      await double.stop();
    }
  });
});
