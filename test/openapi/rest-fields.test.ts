/**
 * @module One definition per kind: the kinds' REST components in schemas/openapi.yaml and the
 * codecs' table are what `npm run gen:openapi-components` makes of the JSON Schemas today; every
 * manifest field has a REST twin in the document with the same type, range, default and
 * required-ness (or is listed, with its reason, as having none); and a field added to a schema
 * reaches REST with no hand edit.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deriveKindFields, kindComponents, renderOpenApiDocument, restFieldTableSource } from '../../scripts/openapi-components.js';
import { REST_FIELD_MAPPING } from '../../src/api/records/rest-field-mapping.js';
import { KINDS, type Kind } from '../../src/model/kinds.js';
import { KIND_SCHEMA_FILES } from '../../src/model/schema-files.js';
import { REPO_ROOT } from '../support/cairn-process.js';

type Json = Record<string, unknown>;

const schemaDir = join(REPO_ROOT, 'schemas');
const documentText = readFileSync(join(schemaDir, 'openapi.yaml'), 'utf8');
const schemas = (parse(documentText) as { components: { schemas: Record<string, Json> } }).components.schemas;

/** The keywords that make a field's type, range and default. */
const SHAPE_KEYWORDS = ['type', 'enum', 'const', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'additionalProperties', 'propertyNames', 'properties', 'required'];

function resolve(schema: Json): Json {
  const ref = schema.$ref;
  return typeof ref === 'string' ? resolve(schemas[ref.replace('#/components/schemas/', '')]!) : schema;
}

function shape(schema: Json): Json {
  return Object.fromEntries(SHAPE_KEYWORDS.filter((k) => schema[k] !== undefined).map((k) => [k, schema[k]]));
}

/** Every field of a spec, dotted for the fields of objects, with whether it and everything around it is required. */
function specFields(spec: Json, prefix = '', parentsRequired = true): Array<{ path: string; schema: Json; required: boolean }> {
  const required = new Set((spec.required as string[] | undefined) ?? []);
  return Object.entries((spec.properties as Record<string, Json> | undefined) ?? {}).flatMap(([name, schema]) => {
    const path = `${prefix}${name}`;
    const here = { path, schema, required: parentsRequired && required.has(name) };
    return schema.type === 'object' && schema.properties !== undefined ? [here, ...specFields(schema, `${path}.`, here.required)] : [here];
  });
}

function specOf(kind: Kind): Json {
  const schema = JSON.parse(readFileSync(join(schemaDir, KIND_SCHEMA_FILES[kind]), 'utf8')) as { properties: { spec: Json } };
  return schema.properties.spec;
}

/** The record component's fields, through its allOf parts. */
function recordProperties(kind: Kind): Record<string, Json> {
  const record = schemas[kind]!;
  const parts = [record, ...((record.allOf as Json[] | undefined) ?? []).map(resolve)];
  return Object.assign({}, ...parts.map((p) => (p.properties as Record<string, Json> | undefined) ?? {})) as Record<string, Json>;
}

describe('the generated REST components and field table', () => {
  it('are what gen:openapi-components makes of schemas/ (run `npm run gen` when this fails)', () => {
    expect(documentText === renderOpenApiDocument(documentText, schemaDir), 'schemas/openapi.yaml is stale: run npm run gen').toBe(true);
    const table = readFileSync(join(REPO_ROOT, 'src', 'api', 'records', 'generated', 'rest-fields.ts'), 'utf8');
    expect(table, 'src/api/records/generated/rest-fields.ts is stale: run npm run gen').toBe(restFieldTableSource(schemaDir));
  });
});

