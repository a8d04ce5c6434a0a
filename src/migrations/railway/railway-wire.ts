/**
 * @module Railway's GraphQL answers read without trusting them (the vendor kit's WireReader):
 * only the fields the migration asks for, each checked for its type, into plain records.
 */
import { WireReader } from '../../drivers/kit/wire-reader.js';

export interface RailwayEnvironmentRecord { id: string; name: string }
export interface RailwayPluginRecord { id: string; type: string; friendlyName: string }
export interface RailwayDomainRecord { domain: string; targetPort: number | null }
export interface RailwayInstanceRecord {
  environmentId: string;
  startCommand: string | null;
  buildCommand: string | null;
  healthcheckPath: string | null;
  rootDirectory: string | null;
  numReplicas: number | null;
  image: string | null;
  repo: string | null;
  customDomains: RailwayDomainRecord[];
  serviceDomains: RailwayDomainRecord[];
}
export interface RailwayTriggerRecord { environmentId: string; branch: string; repository: string }
export interface RailwayServiceRecord { id: string; name: string; triggers: RailwayTriggerRecord[]; instances: RailwayInstanceRecord[] }
/** A service as `list` reads it: its name and the sources of its instances. */
export interface RailwayServiceSummary { name: string; images: string[] }

/** The nodes of a connection field of `parent`. */
function nodes(parent: WireReader, field: string): WireReader[] {
  return parent.object(field).array('edges').map((edge) => edge.object('node'));
}

export function readEnvironment(node: unknown, where: string): RailwayEnvironmentRecord {
  const env = WireReader.of(node, where);
  return { id: env.string('id'), name: env.string('name') };
}

function pluginOf(plugin: WireReader): RailwayPluginRecord {
  return { id: plugin.string('id'), type: plugin.string('name'), friendlyName: plugin.string('friendlyName') };
}

export function readPlugin(node: unknown, where: string): RailwayPluginRecord {
  return pluginOf(WireReader.of(node, where));
}

function readDomain(domain: WireReader): RailwayDomainRecord {
  return { domain: domain.string('domain'), targetPort: domain.numberOrNull('targetPort') };
}

function readInstance(instance: WireReader): RailwayInstanceRecord {
  const source = instance.raw('source') === null || instance.raw('source') === undefined ? undefined : instance.object('source');
  const domains = instance.object('domains');
  return {
    environmentId: instance.string('environmentId'),
    startCommand: instance.stringOrNull('startCommand'),
    buildCommand: instance.stringOrNull('buildCommand'),
    healthcheckPath: instance.stringOrNull('healthcheckPath'),
    rootDirectory: instance.stringOrNull('rootDirectory'),
    numReplicas: instance.numberOrNull('numReplicas'),
    image: source?.stringOrNull('image') ?? null,
    repo: source?.stringOrNull('repo') ?? null,
    customDomains: domains.array('customDomains').map(readDomain),
    serviceDomains: domains.array('serviceDomains').map(readDomain),
  };
}

export function readService(node: unknown, where: string): RailwayServiceRecord {
  const service = WireReader.of(node, where);
  return {
    id: service.string('id'),
    name: service.string('name'),
    triggers: nodes(service, 'repoTriggers').map((t) => ({ environmentId: t.string('environmentId'), branch: t.string('branch'), repository: t.string('repository') })),
    instances: nodes(service, 'serviceInstances').map(readInstance),
  };
}

/** A project as `list` reads it. */
export function readProjectSummary(node: unknown, where: string): { id: string; name: string; services: RailwayServiceSummary[]; servicesComplete: boolean; plugins: RailwayPluginRecord[]; pluginsComplete: boolean } {
  const project = WireReader.of(node, where);
  const services = nodes(project, 'services').map((s) => ({
    name: s.string('name'),
    images: nodes(s, 'serviceInstances').flatMap((i) => (i.raw('source') ? [i.object('source').stringOrNull('image')].filter((x): x is string => x !== null) : [])),
  }));
  return {
    id: project.string('id'),
    name: project.string('name'),
    services,
    servicesComplete: project.object('services').object('pageInfo').boolean('hasNextPage') === false,
    plugins: nodes(project, 'plugins').map(pluginOf),
    pluginsComplete: project.object('plugins').object('pageInfo').boolean('hasNextPage') === false,
  };
}

/** A `variables` answer (Railway's EnvironmentVariables scalar: a map of names to strings). */
export function readVariables(value: unknown, where: string): Record<string, string> {
  const vars = WireReader.of(value, where);
  const out: Record<string, string> = {};
  for (const name of Object.keys(value as object)) {
    const text = vars.stringOrNull(name);
    if (text !== null) out[name] = text;
  }
  return out;
}
