/**
 * @module A Heroku Platform API double on 127.0.0.1 for the migration tests: stateful (apps with
 * their formation, buildpack installations, config vars, add-ons, domains and builds, seeded
 * by the test), answering the requests cairn's Heroku client makes and `PATCH
 * /apps/{app}/config-vars`, with Heroku's error shape (`{id, message}`), its paging (`Range` →
 * 206 with `Next-Range`), `RateLimit-Remaining` on every answer and, when told, 429 with
 * `Retry-After`, and 503 when told. Every request is first matched to a link of Heroku's own document and its path
 * parameters and body checked against it, and every answer is checked against the link's
 * `targetSchema` before it is sent (heroku-schema.ts): a request or answer that breaks the
 * document is answered 500 `{id: "schema_violation", message}` and kept in `violations`, which
 * a test expects empty. Records start as the document's examples, so they carry every field.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HerokuSchema, type HerokuLink, type Json, type JsonObject } from './heroku-schema.js';

export const HEROKU_ACCEPT = 'application/vnd.heroku+json; version=3';

export interface SeedProcess { type: string; command: string; quantity?: number; size?: string }
export interface SeedAddon { name: string; service: string; plan: string; configVars: string[] }
export interface SeedBuild { status: 'succeeded' | 'failed' | 'pending'; sourceUrl: string; version?: string | null; createdAt?: string; buildpacks?: string[] }
export interface SeedApp {
  name: string;
  id?: string;
  stack?: string;
  formation?: SeedProcess[];
  buildpacks?: string[];
  configVars?: Record<string, string>;
  addons?: SeedAddon[];
  domains?: Array<{ hostname: string; kind?: 'heroku' | 'custom' }>;
  builds?: SeedBuild[];
}

/** What the double holds of one app: the records as it sends them. */
export interface AppRecords {
  app: JsonObject;
  formation: JsonObject[];
  buildpacks: JsonObject[];
  configVars: Record<string, string>;
  addons: JsonObject[];
  domains: JsonObject[];
  builds: JsonObject[];
}

export interface HerokuDouble {
  url: string;
  /** Keys the double accepts (`Authorization: Bearer <key>`). */
  apiKeys: Set<string>;
  apps: Map<string, AppRecords>;
  /** Every request as `METHOD /path`, in order. */
  calls: string[];
  /** Requests and answers that broke Heroku's document, and requests it does not know. */
  violations: string[];
  /** The most a page holds, whatever `max` a Range asks (Heroku's is 1000). */
  maxPageSize: number;
  /** The next `count` requests are refused with 429 and this Retry-After. */
  rateLimit: { count: number; retryAfterSeconds: number };
  /** The next this many requests are answered 503, as Heroku does when it is unwell. */
  serverErrors: number;
  addApp(seed: SeedApp): AppRecords;
  count(prefix: string): number;
  close(): Promise<void>;
}

const schema = new HerokuSchema();

function merged(base: JsonObject, over: JsonObject): JsonObject {
  return { ...base, ...over };
}

