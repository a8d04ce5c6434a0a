/**
 * @module Railway as a platform cairn migrates from (platform.ts's MigrationPlatform): `list`
 * pages through `projects` with their services' sources and plugins; `analyze` reads one
 * project (its environments, plugins, and services page by page), chooses its environment
 * (`production`, else the first), reads each service's variables there unrendered (names and
 * references only leave this module) and hands it all to railway-analysis.ts;
 * `readConfigVars` and `readDatabaseUrl` read rendered values at migrate time: a database
 * service's own `DATABASE_URL`/`MONGO_URL`, or for a plugin the rendered variable of a service
 * that refers to it (Railway's API gives plugin values only through the services using them).
 * Reads only: the Railway project is never changed.
 */
import { NotFoundError, ProviderError, ValidationError } from '../../model/errors.js';
import type { MigrationPlatform, PlatformAnalysis, PlatformCallOptions, PlatformListing } from '../platform.js';
import { asCairnType, imageDatabase, railwayPluginDatabaseType } from '../shared/database-kinds.js';
import { dnsLabel } from '../shared/dns-label.js';
import { checkedApiKey } from '../shared/platform-errors.js';
import { analyzeRailwayProject, chooseEnvironment, instanceIn, projectDatabases, referencedDatabases, type RailwayProjectFacts } from './railway-analysis.js';
import { RailwayApi, type Connection, type RailwayApiOptions } from './railway-api.js';
import { PROJECT_ENVIRONMENTS_QUERY, PROJECT_PLUGINS_QUERY, PROJECT_QUERY, PROJECT_SERVICES_QUERY, PROJECTS_QUERY, RAILWAY_PAGE, VARIABLES_QUERY } from './railway-queries.js';
import { readEnvironment, readPlugin, readProjectSummary, readService, readVariables, type RailwayEnvironmentRecord, type RailwayPluginRecord, type RailwayServiceRecord } from './railway-wire.js';

export interface RailwayPlatformOptions extends RailwayApiOptions {
  /** Where a service's `owner/repo` is cloned from (CAIRN_GITHUB_URL). */
  githubUrl: string;
}

/** `data.project.<field>` of an answer, as a connection. */
function projectConnection(data: Record<string, unknown>, field: string): Connection {
  const project = data['project'] as Record<string, unknown> | undefined;
  return (project?.[field] ?? { edges: [] }) as Connection;
}

/** `subject` as a Railway project id, refused (on `project_id`) unless it looks like one. */
function projectId(subject: string): string {
  const id = subject.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(id)) {
    const message = `"${id.slice(0, 64)}" is not a Railway project id (letters, digits, '-' and '_')`;
    throw new ValidationError(`project_id: ${message}`, [{ pointer: '/project_id', message }]);
  }
  return id;
}

interface ProjectState {
  project: { id: string; name: string };
  environment: RailwayEnvironmentRecord;
  services: RailwayServiceRecord[];
  plugins: RailwayPluginRecord[];
}

