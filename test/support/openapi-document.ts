/**
 * @module cairn's OpenAPI document (schemas/openapi.yaml) for tests: the routes it documents,
 * the request body schemas it declares, and a validator that checks a response the server gave
 * against the document (path, method, status, media type and body).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/** The path of the document, from the repository root: schemas/openapi.yaml. */
export const OPENAPI_PATH = fileURLToPath(new URL('../../schemas/openapi.yaml', import.meta.url));

export type JsonSchema = Record<string, unknown>;

export interface OpenApiServer {
  url: string;
  description?: string;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
}

export interface OpenApiResponse {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiRequestBody {
  $ref?: string;
  required?: boolean;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiParameter {
  $ref?: string;
  name?: string;
  in?: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type OpenApiPathItem = { servers?: OpenApiServer[]; parameters?: OpenApiParameter[] } & Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: OpenApiServer[];
  security?: Array<Record<string, string[]>>;
  paths: Record<string, OpenApiPathItem>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    responses?: Record<string, OpenApiResponse>;
    parameters?: Record<string, OpenApiParameter>;
    requestBodies?: Record<string, OpenApiRequestBody>;
    headers?: Record<string, unknown>;
    securitySchemes?: Record<string, unknown>;
  };
}

let cachedDocument: OpenApiDocument | undefined;

/** The parsed document (read once per process; callers must not change it). */
export function loadOpenApi(): OpenApiDocument {
  cachedDocument ??= parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
  return cachedDocument;
}

/** One operation with its full path template (server URL + path key). */
export interface DocumentedRoute {
  method: string;
  /** E.g. `/api/v1/servers/{id}` or `/healthz`. */
  path: string;
}

interface LocatedOperation extends DocumentedRoute {
  /** The key under `paths`, e.g. `/servers/{id}`. */
  pathKey: string;
  operation: OpenApiOperation;
  matcher: RegExp;
  /** Literal characters in the template: a literal segment beats a `{param}` when both match. */
  literalLength: number;
}

/** Every documented operation: upper-case method and full path template, in document order. */
export function documentedRoutes(): DocumentedRoute[] {
  return locatedOperations().map(({ method, path }) => ({ method, path }));
}

/** One documented operation with where it sits in the document. */
export interface DocumentedOperation extends DocumentedRoute {
  /** The key under `paths`, e.g. `/servers/{id}`. */
  pathKey: string;
  operation: OpenApiOperation;
  /** Path-level and operation-level parameters, `$ref`s as written. */
  parameters: OpenApiParameter[];
}

/** Every documented operation with its path key, operation object and parameters. */
export function documentedOperations(): DocumentedOperation[] {
  const doc = loadOpenApi();
  return locatedOperations().map(({ method, path, pathKey, operation }) => ({
    method,
    path,
    pathKey,
    operation,
    parameters: [...(doc.paths[pathKey]?.parameters ?? []), ...(operation.parameters ?? [])],
  }));
}

let cachedOperations: LocatedOperation[] | undefined;

function locatedOperations(): LocatedOperation[] {
  if (cachedOperations) return cachedOperations;
  const doc = loadOpenApi();
  const rootServer = doc.servers?.[0]?.url ?? '/';
  const operations: LocatedOperation[] = [];
  for (const [pathKey, item] of Object.entries(doc.paths)) {
    const path = joinServerUrl(item.servers?.[0]?.url ?? rootServer, pathKey);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathKey,
        operation,
        matcher: templateMatcher(path),
        literalLength: path.replace(/\{[^}]+\}/g, '').length,
      });
    }
  }
  cachedOperations = operations;
  return operations;
}

function joinServerUrl(serverUrl: string, pathKey: string): string {
  const base = serverUrl.replace(/\/+$/, '');
  return `${base}${pathKey}`;
}

function templateMatcher(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** The concrete path without query string, with the `/v1` alias mapped onto `/api/v1`. */
function normalisePath(path: string): string {
  const withoutQuery = path.split(/[?#]/, 1)[0] ?? path;
  const trimmed = withoutQuery.length > 1 ? withoutQuery.replace(/\/+$/, '') : withoutQuery;
  return trimmed === '/v1' || trimmed.startsWith('/v1/') ? `/api${trimmed}` : trimmed;
}

/** The path templates (full) that match a concrete path, most specific first. */
function templatesFor(path: string): LocatedOperation[] {
  const concrete = normalisePath(path);
  return locatedOperations()
    .filter((op) => op.matcher.test(concrete))
    .sort((a, b) => b.literalLength - a.literalLength);
}

// ── schemas: $refs into components, compiled once ──────────────────────────────────────

const COMPONENTS_ID = 'https://cairn.dev/schemas/openapi-components.json';
const SCHEMA_REF_PREFIX = '#/components/schemas/';

/** A copy of `value` with `#/components/schemas/X` refs rewritten to `${target}X`. */
function rewriteRefs(value: unknown, target: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, target));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF_PREFIX)
        ? `${target}${inner.slice(SCHEMA_REF_PREFIX.length)}`
        : rewriteRefs(inner, target);
  }
  return out;
}

let cachedAjv: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (cachedAjv) return cachedAjv;
  // `discriminator` picks the oneOf branch by `type`, so errors name that branch's fields only.
  const instance = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, allowUnionTypes: true, discriminator: true });
  // OpenAPI's other keywords that are not JSON Schema: annotations, ignored when validating.
  instance.addKeyword({ keyword: 'xml' });
  instance.addKeyword({ keyword: 'externalDocs' });
  instance.addKeyword({ keyword: 'example' });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
  addFormats(instance);
  const schemas = loadOpenApi().components?.schemas ?? {};
  instance.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(schemas, '#/$defs/') });
  cachedAjv = instance;
  return instance;
}

