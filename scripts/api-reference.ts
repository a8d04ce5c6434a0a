/**
 * @module Renders the REST reference (docs/api.md) from the OpenAPI document: every operation
 * by tag with its method, path, summary, parameters, request fields, responses and the error
 * codes it can answer. Pure: the document in, Markdown out (`npm run gen:api-docs` writes it;
 * a test fails when docs/api.md is stale).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export function readOpenApi(path: string): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
/** One line of a table cell: newlines folded, pipes escaped. */
const cell = (value: string): string => value.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();

class Resolver {
  constructor(private readonly document: Json) {}

  /** The object a `$ref` names (or the object itself). */
  resolve(value: unknown): Json {
    const ref = text(asObject(value).$ref);
    if (!ref.startsWith('#/')) return asObject(value);
    let target: unknown = this.document;
    for (const part of ref.slice(2).split('/')) target = asObject(target)[part];
    return this.resolve(target);
  }

  /** A short type: `string`, `integer`, `Server`, `array of Label`, `"a" \| "b"`. */
  typeOf(schema: unknown): string {
    const s = asObject(schema);
    const ref = text(s.$ref);
    if (ref) {
      const name = ref.split('/').pop() ?? ref;
      const target = this.resolve(s);
      return target.properties !== undefined || target.allOf !== undefined ? name : this.typeOf(target);
    }
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (s.const !== undefined) return JSON.stringify(s.const);
    for (const key of ['oneOf', 'anyOf'] as const) {
      if (Array.isArray(s[key])) return s[key].map((v) => this.typeOf(v)).join(' | ');
    }
    const type = Array.isArray(s.type) ? s.type.map(String).join(' | ') : text(s.type);
    if (type === 'array') return `array of ${this.typeOf(s.items)}`;
    if (type === 'object' && s.properties === undefined && s.additionalProperties !== undefined) return `map of ${this.typeOf(s.additionalProperties)}`;
    return type || 'any';
  }

  /** The schema's own fields, with those of `allOf` parts: [name, schema, required]. */
  fields(schema: unknown): Array<[string, Json, boolean]> {
    const s = this.resolve(schema);
    const parts = [s, ...asArray(s.allOf).map((p) => this.resolve(p))];
    const out: Array<[string, Json, boolean]> = [];
    for (const part of parts) {
      const required = new Set(asArray(part.required).map(String));
      for (const [name, field] of Object.entries(asObject(part.properties))) out.push([name, asObject(field), required.has(name)]);
    }
    return out;
  }

  description(schema: unknown): string {
    const s = asObject(schema);
    return text(s.description) || text(this.resolve(s).description);
  }
}

function renderOperation(r: Resolver, method: string, path: string, operation: Json, shared: unknown[]): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', `${text(operation.summary)}.`.replace(/\.\.$/, '.'), ''];
  if (text(operation.description)) lines.push(text(operation.description).trim(), '');
  if (Array.isArray(operation.security) && operation.security.length === 0) lines.push('No authentication.', '');

  const parameters = [...shared, ...asArray(operation.parameters)].map((p) => r.resolve(p));
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | required | description |', '|---|---|---|---|---|');
    for (const p of parameters) {
      lines.push(`| \`${text(p.name)}\` | ${text(p.in)} | ${cell(r.typeOf(p.schema))} | ${p.required === true ? 'yes' : 'no'} | ${cell(text(p.description))} |`);
    }
    lines.push('');
  }

  const body = r.resolve(operation.requestBody);
  for (const [contentType, media] of Object.entries(asObject(body.content))) {
    const schema = asObject(media).schema;
    lines.push(`Request body (\`${contentType}\`${body.required === true ? '' : ', optional'}): ${cell(r.typeOf(schema))}.`, '');
    const fields = r.fields(schema);
    if (fields.length > 0) {
      lines.push('| field | type | required | description |', '|---|---|---|---|');
      for (const [name, field, required] of fields) {
        lines.push(`| \`${name}\` | ${cell(r.typeOf(field))} | ${required ? 'yes' : 'no'} | ${cell(r.description(field))} |`);
      }
      lines.push('');
    }
  }

  lines.push('| status | description | body |', '|---|---|---|');
  const codes: string[] = [];
  for (const [status, answer] of Object.entries(asObject(operation.responses))) {
    const response = r.resolve(answer);
    const media = Object.entries(asObject(response.content))[0];
    const bodyType = media ? `${cell(r.typeOf(asObject(media[1]).schema))} (\`${media[0]}\`)` : '';
    lines.push(`| ${status} | ${cell(text(response.description))} | ${bodyType} |`);
    for (const match of text(response.description).matchAll(/[Cc]ode `([a-z_]+)`/g)) if (match[1] && !codes.includes(match[1])) codes.push(match[1]);
  }
  lines.push('');
  if (codes.length > 0) lines.push(`Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`, '');
  return lines;
}

/** docs/api.md for the OpenAPI document `document`. */
export function renderApiReference(document: Json): string {
  const r = new Resolver(document);
  const info = asObject(document.info);
  const tags = asArray(document.tags).map(asObject);
  const byTag = new Map<string, string[][]>(tags.map((t) => [text(t.name), []]));
  const paths = asObject(document.paths);
  const index: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const pathItem = asObject(item);
    for (const method of METHODS) {
      const operation = asObject(pathItem[method]);
      if (pathItem[method] === undefined) continue;
      const tag = text(asArray(operation.tags)[0]) || 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)?.push(renderOperation(r, method, path, operation, asArray(pathItem.parameters)));
      index.push(`| ${tag} | \`${method.toUpperCase()} ${path}\` | ${cell(text(operation.summary))} |`);
    }
  }
  const out = [
    `# ${text(info.title)} ${text(info.version)}`,
    '',
    '<!-- Generated from schemas/openapi.yaml by `npm run gen:api-docs`; edit the OpenAPI document, not this file. -->',
    '',
    text(info.summary),
    '',
    text(info.description).trim(),
    '',
    'The machine-readable document is [`schemas/openapi.yaml`](../schemas/openapi.yaml), served at `/api/v1/openapi.json`.',
    '',
    '## Operations',
    '',
    '| group | operation | summary |',
    '|---|---|---|',
    ...index,
    '',
  ];
  for (const [tag, operations] of byTag) {
    if (operations.length === 0) continue;
    out.push(`## ${tag}`, '');
    const description = text(tags.find((t) => t.name === tag)?.description);
    if (description) out.push(description, '');
    for (const operation of operations) out.push(...operation);
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