describe.each(KINDS)('every %s manifest field', (kind) => {
  const mapping = REST_FIELD_MAPPING[kind];
  const create = schemas[`${kind}Create`]!;
  const update = schemas[`${kind}Update`]!;
  const record = recordProperties(kind);
  const createProperties = create.properties as Record<string, Json>;
  const createRequired = new Set(create.required as string[]);
  const { fields } = deriveKindFields(schemaDir, kind);

  it('has a REST twin, or a reason in the mapping why it has none', () => {
    const covered = (path: string): boolean =>
      [...fields.map((f) => f.spec), ...Object.keys(mapping.specOnly)].some((twin) => twin === path || twin.startsWith(`${path}.`) || path.startsWith(`${twin}.`));
    expect(specFields(specOf(kind)).filter((f) => !covered(f.path)).map((f) => f.path)).toEqual([]);
    for (const reason of Object.values(mapping.specOnly)) expect(reason.length).toBeGreaterThan(20);
  });

  it('has the same type, range and default in the create body, the update body and the record', () => {
    for (const field of specFields(specOf(kind))) {
      const twin = fields.find((f) => f.spec === field.path);
      if (!twin) continue;
      const expected = shape(field.schema);
      const bodies: Array<[string, Json | undefined]> = [['create', createProperties[twin.rest]], ['update', (update.properties as Record<string, Json>)[twin.rest]], ['record', record[twin.rest]]];
      for (const [where, property] of bodies) {
        // What the record shows of such a field is what the resource turned out to be: its own component.
        if (property === undefined || (where === 'record' && twin.recordShowsObserved)) continue;
        const value = resolve(((property.oneOf as Json[] | undefined) ?? [property])[0]!);
        if (twin.references) {
          // An id where the manifest has a name: a UUID (or a list of them) with the list's bounds.
          const scalar = field.schema.type === 'array' ? resolve(value.items as Json) : value;
          expect(scalar, `${kind} ${twin.rest} (${where})`).toMatchObject({ type: 'string', format: 'uuid' });
          if (field.schema.type === 'array') expect(shape({ ...value, items: undefined }), `${kind} ${twin.rest} (${where})`).toEqual(shape({ ...field.schema, items: undefined }));
        } else {
          expect(shape(value), `${kind} ${twin.rest} (${where}) against spec.${field.path}`).toEqual(expected);
        }
      }
      expect(createProperties[twin.rest], `${kind} create takes ${twin.rest}`).toBeDefined();
      if (twin.writeOnly) expect(record[twin.rest], `${kind} record never shows ${twin.rest}, which may hold secrets`).toBeUndefined();
      else expect(record[twin.rest], `${kind} record shows ${twin.rest}`).toBeDefined();
    }
  });

  it('is required in the create body exactly when the manifest requires it', () => {
    for (const field of specFields(specOf(kind))) {
      const twin = fields.find((f) => f.spec === field.path);
      if (twin) expect(createRequired.has(twin.rest), `${kind} ${twin.rest}`).toBe(field.required);
    }
  });

  it('is never null in a record when the manifest requires it or gives it a default', () => {
    // The record shows what the resource turned out to be, under the same name, in its own (nullable) schema.
    for (const twin of fields.filter((f) => f.recordShowsObserved)) expect(record[twin.rest], `${kind} record shows the observed ${twin.rest}`).toBeDefined();
    for (const twin of fields.filter((f) => !f.writeOnly && !f.recordShowsObserved)) {
      const nullable = (record[twin.rest]!.oneOf as Json[] | undefined)?.some((s) => s.type === 'null') === true;
      const alwaysThere = (twin.requiredAllTheWay && !twin.references) || (twin.whenAbsent !== undefined && twin.parentsRequired);
      expect(nullable, `${kind} record ${twin.rest}`).toBe(!alwaysThere);
    }
  });
});

describe('a field added to a schema', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-schemas-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('reaches the REST components with no hand edit (an optional deletionPolicy on Server)', () => {
    cpSync(schemaDir, scratch, { recursive: true });
    const file = join(scratch, KIND_SCHEMA_FILES.Server);
    const server = JSON.parse(readFileSync(file, 'utf8')) as { properties: { spec: { properties: Json } } };
    const policy = { description: 'What deleting the server does at the vendor.', enum: ['Delete', 'Orphan'], default: 'Delete' };
    server.properties.spec.properties.deletionPolicy = policy;
    writeFileSync(file, JSON.stringify(server));

    const derived = deriveKindFields(scratch, 'Server');
    expect(derived.fields.find((f) => f.rest === 'deletion_policy')).toMatchObject({ spec: 'deletionPolicy', component: 'ServerDeletionPolicy', create: true, update: 'set', whenAbsent: 'Delete' });
    const components = kindComponents(derived);
    expect(components.ServerDeletionPolicy).toEqual(policy);
    const ref = { $ref: '#/components/schemas/ServerDeletionPolicy' };
    expect((components.ServerCreate as { properties: Json }).properties.deletion_policy).toEqual(ref);
    expect((components.ServerUpdate as { properties: Json }).properties.deletion_policy).toEqual(ref);
    expect((components.ServerSpecFields as { properties: Json; required: string[] }).properties.deletion_policy).toEqual(ref);
    expect((components.ServerSpecFields as { required: string[] }).required).toContain('deletion_policy');
    expect(renderOpenApiDocument(documentText, scratch)).toContain('    ServerDeletionPolicy:\n');
    expect(restFieldTableSource(scratch)).toContain('"rest": "deletion_policy"');
  });

  it('is refused, by name, when the mapping names a spec field the schema does not have', () => {
    cpSync(schemaDir, scratch, { recursive: true });
    const file = join(scratch, KIND_SCHEMA_FILES.Database);
    const database = JSON.parse(readFileSync(file, 'utf8')) as { properties: { spec: { properties: Json } } };
    delete database.properties.spec.properties.backup;
    writeFileSync(file, JSON.stringify(database));
    expect(() => deriveKindFields(scratch, 'Database')).toThrow('Database: rest-field-mapping.ts maps spec.backup.schedule, which database.schema.json does not have');
  });
});
