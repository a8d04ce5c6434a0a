/**
 * @module Heroku's Platform API document (JSON Hyper-Schema, draft-04, copied beside this file
 * with its licence) as the Heroku double's referee: which link a request is (`links[]` by
 * method and `href` template), whether its path parameters are the resource identities the
 * document says, whether its body fits the link's `schema`, and whether the double's answer
 * fits its `targetSchema`. Heroku's `strictProperties: true` (interagent's extension) is read
 * as the document's tooling means it: every listed property present and no other, so an
 * answer missing a field Heroku always sends is a violation too. It also makes complete
 * example records from the document's own `example` values, for the double to fill in.
 */
import { readFileSync } from 'node:fs';
import AjvDraft04Module from 'ajv-draft-04';
import type { ErrorObject, ValidateFunction } from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

// Both are CommonJS modules whose export is the thing itself (with a `default` beside it).
const AjvDraft04 = AjvDraft04Module as unknown as typeof AjvDraft04Module.default;
type AjvDraft04 = InstanceType<typeof AjvDraft04>;
const addFormats = addFormatsModule as unknown as (ajv: AjvDraft04) => AjvDraft04;

const DOCUMENT = JSON.parse(readFileSync(new URL('./platform-api-schema.json', import.meta.url), 'utf8')) as JsonObject;
const DOCUMENT_ID = 'http://api.heroku.com/schema';

/** The document with `strictProperties` spelled as plain draft-04, without the interagent meta-schema, ids and examples. */
function strictened(value: Json): Json {
  if (Array.isArray(value)) return value.map(strictened);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    // ajv walks every key for ids, examples' too (whose `id`s are values): examples stay in the
    // original, which `example` reads, and only the root's id names the document.
    if (key === '$schema' || key === 'example' || (key === 'id' && typeof child === 'string')) continue;
    out[key] = key === 'links' && Array.isArray(child) ? child.map(strictenLink) : strictened(child);
  }
  const properties = value['properties'];
  if (value['strictProperties'] === true && properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    out['required'] = Object.keys(properties);
    if (out['additionalProperties'] === undefined) out['additionalProperties'] = false;
  }
  return out;
}

function strictenLink(link: Json): Json {
  if (link === null || typeof link !== 'object' || Array.isArray(link)) return link;
  return { ...link, ...(link['schema'] === undefined ? {} : { schema: strictened(link['schema']) }), ...(link['targetSchema'] === undefined ? {} : { targetSchema: strictened(link['targetSchema']) }) };
}

/** One link of the document: a method on an href template. */
export interface HerokuLink {
  resource: string;
  index: number;
  method: string;
  href: string;
  title: string;
  /** The fields its list may be ranged by (`id`, `name`, …); undefined for answers that are not paged. */
  ranges: string[] | undefined;
  /** The `$ref`s of the identities its path parameters are, in order. */
  parameters: string[];
  pattern: RegExp;
  hasBody: boolean;
  hasTarget: boolean;
}

/** A string field of the document (`href`, `method`, `title`). */
function text(value: Json | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function ajvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is wrong'}${e.params && 'additionalProperty' in e.params ? ` ("${String(e.params['additionalProperty'])}")` : ''}`).join('; ');
}

export class HerokuSchema {
  readonly links: HerokuLink[] = [];
  private readonly ajv: AjvDraft04;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = new AjvDraft04({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    // The document calls host names (`domain.hostname`: "subdomain.example.com") and paths
    // "uri" too: a URI reference is what it means, and what Heroku sends.
    this.ajv.addFormat('uri', fullFormats['uri-reference']);
    const document = strictened(DOCUMENT) as JsonObject;
    this.ajv.addSchema({ ...document, id: `${DOCUMENT_ID}#` }, DOCUMENT_ID);
    const definitions = document['definitions'] as Record<string, JsonObject>;
    for (const [resource, definition] of Object.entries(definitions)) {
      (definition['links'] as JsonObject[] | undefined ?? []).forEach((link, index) => {
        const href = text(link['href']);
        const parameters: string[] = [];
        const source = href.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\\\((.*?)\\\)\}/g, (_m, ref: string) => {
          parameters.push(decodeURIComponent(ref));
          return '([^/]+)';
        });
        this.links.push({
          resource, index, method: text(link['method']), href, title: text(link['title']),
          ranges: Array.isArray(link['ranges']) ? (link['ranges'] as string[]) : undefined,
          parameters, pattern: new RegExp(`^${source}$`), hasBody: link['schema'] !== undefined, hasTarget: link['targetSchema'] !== undefined,
        });
      });
    }
  }

  private validator(pointer: string): ValidateFunction {
    const known = this.compiled.get(pointer);
    if (known) return known;
    const validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    this.compiled.set(pointer, validate);
    return validate;
  }

  /** The link a request is, with its decoded path parameters; undefined when the document has none. */
  match(method: string, path: string): { link: HerokuLink; values: string[] } | undefined {
    for (const link of this.links) {
      if (link.method !== method) continue;
      const found = link.pattern.exec(path);
      if (found) return { link, values: found.slice(1).map((v) => decodeURIComponent(v)) };
    }
    return undefined;
  }

  /** What is wrong with a path parameter as the identity it stands for; undefined when it fits. */
  parameterProblem(ref: string, value: string): string | undefined {
    const validate = this.validator(ref.replace(/^#/, ''));
    const given: unknown = value;
    return validate(given) ? undefined : `path parameter "${value}" is not a ${ref}: ${ajvErrors(validate.errors)}`;
  }

  /** What is wrong with a request body for `link`; undefined when it fits. */
  bodyProblem(link: HerokuLink, body: unknown): string | undefined {
    if (!link.hasBody) return body === undefined ? undefined : `${link.method} ${link.href} takes no body`;
    const validate = this.validator(`/definitions/${link.resource}/links/${link.index}/schema`);
    return validate(body) ? undefined : `the body breaks the schema of ${link.method} ${link.href} (${link.resource} ${link.title}): ${ajvErrors(validate.errors)}`;
  }

  /** What is wrong with an answer to `link`; undefined when it fits. */
  answerProblem(link: HerokuLink, body: unknown): string | undefined {
    if (!link.hasTarget) return undefined;
    const validate = this.validator(`/definitions/${link.resource}/links/${link.index}/targetSchema`);
    return validate(body) ? undefined : `the answer breaks the targetSchema of ${link.method} ${link.href} (${link.resource} ${link.title}): ${ajvErrors(validate.errors)}`;
  }

  /** A complete record of `resource` made of the document's own example values. */
  example(resource: string): JsonObject {
    return exampleOf({ $ref: `#/definitions/${resource}` }) as JsonObject;
  }
}

function resolve(ref: string): Json {
  let at: Json = DOCUMENT;
  for (const part of ref.replace(/^#\//, '').split('/')) at = (at as JsonObject)[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')] ?? null;
  return at;
}

function exampleOf(schema: Json, depth = 0): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > 12) return null;
  if (typeof schema['$ref'] === 'string') return exampleOf(resolve(schema['$ref']), depth + 1);
  if (schema['example'] !== undefined) return structuredClone(schema['example']);
  const alternatives = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleOf(alternatives[0]!, depth + 1);
  const type = schema['type'];
  if (type === 'array' || (Array.isArray(type) && type.includes('array'))) return [];
  const properties = schema['properties'];
  if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    return Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, exampleOf(child, depth + 1)]));
  }
  return null;
}

export type { Json, JsonObject };
