/**
 * @module Each vendor double holds cairn to the vendor's own document, both ways: a request the
 * document forbids is refused in the vendor's error shape and recorded as a violation, and an
 * answer the document forbids is replaced by a 500 and recorded, so no driver test can pass on a
 * wire format the vendor would not speak.
 */
import { describe, expect, it } from 'vitest';
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';
import { startHetznerDouble } from '../doubles/hetzner.js';
import { startLinodeDouble } from '../doubles/linode.js';
import { startVultrDouble } from '../doubles/vultr.js';
import { startVendorDouble, vendorDocument, type VendorDouble } from '../support/vendor-double.js';

interface Case {
  vendor: string;
  start(token: string): Promise<VendorDouble>;
  /** A create the document forbids (a required field missing, another of the wrong type), below the double's URL. */
  badCreate: { path: string; body: unknown; operationId: string };
  /** The document, and a list operation whose answer is replaced by one the document forbids. */
  document: string[];
  basePath?: string;
  list: { operationId: string; path: string; badAnswer: unknown };
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
    vendor: 'linode',
    start: (token) => startLinodeDouble({ token }),
    badCreate: { path: '/linode/instances', body: { region: 7, type: ['g6-nanode-1'], label: 'web-1' }, operationId: 'post-linode-instance' },
    document: ['linode', 'openapi.yaml'],
    list: { operationId: 'get-regions', path: '/v4/regions', badAnswer: { data: 'not a list', page: 1, pages: 1, results: 0 } },
  },
];

describe.each(CASES)('the $vendor double', (c) => {
  it('refuses a request its document forbids, in the vendor’s error shape, and records it', async () => {
    const double = await c.start('doc-token');
    try {
      const answer = await fetch(`${double.url}${c.badCreate.path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer doc-token', 'content-type': 'application/json' },
        body: JSON.stringify(c.badCreate.body),
      });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(await answer.json())).toMatch(/server_type|name|region|plan/);
      expect(double.violations).toEqual([expect.stringContaining(`${c.badCreate.operationId}: request breaks the document`)]);
      expect(double.calls).toEqual([expect.objectContaining({ operationId: c.badCreate.operationId, status: 400 })]);
    } finally {
      await double.stop();
    }
  });

  it('replaces an answer its document forbids by a 500, and records it', async () => {
    const double = await startVendorDouble({
      document: vendorDocument(...c.document),
      ...(c.basePath ? { basePath: c.basePath } : {}),
      error: (status, code, message) => ({ status, code, message }),
      authenticate: () => null,
      handlers: () => ({ [c.list.operationId]: () => ({ status: 200, body: c.list.badAnswer }) }),
    });
    try {
      const answer = await fetch(`${double.url}${c.list.path}`);
      expect(answer.status).toBe(500);
      expect(double.violations).toEqual([expect.stringContaining(`answer to ${c.list.operationId} (200) breaks the document`)]);
    } finally {
      await double.stop();
    }
  });
});