export function createRailwayPlatform(options: RailwayPlatformOptions): MigrationPlatform {
  const api = (apiKey: string): RailwayApi => new RailwayApi(checkedApiKey('Railway', apiKey), options);

  /** Every node of a project's connection `field`, its first page taken from `first` when already read. */
  const projectNodes = async (client: RailwayApi, id: string, field: string, document: string, what: string, signal?: AbortSignal, first?: Connection): Promise<unknown[]> =>
    client.nodes(async (after) => {
      if (after === null && first) return first;
      return projectConnection(await client.query(document, { id, first: RAILWAY_PAGE, after }, `read the ${field} of ${what}`, what, signal), field);
    }, `read the ${field} of ${what}`);

  const readProject = async (client: RailwayApi, projectId: string, signal?: AbortSignal): Promise<ProjectState> => {
    const what = `project "${projectId}"`;
    const data = await client.query(PROJECT_QUERY, { id: projectId }, `read ${what}`, what, signal);
    const project = data['project'] as { id?: unknown; name?: unknown } | null;
    if (!project || typeof project.id !== 'string' || typeof project.name !== 'string') throw new ProviderError(`railway: read ${what}: the answer has no project id and name`);
    const environments = (await projectNodes(client, projectId, 'environments', PROJECT_ENVIRONMENTS_QUERY, what, signal, projectConnection(data, 'environments'))).map((n, i) => readEnvironment(n, `railway: ${what} environments[${i}]`));
    const environment = chooseEnvironment(environments);
    if (!environment) throw new ProviderError(`Railway ${what} has no environment to migrate`);
    const plugins = (await projectNodes(client, projectId, 'plugins', PROJECT_PLUGINS_QUERY, what, signal, projectConnection(data, 'plugins'))).map((n, i) => readPlugin(n, `railway: ${what} plugins[${i}]`));
    const services = (await projectNodes(client, projectId, 'services', PROJECT_SERVICES_QUERY, what, signal)).map((n, i) => readService(n, `railway: ${what} services[${i}]`));
    return { project: { id: project.id, name: project.name }, environment, services, plugins };
  };

  const variables = async (client: RailwayApi, state: ProjectState, serviceId: string, unrendered: boolean, signal?: AbortSignal): Promise<Record<string, string>> => {
    const what = `project "${state.project.id}"`;
    const data = await client.query(VARIABLES_QUERY, { projectId: state.project.id, environmentId: state.environment.id, serviceId, unrendered }, `read the variables of a service of ${what}`, what, signal);
    return readVariables(data['variables'], `railway: ${what} variables`);
  };

  return {
    id: 'railway',

    async list(apiKey: string, callOptions: PlatformCallOptions = {}): Promise<PlatformListing[]> {
      const client = api(apiKey);
      const { signal } = callOptions;
      const projects = await client.nodes(async (after) => {
        const data = await client.query(PROJECTS_QUERY, { first: RAILWAY_PAGE, after }, 'list projects', 'projects', signal);
        return data['projects'] as Connection;
      }, 'list projects');
      const listings: PlatformListing[] = [];
      for (const [index, node] of projects.entries()) {
        const summary = readProjectSummary(node, `railway: projects[${index}]`);
        const what = `project "${summary.id}"`;
        let services = summary.services;
        if (!summary.servicesComplete) {
          services = (await projectNodes(client, summary.id, 'services', PROJECT_SERVICES_QUERY, what, signal)).map((n, i) => {
            const service = readService(n, `railway: ${what} services[${i}]`);
            return { name: service.name, images: service.instances.flatMap((inst) => (inst.image === null ? [] : [inst.image])) };
          });
        }
        const plugins = summary.pluginsComplete ? summary.plugins : (await projectNodes(client, summary.id, 'plugins', PROJECT_PLUGINS_QUERY, what, signal)).map((n, i) => readPlugin(n, `railway: ${what} plugins[${i}]`));
        const isDatabase = (images: string[]): boolean => images.some((image) => asCairnType(imageDatabase(image)?.engine ?? '') !== undefined);
        listings.push({
          id: summary.id,
          name: summary.name,
          services: services.map((s) => s.name),
          databases: [
            ...services.filter((s) => isDatabase(s.images)).map((s) => dnsLabel([summary.name, s.name], 'database')),
            ...plugins.filter((p) => railwayPluginDatabaseType(p.type) !== undefined).map((p) => dnsLabel([summary.name, p.friendlyName], 'database')),
          ],
        });
      }
      return listings;
    },

    async analyze(apiKey: string, subject: string, callOptions: PlatformCallOptions = {}): Promise<PlatformAnalysis> {
      const client = api(apiKey);
      const state = await readProject(client, projectId(subject), callOptions.signal);
      const vars = new Map<string, Record<string, string>>();
      for (const service of state.services) {
        if (instanceIn(service, state.environment.id)) vars.set(service.id, await variables(client, state, service.id, true, callOptions.signal));
      }
      const facts: RailwayProjectFacts = { ...state, variables: vars, githubUrl: options.githubUrl };
      return analyzeRailwayProject(facts);
    },

    async readConfigVars(apiKey: string, subject: string, origin: string, callOptions: PlatformCallOptions = {}): Promise<Record<string, string>> {
      const client = api(apiKey);
      const state = await readProject(client, projectId(subject), callOptions.signal);
      const service = state.services.find((s) => s.name === origin && instanceIn(s, state.environment.id));
      if (!service) throw new NotFoundError(`Railway project "${state.project.name}" has no service "${origin}" in ${state.environment.name}`);
      return variables(client, state, service.id, false, callOptions.signal);
    },

    async readDatabaseUrl(apiKey: string, subject: string, database: string, callOptions: PlatformCallOptions = {}): Promise<string> {
      const client = api(apiKey);
      const { signal } = callOptions;
      const state = await readProject(client, projectId(subject), signal);
      const found = projectDatabases(state.project, state.environment.id, state.services, state.plugins).databases.find((d) => d.name === database);
      if (!found) throw new NotFoundError(`Railway project "${state.project.name}" has no database that becomes "${database}"`);
      if (found.serviceId !== undefined) {
        const url = (await variables(client, state, found.serviceId, false, signal))[found.urlVariable];
        if (url === undefined || url === '') throw new ProviderError(`Railway service "${found.reference}" has no ${found.urlVariable} variable in ${state.environment.name}`);
        return url;
      }
      // A plugin: the rendered value of a variable that refers to it in a service that uses it.
      for (const service of state.services.filter((s) => instanceIn(s, state.environment.id))) {
        const unrendered = await variables(client, state, service.id, true, signal);
        const { used, databaseVars } = referencedDatabases(unrendered, [found]);
        if (used.length === 0) continue;
        const name = databaseVars.find((v) => unrendered[v]!.includes(`${found.reference}.${found.urlVariable}`)) ?? databaseVars[0]!;
        const url = (await variables(client, state, service.id, false, signal))[name];
        if (url !== undefined && url !== '') return url;
      }
      throw new ProviderError(`no service of Railway project "${state.project.name}" refers to plugin "${found.reference}", and Railway's API gives a plugin's values only through the services that use it`);
    },
  };
}
