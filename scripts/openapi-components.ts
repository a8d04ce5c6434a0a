/**
 * @module Derives each kind's REST fields from its JSON Schema (schemas/<kind>.schema.json)
 * and the declared mapping (src/api/records/rest-field-mapping.ts), and renders them twice:
 * as the codecs' table (src/api/records/generated/rest-fields.ts) and as the kind's OpenAPI
 * components (field values, create and update bodies, the record's spec fields) between
 * `generated` markers in schemas/openapi.yaml. Pure: schemas and document text in, text out
 * (`npm run gen:openapi-components` writes them; a test fails when either is stale). Refuses,
 * naming the field, a mapping that contradicts the schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, isMap, isScalar, visit } from 'yaml';
import { KINDS, type Kind } from '../src/model/kinds.js';
import { KIND_SCHEMA_FILES, METADATA_SCHEMA_FILE } from '../src/model/schema-files.js';
import { METADATA_COMPONENTS, REST_FIELD_MAPPING, type KindMapping } from '../src/api/records/rest-field-mapping.js';
import type { RestField } from '../src/api/records/rest-fields.js';

type Json = Record<string, unknown>;

const UUID = { $ref: '#/components/schemas/Uuid' };
const NULL = { type: 'null' };
const ref = (component: string): Json => ({ $ref: `#/components/schemas/${component}` });
const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const snake = (path: string): string => path.replace(/\./g, '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const article = (word: string): string => (/^[aeiou]/i.test(word) ? 'an' : 'a');
const pascal = (path: string): string => path.split('.').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');

/** One REST field with what the schema says of it. */
export interface DerivedField extends RestField {
  /** The field's schema in the kind's JSON Schema. */
  schema: Json;
  /** Required in the spec, and every object around it too. */
  requiredAllTheWay: boolean;
  /** Every object around it is required (true for a top-level field). */
  parentsRequired: boolean;
  /** Fields of the same required-containing object that must come with it in a create body. */
  comesWith: string[];
  description?: string;
}

export interface KindFields {
  kind: Kind;
  spec: Json;
  mapping: KindMapping;
  fields: DerivedField[];
}

export function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

function specSchemaOf(schemaDir: string, kind: Kind): Json {
  return asObject(asObject(readJson(join(schemaDir, KIND_SCHEMA_FILES[kind])).properties).spec);
}

/** Spec paths REST carries, in the schema's order: a top-level field, or the fields of an object the mapping flattens. */
function specPaths(kind: Kind, spec: Json, mapping: KindMapping): string[] {
  const declared = [...Object.keys(mapping.fields), ...Object.keys(mapping.specOnly)];
  const paths: string[] = [];
  for (const [name, schema] of Object.entries(asObject(spec.properties))) {
    const flattened = declared.some((path) => path.startsWith(`${name}.`));
    if (!flattened) {
      paths.push(name);
      continue;
    }
    if (declared.includes(name)) throw new Error(`${kind}: spec.${name} is both mapped whole and flattened in rest-field-mapping.ts`);
    for (const child of Object.keys(asObject(asObject(schema).properties))) paths.push(`${name}.${child}`);
  }
  for (const path of declared) {
    if (!paths.includes(path)) throw new Error(`${kind}: rest-field-mapping.ts maps spec.${path}, which ${KIND_SCHEMA_FILES[kind]} does not have`);
  }
  return paths;
}

function emptyOf(kind: Kind, path: string, schema: Json): unknown {
  if (schema.type === 'object') return {};
  if (schema.type === 'array') return [];
  throw new Error(`${kind}: spec.${path} is neither a map nor a list, so it has no empty value (emptyWhenAbsent)`);
}

