/**
 * @module Benchmark: 100 servers per vendor applied against the vendor's double answering in
 * 100 ms, through the controller with its production defaults: wall time to all Ready and calls
 * per server (ideal: bounded by the vendor's rate budget and action times, not by cairn).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyManifest } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { Store } from '../src/store/store.js';
import { startContaboDouble } from '../test/doubles/contabo.js';
import { startDigitalOceanDouble } from '../test/doubles/digitalocean.js';
import { startExoscaleDouble } from '../test/doubles/exoscale.js';
import { startHetznerDouble } from '../test/doubles/hetzner.js';
import { startLeasewebDouble } from '../test/doubles/leaseweb.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../test/doubles/scaleway.js';
import { startGcpDouble, testServiceAccountKey } from '../test/doubles/gcp/server.js';
import { startIonosDouble } from '../test/doubles/ionos.js';
import { ociDoubleCredentials, startOciDouble } from '../test/doubles/oci/server.js';
import { startLinodeDouble } from '../test/doubles/linode.js';
import { startTencentDouble, TENCENT_TEST_SECRET_ID } from '../test/doubles/tencent/index.js';
import { startVultrDouble } from '../test/doubles/vultr.js';
import type { VendorDouble } from '../test/support/vendor-double.js';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, startAwsDouble } from '../test/doubles/aws/server.js';
import type { Benchmark } from './support/benchmark.js';
import { count, seconds } from './support/figures.js';

const SERVERS = 100;
/** How long 100 servers may take: a vendor with a small budget and many calls per server (IONOS follows every request) needs minutes. */
const READY_WITHIN_MS = 900_000;
const LATENCY_MS = 100;

interface VendorFigures {
  vendor: string;
  servers: number;
  latencyMs: number;
  readyMs: number;
  calls: number;
  callsPerServer: number;
}

export interface VendorsResult {
  vendors: VendorFigures[];
}

interface VendorUnderBench {
  vendor: string;
  /** Starts the vendor's double answering in `latencyMs`, with `token`. */
  start(token: string, latencyMs: number): Promise<Pick<VendorDouble, 'url' | 'calls' | 'violations' | 'stop'>>;
  regions: string[];
  size: string;
  image: string;
  /** The credentials variable's value for `token`, when the vendor takes more than a token (a JSON bundle; Google's key names the double's token endpoint, at `url`). */
  credentials?(token: string, url: string): string;
}