function appRecords(seed: SeedApp): AppRecords {
  const id = seed.id ?? randomUUID();
  const stack = { id: randomUUID(), name: seed.stack ?? 'heroku-24' };
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const app = merged(schema.example('app'), {
    id, name: seed.name, stack, build_stack: stack, created_at: now, updated_at: now, released_at: now,
    git_url: `https://git.heroku.com/${seed.name}.git`, web_url: `https://${seed.name}-0123456789ab.herokuapp.com/`,
    space: null, team: null, organization: null, archived_at: null,
  });
  const appRef = { id, name: seed.name };
  const formation = (seed.formation ?? []).map((p) =>
    merged(schema.example('formation'), { id: randomUUID(), app: appRef, type: p.type, command: p.command, quantity: p.quantity ?? 1, size: p.size ?? 'Basic', created_at: now, updated_at: now }),
  );
  const buildpacks = (seed.buildpacks ?? []).map((name, index) => merged(schema.example('buildpack-installation'), { ordinal: index, buildpack: { url: name, name } }));
  const addons = (seed.addons ?? []).map((a) =>
    merged(schema.example('add-on'), {
      id: randomUUID(), name: a.name, app: appRef, addon_service: { id: randomUUID(), name: a.service }, plan: { id: randomUUID(), name: a.plan },
      config_vars: a.configVars, state: 'provisioned', created_at: now, updated_at: now, actions: [],
    }),
  );
  const domains = [{ hostname: `${seed.name}-0123456789ab.herokuapp.com`, kind: 'heroku' as const }, ...(seed.domains ?? [])].map((d) =>
    merged(schema.example('domain'), { id: randomUUID(), app: appRef, hostname: d.hostname, kind: d.kind ?? 'custom', cname: d.kind === 'heroku' ? null : `${d.hostname}.herokudns.com`, created_at: now, updated_at: now }),
  );
  const builds = (seed.builds ?? []).map((b, index) =>
    merged(schema.example('build'), {
      id: randomUUID(), app: { id }, status: b.status, created_at: b.createdAt ?? new Date(Date.parse('2026-01-01T00:00:00Z') + index * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      updated_at: now, source_blob: { checksum: null, url: b.sourceUrl, version: b.version ?? null },
      buildpacks: (b.buildpacks ?? seed.buildpacks ?? []).map((name) => ({ url: name, name })), stack: stack.name,
    }),
  );
  return { app, formation, buildpacks, configVars: { ...(seed.configVars ?? {}) }, addons, domains, builds };
}

interface Answer { status: number; body: Json; headers?: Record<string, string> }

const error = (status: number, id: string, message: string): Answer => ({ status, body: { id, message } });

/** `Range: name ]last..; max=2, order=desc` read into its parts; undefined when it is not one. */
function parseRange(header: string): { field: string; after: string | undefined; exclusive: boolean; max: number | undefined; order: 'asc' | 'desc' } | undefined {
  const found = /^\s*([a-z_]+)\s+(\]?)([^.;,]*)\.\.([^;,]*)\s*(?:[;,]\s*(.*))?$/.exec(header);
  if (!found) return undefined;
  const params = new Map((found[5] ?? '').split(/[;,]\s*/).filter(Boolean).map((p) => p.split('=', 2).map((s) => s.trim()) as [string, string]));
  const max = params.get('max');
  const order = params.get('order') ?? 'asc';
  if ((max !== undefined && !/^\d+$/.test(max)) || (order !== 'asc' && order !== 'desc')) return undefined;
  return { field: found[1]!, after: found[3] === '' ? undefined : found[3], exclusive: found[2] === ']', max: max === undefined ? undefined : Number(max), order };
}