function deriveField(kind: Kind, spec: Json, mapping: KindMapping, path: string): DerivedField {
  const declared = mapping.fields[path] ?? {};
  const [head, leaf] = path.includes('.') ? (path.split('.') as [string, string]) : [undefined, path];
  const parent = head === undefined ? spec : asObject(asObject(spec.properties)[head]);
  const schema = asObject(asObject(parent.properties)[leaf]);
  const requiredIn = (s: Json, name: string): boolean => Array.isArray(s.required) && s.required.includes(name);
  const parentsRequired = head === undefined || requiredIn(spec, head);
  const requiredAllTheWay = parentsRequired && requiredIn(parent, leaf);
  const whenAbsent = schema.default !== undefined ? schema.default : declared.emptyWhenAbsent ? emptyOf(kind, path, schema) : undefined;
  const update = declared.update ?? 'set';
  if (update === 'clearable' && requiredAllTheWay) throw new Error(`${kind}: spec.${path} is required, so it cannot be clearable`);
  if (update === 'clearable' && head !== undefined && requiredIn(parent, leaf) !== (declared.clearsParent === true)) {
    throw new Error(`${kind}: spec.${path} is ${requiredIn(parent, leaf) ? '' : 'not '}required by spec.${head}, so clearsParent must be ${String(requiredIn(parent, leaf))}`);
  }
  const field: DerivedField = {
    rest: declared.rest ?? snake(path),
    spec: path,
    create: declared.create ?? true,
    update,
    schema,
    requiredAllTheWay,
    parentsRequired,
    comesWith: [],
  };
  if (declared.references) field.references = declared.references;
  if (!declared.references || schema.type === 'array') field.component = declared.component ?? `${kind}${pascal(path)}`;
  if (whenAbsent !== undefined) field.whenAbsent = whenAbsent;
  if (declared.clearsParent) field.clearsParent = true;
  if (declared.description) field.description = declared.description;
  if (declared.writeOnly) field.writeOnly = true;
  if (declared.recordShowsObserved) field.recordShowsObserved = true;
  return field;
}

/** Every REST field of `kind`, derived from its JSON Schema and the declared mapping. */
export function deriveKindFields(schemaDir: string, kind: Kind): KindFields {
  const spec = specSchemaOf(schemaDir, kind);
  const mapping = REST_FIELD_MAPPING[kind];
  const fields = specPaths(kind, spec, mapping).filter((path) => mapping.specOnly[path] === undefined).map((path) => deriveField(kind, spec, mapping, path));
  // A field inside an optional object that requires a sibling needs that sibling in a create body.
  for (const field of fields.filter((f) => f.spec.includes('.') && !f.parentsRequired)) {
    const head = field.spec.split('.')[0]!;
    const required = asObject(asObject(spec.properties)[head]).required;
    const siblings = (Array.isArray(required) ? required.map(String) : []).map((name) => fields.find((f) => f.spec === `${head}.${name}`));
    field.comesWith = siblings.filter((s): s is DerivedField => s !== undefined && s !== field).map((s) => s.rest);
  }
  return { kind, spec, mapping, fields };
}

// ── the codecs' table ──────────────────────────────────────────────────────────────────

const TABLE_BANNER = `/**
 * @module Each kind's REST fields, GENERATED from schemas/*.schema.json and
 * src/api/records/rest-field-mapping.ts by \`npm run gen:openapi-components\`. Do not edit by
 * hand: change the schema or the mapping and regenerate.
 */`;

export function renderRestFieldTable(kinds: readonly KindFields[]): string {
  const table: Record<string, RestField[]> = {};
  for (const { kind, fields } of kinds) {
    table[kind] = fields.map((f) => {
      const entry: RestField = { rest: f.rest, spec: f.spec, create: f.create, update: f.update };
      if (f.component) entry.component = f.component;
      if (f.references) entry.references = f.references;
      if (f.whenAbsent !== undefined) entry.whenAbsent = f.whenAbsent;
      if (f.clearsParent) entry.clearsParent = true;
      if (f.writeOnly) entry.writeOnly = true;
      if (f.recordShowsObserved) entry.recordShowsObserved = true;
      return entry;
    });
  }
  return `${TABLE_BANNER}
import type { Kind } from '../../../model/kinds.js';
import type { RestField } from '../rest-fields.js';

export const REST_FIELDS: Readonly<Record<Kind, readonly RestField[]>> = ${JSON.stringify(table, null, 2)};
`;
}

// ── OpenAPI components ─────────────────────────────────────────────────────────────────

/**
 * A copy of a field's schema where every `required` of a conditional's branch also names its
 * fields under `properties` (any value; the object's own properties say which), as OpenAPI
 * linters and strict validators want each required field defined where it is required.
 */
function withRequiredNamed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withRequiredNamed);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withRequiredNamed(v)]));
  for (const key of ['then', 'else'] as const) {
    const branch = asObject(out[key]);
    if (Array.isArray(branch.required)) {
      out[key] = { ...branch, properties: { ...Object.fromEntries(branch.required.map((name) => [String(name), {}])), ...asObject(branch.properties) } };
    }
  }
  return out;
}

function valueComponent(field: DerivedField): Json {
  if (field.references) {
    const { items: _items, description, ...list } = field.schema;
    return { description: field.description ?? description, ...list, items: UUID };
  }
  const schema = withRequiredNamed(field.schema) as Json;
  return field.description ? { ...schema, description: field.description } : schema;
}

