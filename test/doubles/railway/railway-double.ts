/**
 * @module A Railway public API double on 127.0.0.1 for the migration tests: `POST
 * /graphql/v2`, stateful (projects with environments, services, their instances, deploy
 * triggers, domains and variables, and plugins, seeded by the test). Every incoming query is
 * parsed and validated against Railway's own schema (the introspection result copied beside
 * this file, through graphql-js's `buildClientSchema` and `validate`), and run with graphql-js's
 * `execute` over resolvers on the seeded state, so each answer has the shape the schema says
 * (and its variables are coerced as the schema says). A query or variables the schema refuses
 * is answered 500 with the reasons and kept in `violations`, which a test expects empty;
 * Railway's own failures are answered as Railway does: "Not Authorized" and "Project not
 * found" in `errors[]`, 429 with `Retry-After` and 502 when told.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildClientSchema, execute, GraphQLError, Kind, parse, validate, type DocumentNode, type IntrospectionQuery } from 'graphql';

const INTROSPECTION = (JSON.parse(readFileSync(new URL('./graphql-schema.json', import.meta.url), 'utf8')) as { data: IntrospectionQuery }).data;
const schema = buildClientSchema(INTROSPECTION);

export interface SeedService {
  name: string;
  id?: string;
  /** `owner/repo` of a service built from GitHub. */
  repo?: string;
  /** The branch its deploy trigger follows (none when undefined). */
  branch?: string;
  image?: string;
  startCommand?: string;
  buildCommand?: string;
  healthcheckPath?: string;
  rootDirectory?: string;
  numReplicas?: number;
  customDomains?: string[];
  /** A `*.up.railway.app` domain, with the port it targets. */
  serviceDomain?: { domain: string; targetPort?: number };
  /** Variables as written, references (`${{Postgres.DATABASE_URL}}`) included. */
  variables?: Record<string, string>;
}

export interface SeedPlugin { name: 'postgresql' | 'mongodb' | 'redis' | 'mysql'; friendlyName: string; id?: string; variables?: Record<string, string> }

export interface SeedProject {
  name: string;
  id?: string;
  environments?: string[];
  services?: SeedService[];
  plugins?: SeedPlugin[];
}

interface StoredProject {
  id: string;
  name: string;
  environments: Array<{ id: string; name: string }>;
  services: Array<SeedService & { id: string }>;
  plugins: Array<SeedPlugin & { id: string }>;
}

export interface RailwayDouble {
  url: string;
  apiKeys: Set<string>;
  projects: StoredProject[];
  /** Every query's operation name (or `anonymous`), in order. */
  calls: string[];
  violations: string[];
  /** The most a page of a connection holds, whatever `first` asks. */
  maxPageSize: number;
  rateLimit: { count: number; retryAfterSeconds: number };
  /** The next this many queries are answered 502, as Railway's edge does when the API is down. */
  serverErrors: number;
  addProject(seed: SeedProject): StoredProject;
  close(): Promise<void>;
}

/** A failure Railway itself answers (in `errors[]`), as opposed to a flaw of the double. */
class RailwayFailure extends Error {}

interface ConnectionArgs { first?: number | null; after?: string | null }