export async function startHerokuDouble(options: { apiKeys?: string[]; maxPageSize?: number } = {}): Promise<HerokuDouble> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const double: HerokuDouble = {
    url,
    apiKeys: new Set(options.apiKeys ?? []),
    apps: new Map(),
    calls: [],
    violations: [],
    maxPageSize: options.maxPageSize ?? 1000,
    rateLimit: { count: 0, retryAfterSeconds: 0 },
    serverErrors: 0,
    addApp(seed) {
      const records = appRecords(seed);
      double.apps.set(seed.name, records);
      return records;
    },
    count: (prefix) => double.calls.filter((c) => c.startsWith(prefix)).length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  const findApp = (identity: string): AppRecords | undefined => double.apps.get(identity) ?? [...double.apps.values()].find((a) => a.app['id'] === identity);

  /** A list as Heroku pages it: sorted by the Range's field, 206 and Next-Range while more are left. */
  const paged = (link: HerokuLink, items: JsonObject[], rangeHeader: string | undefined): Answer => {
    if (link.ranges === undefined) return { status: 200, body: items };
    const range = parseRange(rangeHeader ?? `${link.ranges[0]} ..`);
    if (!range || !link.ranges.includes(range.field)) return error(400, 'bad_request', `Invalid Range header: ranges of this list are by ${link.ranges.join(', ')}`);
    const key = (item: JsonObject): string => {
      const value = item[range.field === 'started_at' ? 'created_at' : range.field];
      return typeof value === 'string' ? value : JSON.stringify(value ?? '');
    };
    const sorted = [...items].sort((a, b) => key(a).localeCompare(key(b)) * (range.order === 'desc' ? -1 : 1));
    const past = (item: JsonObject): boolean => {
      if (range.after === undefined) return true;
      const cmp = key(item).localeCompare(range.after) * (range.order === 'desc' ? -1 : 1);
      return range.exclusive ? cmp > 0 : cmp >= 0;
    };
    const size = Math.min(range.max ?? 200, double.maxPageSize);
    const rest = sorted.filter(past);
    const page = rest.slice(0, size);
    if (rest.length <= size) return { status: 200, body: page };
    const last = key(page[page.length - 1]!);
    return { status: 206, body: page, headers: { 'next-range': `${range.field} ]${last}..; max=${size}${range.order === 'desc' ? ', order=desc' : ''}` } };
  };

  const handle = (link: HerokuLink, values: string[], body: Json | undefined, req: IncomingMessage): Answer => {
    const route = `${link.resource} ${link.title}`;
    if (route === 'app List') return paged(link, [...double.apps.values()].map((a) => a.app), req.headers.range);
    const records = findApp(values[0] ?? '');
    if (!records) return error(404, 'not_found', "Couldn't find that app.");
    switch (route) {
      case 'app Info': return { status: 200, body: records.app };
      case 'formation List': return paged(link, records.formation, req.headers.range);
      case 'buildpack-installation List': return paged(link, records.buildpacks, req.headers.range);
      case 'config-var Info for App': return { status: 200, body: records.configVars };
      case 'config-var Update': {
        for (const [name, value] of Object.entries(body as Record<string, string | null>)) {
          if (value === null) delete records.configVars[name];
          else records.configVars[name] = value;
        }
        return { status: 200, body: records.configVars };
      }
      case 'add-on List By App': return paged(link, records.addons, req.headers.range);
      case 'domain List': return paged(link, records.domains, req.headers.range);
      case 'build List': return paged(link, records.builds, req.headers.range);
      default: return error(501, 'not_implemented', `the Heroku double does not answer ${link.method} ${link.href} (${route})`);
    }
  };

  const violation = (message: string): Answer => {
    double.violations.push(message);
    return error(500, 'schema_violation', message);
  };

  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const path = new URL(req.url ?? '/', url).pathname;
    const method = req.method ?? 'GET';
    double.calls.push(`${method} ${path}`);
    if (req.headers.accept !== HEROKU_ACCEPT) return violation(`${method} ${path}: Accept is "${req.headers.accept ?? ''}", not "${HEROKU_ACCEPT}"`);
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (key === undefined || !double.apiKeys.has(key)) return error(401, 'unauthorized', 'Invalid credentials provided.');
    if (double.rateLimit.count > 0) {
      double.rateLimit.count--;
      return { ...error(429, 'rate_limit', 'Your account reached the API rate limit. Please wait a few minutes before making new requests'), headers: { 'retry-after': String(double.rateLimit.retryAfterSeconds) } };
    }
    if (double.serverErrors > 0) {
      double.serverErrors--;
      return error(503, 'unavailable', 'Heroku is temporarily unavailable');
    }
    const matched = schema.match(method, path);
    if (!matched) return violation(`${method} ${path}: no link of Heroku's document has this method and path`);
    for (const [index, ref] of matched.link.parameters.entries()) {
      const problem = schema.parameterProblem(ref, matched.values[index]!);
      if (problem) return violation(`${method} ${path}: ${problem}`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    let body: Json | undefined;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as Json);
    } catch {
      return violation(`${method} ${path}: the body is not JSON`);
    }
    const bodyProblem = schema.bodyProblem(matched.link, body);
    if (bodyProblem) return violation(`${method} ${path}: ${bodyProblem}`);
    const result = handle(matched.link, matched.values, body, req);
    if (result.status < 300) {
      const answerProblem = schema.answerProblem(matched.link, result.body);
      if (answerProblem) return violation(`${method} ${path}: ${answerProblem}`);
    }
    return result;
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answer(req).then(
      (result) => {
        res.writeHead(result.status, { 'content-type': 'application/json', 'ratelimit-remaining': '4499', ...result.headers }).end(JSON.stringify(result.body));
      },
      (failure: unknown) => {
        double.violations.push(`the double failed: ${String(failure)}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'internal', message: String(failure) }));
      },
    );
  });
  return double;
}