function valueSchema(field: DerivedField): Json {
  return field.component ? ref(field.component) : UUID;
}

function isOnlyRequired(value: unknown): value is { required: unknown[] } {
  const keys = Object.keys(asObject(value));
  return keys.length === 1 && keys[0] === 'required' && Array.isArray(asObject(value).required);
}

/** The spec's `if`/`then` rules over top-level fields, in REST names. */
function translateRule(kind: Kind, rule: unknown, names: Map<string, string>): unknown {
  const rename = (name: string): string => {
    const rest = names.get(name);
    if (rest === undefined) throw new Error(`${kind}: a rule of the spec names ${name}, which has no REST field of its own`);
    return rest;
  };
  if (Array.isArray(rule)) return rule.map((r) => translateRule(kind, r, names));
  if (rule === null || typeof rule !== 'object') return rule;
  const out: Json = {};
  for (const [key, value] of Object.entries(rule)) {
    if (key === 'not' && isOnlyRequired(value)) {
      // `not: { required: [a] }` is `properties: { a: false }`, which OpenAPI linters understand.
      out.properties = { ...asObject(out.properties), ...Object.fromEntries(value.required.map((v) => [rename(String(v)), false])) };
    } else if (key === 'required' && Array.isArray(value)) {
      out[key] = value.map((v) => rename(String(v)));
      // Named again (any value; the body's own properties say which) so linters see each required field defined here.
      out.properties = { ...Object.fromEntries(value.map((v) => [rename(String(v)), {}])), ...asObject(out.properties) };
    }
    else if (key === 'properties') out[key] = { ...asObject(out.properties), ...Object.fromEntries(Object.entries(asObject(value)).map(([k, v]) => [rename(k), translateRule(kind, v, names)])) };
    else out[key] = translateRule(kind, value, names);
  }
  return out;
}

function createBody({ kind, spec, mapping, fields }: KindFields): Json {
  const taken = fields.filter((f) => f.create);
  const properties: Json = { name: ref(METADATA_COMPONENTS.name) };
  for (const f of taken) properties[f.rest] = valueSchema(f);
  for (const [rest, component] of Object.entries(mapping.restOnly.create)) properties[rest] = ref(component);
  properties.labels = ref(METADATA_COMPONENTS.labels);
  const body: Json = {
    description: `${article(kind) === 'an' ? 'An' : 'A'} new ${kind.toLowerCase()}: its manifest's spec in REST's names (${KIND_SCHEMA_FILES[kind]}).`,
    type: 'object',
    additionalProperties: false,
    required: ['name', ...taken.filter((f) => f.requiredAllTheWay).map((f) => f.rest)],
    properties,
  };
  const dependent = Object.fromEntries(taken.filter((f) => f.comesWith.length > 0).map((f) => [f.rest, f.comesWith]));
  if (Object.keys(dependent).length > 0) body.dependentRequired = dependent;
  const names = new Map(fields.filter((f) => !f.spec.includes('.')).map((f) => [f.spec, f.rest]));
  for (const key of ['if', 'then', 'else', 'allOf'] as const) if (spec[key] !== undefined) body[key] = translateRule(kind, spec[key], names);
  return body;
}

function updateBody({ kind, mapping, fields }: KindFields): Json {
  const properties: Json = {};
  for (const f of fields.filter((x) => x.update !== false)) properties[f.rest] = f.update === 'clearable' ? { oneOf: [valueSchema(f), NULL] } : valueSchema(f);
  for (const [rest, component] of Object.entries(mapping.restOnly.update)) properties[rest] = ref(component);
  properties.labels = ref(METADATA_COMPONENTS.labels);
  const fixed = fields.filter((f) => f.update === false).map((f) => `\`${f.rest}\``);
  const clearable = fields.filter((f) => f.update === 'clearable').map((f) => `\`${f.rest}\``);
  const sentences = [`Changes the fields given and keeps the others.`];
  if (clearable.length > 0) sentences.push(`null takes ${clearable.join(', ')} out.`);
  if (fixed.length > 0) sentences.push(`${fixed.join(', ')} cannot change: delete the ${kind.toLowerCase()} and create it again.`);
  return { description: sentences.join(' '), type: 'object', additionalProperties: false, properties };
}