/** Compiled validators by schema text: the many responses that share a `$ref` share one. */
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv().compile(rewriteRefs(schema, `${COMPONENTS_ID}#/$defs/`) as JsonSchema);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * A schema that stands alone: `schema` with every component it may reach under `$defs`, so a
 * generator or another validator needs nothing else.
 */
function standalone(schema: JsonSchema): JsonSchema {
  const defs = rewriteRefs(loadOpenApi().components?.schemas ?? {}, '#/$defs/') as Record<string, JsonSchema>;
  return { ...(rewriteRefs(schema, '#/$defs/') as JsonSchema), $defs: defs };
}

function resolveResponse(response: OpenApiResponse): OpenApiResponse {
  const ref = response.$ref;
  if (!ref) return response;
  const name = ref.replace('#/components/responses/', '');
  const resolved = loadOpenApi().components?.responses?.[name];
  if (!resolved) throw new Error(`openapi.yaml: unresolvable response $ref ${ref}`);
  return resolveResponse(resolved);
}

function resolveRequestBody(body: OpenApiRequestBody): OpenApiRequestBody {
  const ref = body.$ref;
  if (!ref) return body;
  const name = ref.replace('#/components/requestBodies/', '');
  const resolved = loadOpenApi().components?.requestBodies?.[name];
  if (!resolved) throw new Error(`openapi.yaml: unresolvable requestBody $ref ${ref}`);
  return resolveRequestBody(resolved);
}

/** `application/json; charset=utf-8` → `application/json`. */
function mediaTypeOf(contentType: string | undefined): string | undefined {
  const bare = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return bare === '' ? undefined : bare;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(body)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const extra = params.additionalProperty ?? params.unevaluatedProperty;
    return `${where}: has property "${String(extra)}" the document does not name`;
  }
  if (error.keyword === 'enum') return `${where}: ${error.message ?? 'not allowed'} (${JSON.stringify(params.allowedValues)})`;
  return `${where}: ${error.message ?? error.keyword}`;
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || body === '' || (body instanceof Uint8Array && body.length === 0);
}

export interface ResponseToValidate {
  method: string;
  /** The concrete path requested, e.g. `/api/v1/servers/0b6c…`; a query string is ignored. */
  path: string;
  status: number;
  /** The `Content-Type` header as sent, parameters included; absent for an empty body. */
  contentType?: string | undefined;
  /** Parsed JSON, or the text for non-JSON media types; undefined or '' when empty. */
  body: unknown;
}

/**
 * Checks a response against the document. Returns readable problems; empty means the response
 * is one the document allows. An undocumented path, method, status or media type is a problem.
 */
export function validateResponse(response: ResponseToValidate): string[] {
  const method = response.method.toUpperCase();
  const label = `${method} ${response.path} → ${response.status}`;
  const candidates = templatesFor(response.path);
  if (candidates.length === 0) return [`${label}: the path is not documented`];
  const located = candidates.find((op) => op.method === method);
  if (!located) {
    const allowed = [...new Set(candidates.map((op) => op.method))].join(', ');
    return [`${label}: method ${method} is not documented for ${candidates[0]!.path} (documented: ${allowed})`];
  }
  const responses = located.operation.responses;
  const statusKey = String(response.status);
  const rangeKey = `${statusKey[0] ?? ''}XX`;
  const declared = responses[statusKey] ?? responses[rangeKey] ?? responses.default;
  if (!declared) {
    return [`${label}: status ${statusKey} is not documented for ${method} ${located.path} (documented: ${Object.keys(responses).join(', ')})`];
  }
  const documented = resolveResponse(declared);
  const content = documented.content;
  if (!content || Object.keys(content).length === 0) {
    return isEmptyBody(response.body) ? [] : [`${label}: the document declares no body, but one was sent`];
  }
  const mediaType = mediaTypeOf(response.contentType);
  if (mediaType === undefined) {
    return [`${label}: no Content-Type; the document declares ${Object.keys(content).join(', ')}`];
  }
  const media = content[mediaType];
  if (!media) {
    return [`${label}: Content-Type ${mediaType} is not documented (documented: ${Object.keys(content).join(', ')})`];
  }
  if (!media.schema) return [];
  const validate = validatorFor(media.schema);
  if (validate(response.body)) return [];
  return (validate.errors ?? []).map((error) => `${label}: ${describeError(error)}`);
}

/**
 * The JSON schema of an operation's request body (its `application/json` content), standing
 * alone with the components it uses under `$defs`; undefined when the operation takes no body.
 * `path` is a template, full (`/api/v1/servers/{id}`) or as keyed in the document (`/servers/{id}`).
 */
export function requestBodySchema(method: string, path: string): JsonSchema | undefined {
  const upper = method.toUpperCase();
  const located = locatedOperations().find((op) => op.method === upper && (op.path === path || op.pathKey === path));
  if (!located) throw new Error(`openapi.yaml documents no ${upper} ${path}`);
  const body = located.operation.requestBody;
  if (!body) return undefined;
  const schema = resolveRequestBody(body).content?.['application/json']?.schema;
  return schema && standalone(schema);
}