const BENCHED: VendorUnderBench[] = [
  { vendor: 'hetzner', start: (token, latencyMs) => startHetznerDouble({ token, latencyMs, actionMs: 1000 }), regions: ['fsn1', 'nbg1', 'hel1'], size: 'cx22', image: 'debian-12' },
  {
    vendor: 'digitalocean', start: (token, latencyMs) => startDigitalOceanDouble({ token, latencyMs, actionMs: 1000 }), regions: ['fra1', 'ams3', 'nyc3'], size: 's-1vcpu-1gb',
    image: 'debian-12-x64',
  },
  { vendor: 'vultr', start: (token, latencyMs) => startVultrDouble({ token, latencyMs, actionMs: 1000 }), regions: ['fra', 'ams', 'ewr'], size: 'vc2-1c-1gb', image: 'debian-12' },
  {
    vendor: 'scaleway', start: (token, latencyMs) => startScalewayDouble({ token, latencyMs, actionMs: 1000 }), regions: ['fr-par-1', 'nl-ams-1', 'pl-waw-1'], size: 'DEV1-S',
    image: 'debian-12', credentials: (token) => JSON.stringify({ secret_key: token, project_id: SCALEWAY_TEST_PROJECT }),
  },
  {
    vendor: 'exoscale', start: (token, latencyMs) => startExoscaleDouble({ token, secret: 'bench-secret', latencyMs, actionMs: 1000 }), regions: ['ch-gva-2', 'de-fra-1', 'at-vie-1'],
    size: 'standard.small', image: 'debian-12', credentials: (token) => JSON.stringify({ api_key: token, api_secret: 'bench-secret' }),
  },
  {
    vendor: 'contabo', start: (token, latencyMs) => startContaboDouble({ token, latencyMs, actionMs: 1000 }), regions: ['EU', 'US-east', 'UK'], size: 'V91', image: 'debian-12',
    credentials: (token) => JSON.stringify({ client_id: 'cairn-client', client_secret: token, api_user: 'ops@example.com', api_password: 'api-password' }),
  },
  { vendor: 'linode', start: (token, latencyMs) => startLinodeDouble({ token, latencyMs, actionMs: 1000 }), regions: ['eu-central', 'eu-west', 'us-east'], size: 'g6-nanode-1', image: 'debian-12' },
  {
    vendor: 'leaseweb', start: (token, latencyMs) => startLeasewebDouble({ token, latencyMs, actionMs: 1000 }), regions: ['eu-west-3', 'eu-central-1', 'us-east-1'], size: 'lsw.m3.large',
    image: 'debian-12',
  },
  {
    vendor: 'aws', start: (_token, latencyMs) => startAwsDouble({ latencyMs, actionMs: 1000, pageSize: 5 }), regions: ['eu-west-1', 'eu-central-1', 'us-east-1'], size: 't3.micro',
    image: 'debian-12', credentials: () => JSON.stringify({ access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' }),
  },
  { vendor: 'ionos', start: (token, latencyMs) => startIonosDouble({ token, latencyMs, actionMs: 1000 }), regions: ['de/fra', 'de/txl', 'gb/lhr'], size: 'e-1c-2gb', image: 'debian-12' },
  {
    vendor: 'tencent', start: (token, latencyMs) => startTencentDouble({ token, latencyMs, actionMs: 1000, pageSize: 100 }), regions: ['ap-guangzhou-3', 'ap-singapore-1', 'eu-frankfurt-1'],
    size: 'S5.SMALL1', image: 'debian-12', credentials: (token) => JSON.stringify({ secret_id: TENCENT_TEST_SECRET_ID, secret_key: token }),
  },
  {
    vendor: 'gcp', start: (_token, latencyMs) => startGcpDouble({ latencyMs, actionMs: 1000, maxPerPage: 500 }), regions: ['europe-west1-b', 'europe-west1-c', 'us-central1-a'], size: 'e2-small',
    image: 'debian-12', credentials: (_token, url) => testServiceAccountKey(url),
  },
  {
    vendor: 'oci', start: (_token, latencyMs) => startOciDouble({ latencyMs, actionMs: 1000, maxPerPage: 100 }), regions: ['eu-frankfurt-1-ad-1', 'eu-frankfurt-1-ad-2', 'eu-frankfurt-1-ad-3'], size: 'VM.Standard2.1',
    image: 'debian-12', credentials: () => JSON.stringify(ociDoubleCredentials()),
  },
];

async function bench(target: VendorUnderBench, progress: (line: string) => void): Promise<VendorFigures> {
  const { vendor } = target;
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-vendors-'));
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = 'true';
  const tokenEnv = `CAIRN_BENCH_${vendor.toUpperCase()}_TOKEN`;
  const double = await target.start('bench-token', LATENCY_MS);
  process.env[tokenEnv] = target.credentials ? target.credentials('bench-token', double.url) : 'bench-token';
  const store = Store.open(join(root, 'state'));
  const controller = new Controller(store, { dataDir: join(root, 'state'), pollMs: 1000 });
  try {
    const provider: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: vendor }, spec: { vendor, endpoint: double.url, credentialsRef: { env: tokenEnv } } };
    const servers: AnyManifest[] = Array.from({ length: SERVERS }, (_, i) => ({
      apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: `web-${i}` },
      spec: { provider: vendor, region: target.regions[i % target.regions.length] ?? '', size: target.size, image: target.image },
    }));
    const started = performance.now();
    store.resources.apply('default', 'api', [provider, ...servers]);
    controller.start();
    const ready = (): number =>
      store.resources.list({ tenant: 'default', kind: 'Server' }).filter((r) => r.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    for (let seen = 0; seen < SERVERS; seen = ready()) {
      if (performance.now() - started > READY_WITHIN_MS) throw new Error(`${vendor}: ${seen} of ${SERVERS} servers ready after ${seconds(READY_WITHIN_MS)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const readyMs = performance.now() - started;
    if (double.violations.length > 0) throw new Error(`${vendor}: requests or answers outside the document: ${double.violations.slice(0, 3).join('; ')}`);
    progress(`${vendor}: ${SERVERS} servers ready in ${seconds(readyMs)}`);
    return { vendor, servers: SERVERS, latencyMs: LATENCY_MS, readyMs, calls: double.calls.length, callsPerServer: double.calls.length / SERVERS };
  } finally {
    await controller.stop();
    store.close();
    await double.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The vendors CAIRN_BENCH_VENDORS names (comma list), or all of them. */
function chosen(): VendorUnderBench[] {
  const names = (process.env.CAIRN_BENCH_VENDORS ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  if (names.length === 0) return BENCHED;
  const unknown = names.filter((n) => !BENCHED.some((t) => t.vendor === n));
  if (unknown.length > 0) throw new Error(`CAIRN_BENCH_VENDORS names ${unknown.join(', ')}; the benched vendors are ${BENCHED.map((t) => t.vendor).join(', ')}`);
  return BENCHED.filter((t) => names.includes(t.vendor));
}

async function run(progress: (line: string) => void): Promise<VendorsResult> {
  const vendors: VendorFigures[] = [];
  for (const target of chosen()) vendors.push(await bench(target, progress));
  return { vendors };
}

function format(r: VendorsResult): string[] {
  return [
    `vendors: ${count(SERVERS)} servers per vendor against its double answering in ${LATENCY_MS} ms`,
    ...r.vendors.map((v) => `  ${v.vendor.padEnd(12)} all Ready after ${seconds(v.readyMs)}; ${count(v.calls)} calls, ${v.callsPerServer.toFixed(1)} per server`),
  ];
}

export const vendorsBenchmark: Benchmark<VendorsResult> = {
  name: 'vendors',
  description: 'apply 100 servers per cloud vendor against its double (100 ms answers): time to Ready, calls per server',
  run,
  format,
};
