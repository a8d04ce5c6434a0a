/**
 * @module Manifest sets for the benchmarks, written as YAML: a large mixed fleet (providers,
 * servers, databases, apps with labels, env and references, one namespace per file) for `plan`,
 * and a provider plus N servers at a sandbox cloud endpoint for `apply`. Deterministic, so two
 * writes with the same options give the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How a fleet's resources are shared out among kinds: ~1 provider per 100 resources. */
const FLEET_SHARES = { providers: 0.01, servers: 0.4, databases: 0.24 } as const;

export interface FleetOptions {
  /** Total resources, spread evenly over `files`. */
  resources: number;
  files: number;
  /** Changes one field (the size of one server in the middle file), for the "one change" plan. */
  changeOneField?: boolean;
}

export interface FleetCounts {
  providers: number;
  servers: number;
  databases: number;
  apps: number;
  files: number;
  bytes: number;
}

/** The field `changeOneField` changes, for messages. */
export const CHANGED_FIELD_NOTE = 'spec.size of one Server (small → large) in one file';

const REGIONS = ['eu-1', 'us-1', 'ap-1'];
const SIZES = ['small', 'medium', 'large'];
const IMAGES = ['debian-12', 'ubuntu-24-04'];
const ENVIRONMENTS = ['production', 'staging'];

function pad(n: number): string {
  return String(n).padStart(4, '0');
}

function providerYaml(ns: string, team: string, i: number): string {
  return [
    'apiVersion: cairn.dev/v1',
    'kind: Provider',
    'metadata:',
    `  name: cloud-${i}`,
    `  namespace: ${ns}`,
    '  labels:',
    `    team: ${team}`,
    `    billing: cc-${1000 + i}`,
    'spec:',
    '  vendor: sandbox',
    '  credentialsRef:',
    `    env: CLOUD_${i}_TOKEN`,
    '',
  ].join('\n');
}

function serverYaml(ns: string, team: string, i: number, providers: number, changed: boolean): string {
  const size = changed ? 'large' : SIZES[i % 3 === 2 ? 1 : 0];
  return [
    'apiVersion: cairn.dev/v1',
    'kind: Server',
    'metadata:',
    `  name: web-${pad(i)}`,
    `  namespace: ${ns}`,
    '  labels:',
    `    team: ${team}`,
    `    env: ${ENVIRONMENTS[i % 2]}`,
    `    tier: ${i % 4 === 0 ? 'data' : 'app'}`,
    `    cost-center: cc-${1000 + (i % 17)}`,
    '  annotations:',
    `    owner: ${team}-oncall@example.com`,
    'spec:',
    `  provider: cloud-${i % providers}`,
    `  region: ${REGIONS[i % REGIONS.length]}`,
    `  size: ${size}`,
    `  image: ${IMAGES[i % IMAGES.length]}`,
    '  state: running',
    '',
  ].join('\n');
}

function databaseYaml(ns: string, team: string, i: number, servers: number): string {
  const postgres = i % 3 !== 0;
  return [
    'apiVersion: cairn.dev/v1',
    'kind: Database',
    'metadata:',
    `  name: db-${pad(i)}`,
    `  namespace: ${ns}`,
    '  labels:',
    `    team: ${team}`,
    `    env: ${ENVIRONMENTS[i % 2]}`,
    'spec:',
    `  type: ${postgres ? 'postgresql' : 'mongodb'}`,
    `  server: web-${pad((i * 7) % servers)}`,
    `  version: "${postgres ? '16' : '7.0'}"`,
    ...(postgres ? [`  storageGb: ${10 * (1 + (i % 8))}`] : []),
    '  backup:',
    `    schedule: "${i % 60} 3 * * *"`,
    '    retention: 14',
    '',
  ].join('\n');
}

