/**
 * @module The codecs' side of each kind's REST fields: a body's fields applied onto a spec, a
 * record's fields taken from a spec, and a manifest field's pointer turned back into the body's,
 * all through the one table (generated/rest-fields.ts) that `npm run gen` derives from the JSON
 * Schemas and rest-field-mapping.ts, and from which it writes the kinds' OpenAPI components.
 */
import type { Kind } from '../../model/kinds.js';
import { REST_FIELDS } from './generated/rest-fields.js';
import { METADATA_COMPONENTS } from './rest-field-mapping.js';

/** One spec field and its REST twin (see rest-field-mapping.ts for the conventions). */
export interface RestField {
  /** The field in REST bodies and records. */
  rest: string;
  /** Its path inside the manifest's `spec`, dotted for a nested field (`backup.retention`). */
  spec: string;
  /** The OpenAPI component of its value (none for a single reference, which is a `Uuid`). */
  component?: string;
  /** The field names another resource: the manifest by its name, REST by its id. */
  references?: Kind;
  /** Taken by create bodies. */
  create: boolean;
  /** Taken by update bodies: `set`, `clearable` (null takes it out of the spec), or not (false). */
  update: 'set' | 'clearable' | false;
  /** What a record shows when the spec leaves it out (and the object around it is there): the schema's default, or an empty map or list. */
  whenAbsent?: unknown;
  /** Null in an update takes out the object around the field too (that object requires it). */
  clearsParent?: boolean;
  /** Taken by bodies, never shown by records. */
  writeOnly?: boolean;
  /** The record shows what the resource turned out to be under this name, not the spec's value (the codec fills it). */
  recordShowsObserved?: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dotted path of `spec`, or undefined. */
export function specValue(spec: object, path: string): unknown {
  let at: unknown = spec;
  for (const part of path.split('.')) at = isObject(at) ? at[part] : undefined;
  return at;
}

/** Whether the object around a nested field (`backup` for `backup.retention`) is in the spec. */
function parentPresent(spec: object, path: string): boolean {
  const parts = path.split('.');
  return parts.length === 1 || isObject(specValue(spec, parts.slice(0, -1).join('.')));
}

/** Sets the field at a dotted path, making (copies of) the objects on the way. */
function setSpecValue(spec: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = spec;
  for (const part of parts.slice(0, -1)) {
    at[part] = isObject(at[part]) ? { ...at[part] } : {};
    at = at[part] as Json;
  }
  at[parts[parts.length - 1]!] = value;
}

/** Takes out the field at a dotted path, and the object around it when that is left empty (or when `withParent`). */
function clearSpecValue(spec: Json, path: string, withParent: boolean): void {
  const parts = path.split('.');
  if (parts.length === 1) {
    delete spec[path];
    return;
  }
  const parentPath = parts.slice(0, -1).join('.');
  const parent = specValue(spec, parentPath);
  if (!isObject(parent)) return;
  const rest = { ...parent };
  delete rest[parts[parts.length - 1]!];
  if (withParent || Object.keys(rest).length === 0) clearSpecValue(spec, parentPath, false);
  else setSpecValue(spec, parentPath, rest);
}

/**
 * Applies the fields a create (`mode` create) or update body gives onto `spec`, by the table:
 * a value is set at its spec path, null (clearable fields of an update) takes it out. Reference
 * fields are left to the codec, which resolves ids to names.
 */
export function applyBodyFields(kind: Kind, mode: 'create' | 'update', body: object, spec: object): void {
  const given = body as Json;
  const target = spec as Json;
  for (const field of REST_FIELDS[kind]) {
    if (field.references || !(mode === 'create' ? field.create : field.update)) continue;
    const value = given[field.rest];
    if (value === undefined) continue;
    if (value === null) clearSpecValue(target, field.spec, field.clearsParent === true);
    else setSpecValue(target, field.spec, value);
  }
}

/**
 * The record's fields taken from the spec (reference fields aside, which the codec resolves):
 * the spec's value, else what the table says the record shows when it is left out, else null.
 */
export function specRecordFields(kind: Kind, spec: object): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of REST_FIELDS[kind]) {
    if (field.references || field.writeOnly || field.recordShowsObserved) continue;
    const value = specValue(spec, field.spec);
    if (value !== undefined) record[field.rest] = value;
    else if (field.whenAbsent !== undefined && parentPresent(spec, field.spec)) record[field.rest] = structuredClone(field.whenAbsent);
    else record[field.rest] = null;
  }
  return record;
}

/** `/spec/backup/retention` → `/backup_retention`: where a manifest field came from in a REST body. */
export function restPointerOf(kind: Kind | undefined, manifestPointer: string): string | undefined {
  const metadata = Object.keys(METADATA_COMPONENTS).map((name) => [`/metadata/${name}`, `/${name}`] as const);
  const fields = (kind ? REST_FIELDS[kind] : Object.values(REST_FIELDS).flat())
    .map((f) => [`/spec/${f.spec.replaceAll('.', '/')}`, `/${f.rest}`] as const);
  for (const [from, to] of [...metadata, ...fields]) {
    if (manifestPointer === from || manifestPointer.startsWith(`${from}/`)) return to + manifestPointer.slice(from.length);
  }
  return undefined;
}