function recordFields({ kind, fields }: KindFields): Json {
  const properties: Json = {};
  for (const f of fields.filter((x) => !x.writeOnly && !x.recordShowsObserved)) {
    if (f.references && f.schema.type !== 'array') {
      const noun = f.references.toLowerCase();
      properties[f.rest] = { description: `The ${noun}'s id; null when the ${noun} the manifest names does not exist (yet).`, oneOf: [UUID, NULL] };
      continue;
    }
    const alwaysShown = f.requiredAllTheWay || (f.whenAbsent !== undefined && f.parentsRequired);
    properties[f.rest] = alwaysShown ? valueSchema(f) : { oneOf: [valueSchema(f), NULL] };
  }
  return {
    description: `The fields of ${article(kind)} ${kind.toLowerCase()} record taken from its manifest's spec; null where the spec leaves out a field that has no default.`,
    type: 'object',
    required: fields.filter((f) => !f.writeOnly && !f.recordShowsObserved).map((f) => f.rest),
    properties,
  };
}

/** The components of one kind, by name. */
export function kindComponents(kind: KindFields): Json {
  const components: Json = {};
  for (const f of kind.fields) if (f.component) components[f.component] = valueComponent(f);
  components[`${kind.kind}Create`] = createBody(kind);
  components[`${kind.kind}Update`] = updateBody(kind);
  components[`${kind.kind}SpecFields`] = recordFields(kind);
  return components;
}

/** `Name` and `Labels`, from metadata.schema.json. */
export function metadataComponents(schemaDir: string): Json {
  const properties = asObject(readJson(join(schemaDir, METADATA_SCHEMA_FILE)).properties);
  return { [METADATA_COMPONENTS.name]: properties.name, [METADATA_COMPONENTS.labels]: properties.labels };
}

/** YAML at the indentation of `components.schemas` entries, `$ref`s and lists of scalars on one line. */
function renderYaml(components: Json): string {
  const doc = new Document(components, { aliasDuplicateObjects: false });
  visit(doc, {
    Map(_, node) {
      if (node.items.length === 1 && isScalar(node.items[0]?.key) && node.items[0].key.value === '$ref') node.flow = true;
    },
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item) || (isMap(item) && item.flow))) node.flow = true;
    },
  });
  return doc.toString({ indent: 2, lineWidth: 0, flowCollectionPadding: true, singleQuote: true }).trimEnd().split('\n').map((line) => `    ${line}`).join('\n');
}

const BLOCK = /^ {4}# ── generated: (\w+) ─+\n[\s\S]*?^ {4}# ── end generated: \1 ─+\n/gm;

function block(name: string, source: string, components: Json): string {
  return `    # ── generated: ${name} ──────────────────────────────────────────────────────────────
    # From ${source} by \`npm run gen:openapi-components\`; do not edit: change those and regenerate.
${renderYaml(components)}
    # ── end generated: ${name} ──────────────────────────────────────────────────────────
`;
}

/** The generated blocks of the document, by name. */
export function generatedBlocks(schemaDir: string): Map<string, string> {
  const blocks = new Map<string, string>([['ObjectMeta', block('ObjectMeta', `schemas/${METADATA_SCHEMA_FILE}`, metadataComponents(schemaDir))]]);
  for (const kind of KINDS) {
    blocks.set(kind, block(kind, `schemas/${KIND_SCHEMA_FILES[kind]} and src/api/records/rest-field-mapping.ts`, kindComponents(deriveKindFields(schemaDir, kind))));
  }
  return blocks;
}

/** `document` (schemas/openapi.yaml's text) with every generated block made anew; each block must be there once. */
export function renderOpenApiDocument(document: string, schemaDir: string): string {
  const blocks = generatedBlocks(schemaDir);
  const found = new Set<string>();
  const out = document.replace(BLOCK, (_, name: string) => {
    const fresh = blocks.get(name);
    if (fresh === undefined) throw new Error(`schemas/openapi.yaml has a generated block ${name} that nothing generates`);
    if (found.has(name)) throw new Error(`schemas/openapi.yaml has the generated block ${name} twice`);
    found.add(name);
    return fresh;
  });
  const missing = [...blocks.keys()].filter((name) => !found.has(name));
  if (missing.length > 0) throw new Error(`schemas/openapi.yaml lacks the generated block(s) ${missing.join(', ')}: add a pair of markers "    # ── generated: NAME ──" / "    # ── end generated: NAME ──" under components.schemas`);
  return out;
}

/** The codecs' table, from the JSON Schemas in `schemaDir`. */
export function restFieldTableSource(schemaDir: string): string {
  return renderRestFieldTable(KINDS.map((kind) => deriveKindFields(schemaDir, kind)));
}
