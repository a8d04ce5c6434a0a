/**
 * @module What cairn makes of one Railway project (pure: Railway's records in,
 * PlatformAnalysis out), in one environment: the one named `production`, else the first.
 *
 * - A service whose instance runs a database image (`ghcr.io/railwayapp-templates/
 *   postgres-ssl:16`, `postgres:16`, `mongo:7`) becomes a Database named `<project>-<service>`,
 *   its URL in `DATABASE_URL` (PostgreSQL) or `MONGO_URL` (MongoDB); a PostgreSQL or MongoDB
 *   plugin likewise, named after its friendly name. Redis, MySQL and other engines are add-ons
 *   with `supported: false` and a warning.
 * - A service built from a repository becomes an App named `<project>-<service>`: git source
 *   `<CAIRN_GITHUB_URL>/<owner>/<repo>.git` at the branch its deploy trigger follows in that
 *   environment (`main`, with a warning, when it has none), its start and build commands and
 *   health check path as set on Railway, port 8080 unless a domain targets another (cairn's
 *   runtimes set `PORT`, as Railway does), its custom domains, and the databases its variables
 *   refer to (`${{Postgres.DATABASE_URL}}`), the one behind `DATABASE_URL` first. Variables that
 *   refer to a database that moves, and Railway's own `RAILWAY_*`, do not move with the App:
 *   cairn injects the new database's URL. An image-only service is a warning.
 */
import type { PlatformAddon, PlatformAnalysis, PlatformApp, PlatformDatabase, PlatformProcess } from '../platform.js';
import { asCairnType, imageDatabase, railwayPluginDatabaseType, URL_VARIABLE } from '../shared/database-kinds.js';
import { dnsLabel } from '../shared/dns-label.js';
import type { RailwayEnvironmentRecord, RailwayInstanceRecord, RailwayPluginRecord, RailwayServiceRecord } from './railway-wire.js';

/** The port a migrated Railway service listens on when no domain names its own. */
export const RAILWAY_APP_PORT = 8080;

export interface RailwayProjectFacts {
  project: { id: string; name: string };
  environment: RailwayEnvironmentRecord;
  services: RailwayServiceRecord[];
  plugins: RailwayPluginRecord[];
  /** Each service's variables in the environment, unrendered (references as written), by service id. */
  variables: ReadonlyMap<string, Record<string, string>>;
  /** Where `owner/repo` is cloned from: CAIRN_GITHUB_URL, default https://github.com. */
  githubUrl: string;
}

/** The environment a migration reads: `production`, else the first Railway lists. */
export function chooseEnvironment(environments: readonly RailwayEnvironmentRecord[]): RailwayEnvironmentRecord | undefined {
  return environments.find((e) => e.name === 'production') ?? environments[0];
}

/** A Railway database, with where it lives on Railway. */
export interface RailwayDatabase extends PlatformDatabase {
  /** The service or plugin it is, as variables refer to it (`${{Postgres.DATABASE_URL}}`). */
  reference: string;
  serviceId?: string;
  pluginId?: string;
}

/** The services and plugins of a project that are databases, and the rest of its data services as unsupported add-ons. */
export function projectDatabases(project: { name: string }, environmentId: string, services: readonly RailwayServiceRecord[], plugins: readonly RailwayPluginRecord[]): { databases: RailwayDatabase[]; addons: PlatformAddon[]; warnings: string[] } {
  const databases: RailwayDatabase[] = [];
  const addons: PlatformAddon[] = [];
  const warnings: string[] = [];
  for (const service of services) {
    const image = instanceIn(service, environmentId)?.image;
    const found = image ? imageDatabase(image) : undefined;
    if (!image || !found) continue;
    const type = asCairnType(found.engine);
    addons.push({ name: service.name, service: found.engine, plan: image, supported: type !== undefined });
    if (type === undefined) {
      warnings.push(`service "${service.name}" runs ${found.engine} (${image}), which cairn has no kind for; it does not move`);
      continue;
    }
    databases.push({ name: dnsLabel([project.name, service.name], 'database'), type, origin: image, urlVariable: URL_VARIABLE[type], ...(found.version === undefined ? {} : { version: found.version }), reference: service.name, serviceId: service.id });
  }
  for (const plugin of plugins) {
    const type = railwayPluginDatabaseType(plugin.type);
    addons.push({ name: plugin.friendlyName, service: plugin.type, supported: type !== undefined });
    if (type === undefined) {
      warnings.push(`plugin "${plugin.friendlyName}" (${plugin.type}) has no cairn kind; it does not move`);
      continue;
    }
    databases.push({ name: dnsLabel([project.name, plugin.friendlyName], 'database'), type, origin: `Railway plugin ${plugin.type}`, urlVariable: URL_VARIABLE[type], reference: plugin.friendlyName, pluginId: plugin.id });
  }
  return { databases, addons, warnings };
}