function appYaml(ns: string, team: string, i: number, servers: number, databases: number): string {
  const git = i % 4 !== 3;
  const dbs = [`db-${pad(i % databases)}`, ...(i % 5 === 0 ? [`db-${pad((i + 1) % databases)}`] : [])];
  return [
    'apiVersion: cairn.dev/v1',
    'kind: App',
    'metadata:',
    `  name: app-${pad(i)}`,
    `  namespace: ${ns}`,
    '  labels:',
    `    team: ${team}`,
    `    env: ${ENVIRONMENTS[i % 2]}`,
    `    component: svc-${i % 23}`,
    'spec:',
    `  server: web-${pad(i % servers)}`,
    '  source:',
    ...(git
      ? ['    git:', `      url: https://git.example.com/${team}/svc-${i}.git`, `      ref: ${i % 2 === 0 ? 'main' : `v1.${i % 40}.0`}`]
      : [`    image: registry.example.com/${team}/svc-${i}:1.${i % 40}.0`]),
    ...(git ? ['  build: npm ci && npm run build'] : []),
    '  command: node dist/server.js',
    `  port: ${8000 + (i % 1000)}`,
    '  env:',
    `    NODE_ENV: ${ENVIRONMENTS[i % 2]}`,
    '    LOG_LEVEL: info',
    `    SERVICE_NAME: svc-${i}`,
    `    API_KEY: k-${(i * 2654435761) % 4294967296}`,
    `    FEATURE_FLAGS: "checkout,search${i % 3 === 0 ? ',beta' : ''}"`,
    `  databases: [${dbs.join(', ')}]`,
    '  healthCheck:',
    '    path: /healthz',
    '    timeoutSeconds: 10',
    '',
  ].join('\n');
}

/**
 * Writes `files` YAML files (team-00.yaml, ...) into `dir`, each its own namespace holding an
 * equal share of providers, servers, databases and apps; every reference stays in its file.
 */
export function writeFleet(dir: string, options: FleetOptions): FleetCounts {
  mkdirSync(dir, { recursive: true });
  const perFile = Math.floor(options.resources / options.files);
  const providers = Math.max(1, Math.round(perFile * FLEET_SHARES.providers));
  const servers = Math.round(perFile * FLEET_SHARES.servers);
  const databases = Math.round(perFile * FLEET_SHARES.databases);
  const apps = perFile - providers - servers - databases;
  const changedFile = Math.floor(options.files / 2);
  let bytes = 0;
  for (let f = 0; f < options.files; f++) {
    const team = `team-${String(f).padStart(2, '0')}`;
    const ns = team;
    const docs = [
      ...Array.from({ length: providers }, (_, i) => providerYaml(ns, team, i)),
      ...Array.from({ length: servers }, (_, i) => serverYaml(ns, team, i, providers, options.changeOneField === true && f === changedFile && i === 1)),
      ...Array.from({ length: databases }, (_, i) => databaseYaml(ns, team, i, servers)),
      ...Array.from({ length: apps }, (_, i) => appYaml(ns, team, i, servers, databases)),
    ];
    const text = docs.join('---\n');
    bytes += Buffer.byteLength(text);
    writeFileSync(join(dir, `${team}.yaml`), text);
  }
  return {
    providers: providers * options.files,
    servers: servers * options.files,
    databases: databases * options.files,
    apps: apps * options.files,
    files: options.files,
    bytes,
  };
}

/** Writes provider.yaml (a sandbox Provider at `endpoint`) and servers.yaml (`servers` Servers) into `dir`. */
export function writeServerFleet(dir: string, options: { endpoint: string; servers: number }): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'provider.yaml'),
    ['apiVersion: cairn.dev/v1', 'kind: Provider', 'metadata:', '  name: sandbox', 'spec:', '  vendor: sandbox', `  endpoint: ${options.endpoint}`, ''].join('\n'),
  );
  writeFileSync(
    join(dir, 'servers.yaml'),
    Array.from({ length: options.servers }, (_, i) =>
      [
        'apiVersion: cairn.dev/v1',
        'kind: Server',
        'metadata:',
        `  name: web-${pad(i)}`,
        '  labels:',
        `    env: ${ENVIRONMENTS[i % 2]}`,
        'spec:',
        '  provider: sandbox',
        `  region: ${REGIONS[i % REGIONS.length]}`,
        `  size: ${SIZES[i % SIZES.length]}`,
        '  image: debian-12',
        '',
      ].join('\n'),
    ).join('---\n'),
  );
}
