/**
 * @module A validator for Google API discovery documents (Compute Engine, Cloud SQL Admin, any
 * other of the same format): each request is matched to its method by HTTP method and path
 * template (`projects/{project}/zones/{zone}/instances`), its path and query parameters checked
 * against the method's parameters (type, format, pattern, enum, required; the document's global
 * parameters allowed everywhere), its body against the method's request schema, and each answer
 * against the method's response schema. Discovery schemas become JSON Schema for ajv: `$ref` by
 * id, `type`, `format` (int64/uint64/int32/uint32/byte as patterns), `items`, `properties` (an
 * object with properties and no `additionalProperties` is closed: Google refuses unknown field
 * names), `additionalProperties`, `enum`. Problems are returned as text, for `violations`.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

interface DiscoveryParameter {
  type?: string;
  format?: string;
  location?: string;
  required?: boolean;
  pattern?: string;
  enum?: string[];
  repeated?: boolean;
  minimum?: string;
  maximum?: string;
}

interface DiscoveryMethod {
  id: string;
  path: string;
  httpMethod: string;
  parameters?: Record<string, DiscoveryParameter>;
  request?: { $ref: string };
  response?: { $ref: string };
}

interface DiscoverySchema {
  $ref?: string;
  type?: string;
  format?: string;
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  enum?: string[];
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, DiscoveryResource>;
}

interface DiscoveryDocument {
  name: string;
  servicePath: string;
  parameters: Record<string, DiscoveryParameter>;
  schemas: Record<string, DiscoverySchema>;
  resources: Record<string, DiscoveryResource>;
}

export interface MatchedRequest {
  /** The method's id, e.g. `compute.instances.insert`. */
  methodId: string;
  /** Path parameters, decoded. */
  params: Record<string, string>;
}

const FORMAT_PATTERNS: Record<string, string> = {
  int64: '^-?[0-9]+$',
  uint64: '^[0-9]+$',
  byte: '^[A-Za-z0-9+/_-]*=*$',
};

/** A discovery schema as JSON Schema, its `$ref`s pointing into `definitions` of the document's root. */
export function toJsonSchema(schema: DiscoverySchema, root: string): Record<string, unknown> {
  if (schema.$ref !== undefined) return { $ref: `${root}#/definitions/${schema.$ref}` };
  const out: Record<string, unknown> = {};
  switch (schema.type) {
    case 'string': {
      out['type'] = 'string';
      const pattern = schema.format === undefined ? undefined : FORMAT_PATTERNS[schema.format];
      if (pattern !== undefined) out['pattern'] = pattern;
      break;
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
      out['type'] = schema.type;
      break;
    case 'object':
      out['type'] = 'object';
      break;
    default:
      break; // `any`, or no type: anything
  }
  if (schema.enum !== undefined) out['enum'] = schema.enum;
  if (schema.items !== undefined) out['items'] = toJsonSchema(schema.items, root);
  if (schema.properties !== undefined) {
    out['properties'] = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, toJsonSchema(property, root)]));
    out['additionalProperties'] = schema.additionalProperties === undefined ? false : toJsonSchema(schema.additionalProperties, root);
  } else if (schema.additionalProperties !== undefined) {
    out['additionalProperties'] = toJsonSchema(schema.additionalProperties, root);
  }
  return out;
}

function methodsOf(resource: DiscoveryResource, into: DiscoveryMethod[]): DiscoveryMethod[] {
  into.push(...Object.values(resource.methods ?? {}));
  for (const child of Object.values(resource.resources ?? {})) methodsOf(child, into);
  return into;
}

/** A path template as a regular expression: `{name}` is one segment, `{+name}` any rest. */
function templatePattern(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/\{(\+?)([^}]+)\}|[^{]+/g, (part, plus: string | undefined, name: string | undefined) => {
    if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    names.push(name);
    return plus ? '(.+)' : '([^/]+)';
  });
  return { regex: new RegExp(`^${source}$`), names };
}