export function instanceIn(service: RailwayServiceRecord, environmentId: string): RailwayInstanceRecord | undefined {
  return service.instances.find((i) => i.environmentId === environmentId);
}

/** The names a value refers to: `${{Postgres.DATABASE_URL}}` → `Postgres`. */
function references(value: string): string[] {
  return [...value.matchAll(/\$\{\{\s*([^.}]+?)\s*\.[^}]*\}\}/g)].map((m) => m[1]!);
}

/** The databases `vars` refer to, the one behind DATABASE_URL (or MONGO_URL) first, and the names of the vars that do. */
export function referencedDatabases(vars: Record<string, string>, databases: readonly RailwayDatabase[]): { used: RailwayDatabase[]; databaseVars: string[] } {
  const used: RailwayDatabase[] = [];
  const databaseVars: string[] = [];
  const order = Object.keys(vars).sort((a, b) => Number(b === 'DATABASE_URL' || b === 'MONGO_URL') - Number(a === 'DATABASE_URL' || a === 'MONGO_URL'));
  for (const name of order) {
    const refs = references(vars[name]!);
    const hit = databases.filter((d) => refs.includes(d.reference));
    if (hit.length === 0) continue;
    databaseVars.push(name);
    for (const d of hit) if (!used.includes(d)) used.push(d);
  }
  return { used, databaseVars };
}

function publicDatabase(d: RailwayDatabase): PlatformDatabase {
  return { name: d.name, type: d.type, origin: d.origin, urlVariable: d.urlVariable, ...(d.version === undefined ? {} : { version: d.version }) };
}

export function analyzeRailwayProject(facts: RailwayProjectFacts): PlatformAnalysis {
  const { project, environment } = facts;
  const { databases, addons, warnings } = projectDatabases(project, environment.id, facts.services, facts.plugins);
  const databaseServices = new Set(databases.flatMap((d) => (d.serviceId ? [d.serviceId] : [])));
  const dataServiceNames = new Set(addons.map((a) => a.name));
  const processes: PlatformProcess[] = [];
  const apps: PlatformApp[] = [];
  const allVarNames = new Set<string>();
  const allDomains: string[] = [];

  for (const service of facts.services) {
    const instance = instanceIn(service, environment.id);
    const vars = facts.variables.get(service.id) ?? {};
    for (const name of Object.keys(vars)) allVarNames.add(name);
    if (!instance || databaseServices.has(service.id) || dataServiceNames.has(service.name)) continue;
    const domains = [...instance.customDomains, ...instance.serviceDomains];
    const port = domains.find((d) => d.targetPort !== null)?.targetPort ?? RAILWAY_APP_PORT;
    const command = instance.startCommand ?? '';
    processes.push({ type: service.name, command, quantity: instance.numReplicas ?? 1, web: domains.length > 0 });
    if (instance.repo === null) {
      warnings.push(instance.image === null
        ? `service "${service.name}" has no source on Railway; it does not move`
        : `service "${service.name}" runs the image ${instance.image}; cairn migrates services built from a repository, so it does not move`);
      continue;
    }
    const trigger = service.triggers.find((t) => t.environmentId === environment.id);
    if (!trigger) warnings.push(`service "${service.name}" has no deploy trigger in ${environment.name}; cairn deploys branch main of ${instance.repo}`);
    if (instance.startCommand === null) warnings.push(`service "${service.name}" has no start command on Railway (its builder finds one); set the App's command before it deploys`);
    if (instance.buildCommand === null) warnings.push(`service "${service.name}" has no build command on Railway (its builder infers one); set the App's build if it needs one`);
    if (instance.rootDirectory !== null && instance.rootDirectory !== '' && instance.rootDirectory !== '/') {
      warnings.push(`service "${service.name}" builds from ${instance.rootDirectory} of its repository; cairn runs the App's build and command from the repository's root`);
    }
    const { used, databaseVars } = referencedDatabases(vars, databases);
    const custom = instance.customDomains.map((d) => d.domain);
    allDomains.push(...custom);
    apps.push({
      name: dnsLabel([project.name, service.name]),
      origin: service.name,
      ...(instance.buildCommand === null ? {} : { build: instance.buildCommand }),
      command,
      port,
      configVarNames: Object.keys(vars).filter((name) => !databaseVars.includes(name) && !name.startsWith('RAILWAY_')),
      databases: used.map((d) => d.name),
      source: { kind: 'git', url: `${facts.githubUrl.replace(/\/+$/, '')}/${instance.repo}.git`, ref: trigger?.branch ?? 'main' },
      ...(instance.healthcheckPath === null ? {} : { healthCheckPath: instance.healthcheckPath }),
      domains: custom,
    });
  }

  return {
    platform: 'railway',
    subject: { id: project.id, name: project.name },
    buildpacks: [],
    processes,
    configVarNames: [...allVarNames],
    addons,
    databases: databases.map(publicDatabase),
    apps,
    domains: allDomains,
    warnings,
  };
}