export async function startRailwayDouble(options: { apiKeys?: string[]; maxPageSize?: number } = {}): Promise<RailwayDouble> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const double: RailwayDouble = {
    url,
    apiKeys: new Set(options.apiKeys ?? []),
    projects: [],
    calls: [],
    violations: [],
    maxPageSize: options.maxPageSize ?? 100,
    rateLimit: { count: 0, retryAfterSeconds: 0 },
    serverErrors: 0,
    addProject(seed) {
      const project: StoredProject = {
        id: seed.id ?? randomUUID(),
        name: seed.name,
        environments: (seed.environments ?? ['production']).map((name) => ({ id: randomUUID(), name })),
        services: (seed.services ?? []).map((s) => ({ ...s, id: s.id ?? randomUUID() })),
        plugins: (seed.plugins ?? []).map((p) => ({ ...p, id: p.id ?? randomUUID() })),
      };
      double.projects.push(project);
      return project;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  /** A Relay connection over `items`, paged by `first`/`after` (the cursor is the item's index). */
  const connection = <T>(items: T[], args: ConnectionArgs): unknown => {
    const start = args.after ? Number(args.after) + 1 : 0;
    const size = Math.min(args.first ?? double.maxPageSize, double.maxPageSize);
    const page = items.slice(start, start + size);
    const edges = page.map((node, i) => ({ cursor: String(start + i), node }));
    return {
      edges,
      pageInfo: { hasNextPage: start + size < items.length, hasPreviousPage: start > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
    };
  };

  const now = '2026-01-01T00:00:00.000Z';

  /** `${{Name.VAR}}` and `${{shared.VAR}}` replaced with the values they refer to. */
  const render = (project: StoredProject, vars: Record<string, string>, depth = 0): Record<string, string> =>
    Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, value.replace(/\$\{\{\s*([^.}]+?)\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_m, ref: string, key: string) => {
      const target = project.services.find((s) => s.name === ref)?.variables ?? project.plugins.find((p) => p.friendlyName === ref)?.variables ?? {};
      const raw = target[key] ?? '';
      return depth < 3 ? render(project, { v: raw }, depth + 1)['v']! : raw;
    })]));

  const domainsOf = (project: StoredProject, service: StoredProject['services'][number], environmentId: string): unknown => ({
    customDomains: (service.customDomains ?? []).map((domain) => ({ id: randomUUID(), domain, environmentId, serviceId: service.id, projectId: project.id, targetPort: null, createdAt: now, updatedAt: now, deletedAt: null, isRailwayDomain: false })),
    serviceDomains: service.serviceDomain ? [{ id: randomUUID(), domain: service.serviceDomain.domain, environmentId, serviceId: service.id, projectId: project.id, targetPort: service.serviceDomain.targetPort ?? null, suffix: 'up.railway.app' }] : [],
  });

  const serviceNode = (project: StoredProject, service: StoredProject['services'][number]): unknown => ({
    id: service.id,
    name: service.name,
    projectId: project.id,
    createdAt: now,
    updatedAt: now,
    repoTriggers: (args: ConnectionArgs) => connection(service.repo && service.branch
      ? project.environments.map((env) => ({ id: randomUUID(), environmentId: env.id, branch: service.branch, repository: service.repo, provider: 'github', projectId: project.id, serviceId: service.id, checkSuites: false, validCheckSuites: 0 }))
      : [], args),
    serviceInstances: (args: ConnectionArgs) => connection(project.environments.map((env) => ({
      id: randomUUID(),
      environmentId: env.id,
      serviceId: service.id,
      serviceName: service.name,
      startCommand: service.startCommand ?? null,
      buildCommand: service.buildCommand ?? null,
      healthcheckPath: service.healthcheckPath ?? null,
      rootDirectory: service.rootDirectory ?? null,
      numReplicas: service.numReplicas ?? 1,
      source: service.repo || service.image ? { repo: service.repo ?? null, image: service.image ?? null } : null,
      domains: domainsOf(project, service, env.id),
    })), args),
  });

  const projectNode = (project: StoredProject): unknown => ({
    id: project.id,
    name: project.name,
    createdAt: now,
    updatedAt: now,
    environments: (args: ConnectionArgs) => connection(project.environments.map((e) => ({ ...e, projectId: project.id, createdAt: now, updatedAt: now })), args),
    services: (args: ConnectionArgs) => connection(project.services.map((s) => serviceNode(project, s)), args),
    plugins: (args: ConnectionArgs) => connection(project.plugins.map((p) => ({ id: p.id, name: p.name, friendlyName: p.friendlyName, status: 'RUNNING', createdAt: now, logsEnabled: true })), args),
  });

  const findProject = (id: string): StoredProject => {
    const project = double.projects.find((p) => p.id === id);
    if (!project) throw new RailwayFailure('Project not found');
    return project;
  };

  const root = {
    projects: (args: ConnectionArgs) => connection(double.projects.map(projectNode), args),
    project: ({ id }: { id: string }) => projectNode(findProject(id)),
    variables: ({ projectId, environmentId, serviceId, unrendered }: { projectId: string; environmentId: string; serviceId?: string | null; unrendered?: boolean | null }) => {
      const project = findProject(projectId);
      if (!project.environments.some((e) => e.id === environmentId)) throw new RailwayFailure('Environment not found');
      const service = serviceId ? project.services.find((s) => s.id === serviceId) : undefined;
      if (serviceId && !service) throw new RailwayFailure('Service not found');
      const vars = service?.variables ?? {};
      return unrendered ? { ...vars } : render(project, vars);
    },
  };

  const answer = async (req: IncomingMessage): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> => {
    const path = new URL(req.url ?? '/', url).pathname;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const flaw = (message: string) => {
      double.violations.push(message);
      return { status: 500, body: { errors: [{ message }] } };
    };
    if (req.method !== 'POST' || path !== '/graphql/v2') return flaw(`${req.method ?? ''} ${path}: Railway's API is POST /graphql/v2`);
    let request: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      request = JSON.parse(Buffer.concat(chunks).toString()) as typeof request;
    } catch {
      return flaw('the body is not JSON');
    }
    if (typeof request.query !== 'string') return flaw('the body has no "query" string');
    let document: DocumentNode;
    try {
      document = parse(request.query);
    } catch (error) {
      return flaw(`the query does not parse: ${(error as Error).message}`);
    }
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    double.calls.push(operation && 'name' in operation && operation.name ? operation.name.value : 'anonymous');
    const invalid = validate(schema, document);
    if (invalid.length > 0) return flaw(`the query breaks Railway's schema: ${invalid.map((e) => e.message).join('; ')}`);
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (key === undefined || !double.apiKeys.has(key)) return { status: 200, body: { data: null, errors: [{ message: 'Not Authorized', extensions: { code: 'UNAUTHENTICATED' } }] } };
    if (double.rateLimit.count > 0) {
      double.rateLimit.count--;
      return { status: 429, body: { errors: [{ message: 'Rate limit exceeded' }] }, headers: { 'retry-after': String(double.rateLimit.retryAfterSeconds) } };
    }
    if (double.serverErrors > 0) {
      double.serverErrors--;
      return { status: 502, body: { errors: [{ message: 'Bad Gateway' }] } };
    }
    const result = await execute({
      schema,
      document,
      rootValue: root,
      variableValues: (request.variables ?? {}) as Record<string, unknown>,
      fieldResolver: (source: unknown, args: Record<string, unknown>, _context: unknown, info) => {
        const value = (source as Record<string, unknown> | null)?.[info.fieldName];
        return typeof value === 'function' ? (value as (a: Record<string, unknown>) => unknown)(args) : value;
      },
    });
    const errors = result.errors ?? [];
    const own = errors.filter((e: GraphQLError) => !(e.originalError instanceof RailwayFailure));
    if (own.length > 0) return flaw(`the query or its variables break Railway's schema, or the double answered what the schema forbids: ${own.map((e) => e.message).join('; ')}`);
    return { status: 200, body: { data: result.data ?? null, ...(errors.length > 0 ? { errors: errors.map((e) => ({ message: e.message, path: e.path })) } : {}) } };
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answer(req).then(
      (result) => res.writeHead(result.status, { 'content-type': 'application/json', ...result.headers }).end(JSON.stringify(result.body)),
      (failure: unknown) => {
        double.violations.push(`the double failed: ${String(failure)}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: String(failure) }] }));
      },
    );
  });
  return double;
}