export class DiscoveryValidator {
  private readonly document: DiscoveryDocument;
  private readonly root: string;
  private readonly ajv: Ajv;
  private readonly routes: Array<{ method: DiscoveryMethod; regex: RegExp; names: string[] }>;
  private readonly byId = new Map<string, DiscoveryMethod>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(file: string) {
    this.document = JSON.parse(readFileSync(file, 'utf8')) as DiscoveryDocument;
    this.root = `discovery:${this.document.name}`;
    this.ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
    const definitions = Object.fromEntries(Object.entries(this.document.schemas).map(([id, schema]) => [id, toJsonSchema(schema, this.root)]));
    this.ajv.addSchema({ $id: this.root, definitions });
    const methods = methodsOf({ resources: this.document.resources }, []);
    for (const method of methods) this.byId.set(method.id, method);
    // Literal segments first: `instances/aggregated`-style paths win over `{instance}`.
    this.routes = methods
      .map((method) => ({ method, ...templatePattern(`${this.document.servicePath}${method.path}`) }))
      .sort((a, b) => a.names.length - b.names.length);
  }

  /** The method serving `httpMethod path` (path without the leading slash), or undefined. */
  match(httpMethod: string, path: string): MatchedRequest | undefined {
    for (const route of this.routes) {
      if (route.method.httpMethod !== httpMethod.toUpperCase()) continue;
      const found = route.regex.exec(path);
      if (!found) continue;
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
      return { methodId: route.method.id, params };
    }
    return undefined;
  }

  private method(methodId: string): DiscoveryMethod {
    const method = this.byId.get(methodId);
    if (!method) throw new Error(`${this.document.name}: no method ${methodId}`);
    return method;
  }

  private schema(id: string): ValidateFunction {
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.getSchema(`${this.root}#/definitions/${id}`);
      if (!validate) throw new Error(`${this.document.name}: no schema ${id}`);
      this.compiled.set(id, validate);
    }
    return validate;
  }

  private checkSchema(id: string, value: unknown, what: string): string[] {
    const validate = this.schema(id);
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 3).map((e) => `${what}: ${id}${e.instancePath} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params['additionalProperty'])})` : ''}`);
  }

  /** What is wrong with a request to `methodId`: its parameters (path and query) and its body. */
  validateRequest(methodId: string, params: Record<string, string>, query: URLSearchParams, body: unknown): string[] {
    const method = this.method(methodId);
    const problems: string[] = [];
    const declared = method.parameters ?? {};
    for (const [name, parameter] of Object.entries(declared)) {
      const values = parameter.location === 'path' ? (params[name] === undefined ? [] : [params[name]]) : query.getAll(name);
      if (parameter.required && values.length === 0) problems.push(`${methodId}: parameter ${name} is required`);
      if (values.length > 1 && !parameter.repeated) problems.push(`${methodId}: parameter ${name} given ${values.length} times`);
      for (const value of values) {
        const wrong = this.parameterProblem(parameter, value);
        if (wrong) problems.push(`${methodId}: parameter ${name}=${JSON.stringify(value)} ${wrong}`);
      }
    }
    for (const name of new Set(query.keys())) {
      if (!(name in declared) && !(name in this.document.parameters)) problems.push(`${methodId}: unknown query parameter ${name}`);
    }
    if (method.request) {
      if (body === undefined) problems.push(`${methodId}: the request has no body (${method.request.$ref})`);
      else problems.push(...this.checkSchema(method.request.$ref, body, `${methodId} request`));
    } else if (body !== undefined) {
      problems.push(`${methodId}: takes no body`);
    }
    return problems;
  }

  private parameterProblem(parameter: DiscoveryParameter, value: string): string | undefined {
    if (parameter.type === 'integer' || parameter.format === 'int64' || parameter.format === 'uint32' || parameter.format === 'int32') {
      if (!/^-?\d+$/.test(value)) return 'is not an integer';
      if (parameter.minimum !== undefined && Number(value) < Number(parameter.minimum)) return `is below ${parameter.minimum}`;
      if (parameter.maximum !== undefined && Number(value) > Number(parameter.maximum)) return `is above ${parameter.maximum}`;
    }
    if (parameter.type === 'boolean' && value !== 'true' && value !== 'false') return 'is not true or false';
    if (parameter.enum !== undefined && !parameter.enum.includes(value)) return `is not one of ${parameter.enum.join(', ')}`;
    if (parameter.pattern !== undefined && !new RegExp(`^(?:${parameter.pattern})$`).test(value)) return `does not match ${parameter.pattern}`;
    return undefined;
  }

  /** What is wrong with an answer of `methodId` (a 2xx body: the method's response schema). */
  validateResponse(methodId: string, body: unknown): string[] {
    const method = this.method(methodId);
    if (!method.response) return body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0) ? [] : [`${methodId}: answers with no body`];
    return this.checkSchema(method.response.$ref, body, `${methodId} answer`);
  }
}
