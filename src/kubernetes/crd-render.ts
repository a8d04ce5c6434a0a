/**
 * @module The CustomResourceDefinitions (apiextensions.k8s.io/v1) of the kinds, built from
 * schemas/: the spec from the kind's JSON Schema, a status schema matching what the reconciler
 * writes, the status subresource, printer columns, short names and the `cairn` category.
 * `npm run gen:crds` writes them to crds/; a test fails when crds/ is stale.
 */
import { stringify } from 'yaml';
import { KINDS, type Kind } from '../model/kinds.js';
import { KIND_SCHEMA_FILES, readSchemaFile, schemaDirectory } from '../model/schema-files.js';
import { toCrdSchema, type CrdSchemaNode, type JsonSchemaNode } from './crd-schema.js';
import { CATEGORIES, GROUP, KIND_NAMES, VERSION } from './kind-names.js';

/** What the reconciler records (src/model/resource.ts ResourceStatus), as a structural schema. */
export const STATUS_SCHEMA: CrdSchemaNode = {
  type: 'object',
  description: 'Recorded state, written only by cairn.',
  properties: {
    phase: { type: 'string', description: 'What the resource is doing (API.md status values).' },
    observedGeneration: { type: 'integer', format: 'int64', description: 'The generation the status describes.' },
    externalId: { type: 'string', nullable: true, description: 'The vendor\'s id.' },
    endpoints: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'Addresses: ipv4/ipv6, host/port or url.' },
    details: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'Kind-specific facts (power, engine version, release).' },
    conditions: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['type', 'status'],
        properties: {
          type: { type: 'string', description: 'Ready or Synced.' },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          reason: { type: 'string' },
          message: { type: 'string' },
          lastTransitionTime: { type: 'string', format: 'date-time' },
          observedGeneration: { type: 'integer', format: 'int64' },
        },
      },
    },
  },
};

/** The openAPIV3Schema of one kind: its JSON Schema with metadata left to Kubernetes. */
export function kindCrdSchema(kind: Kind, dir: string = schemaDirectory()): CrdSchemaNode {
  const schema = readSchemaFile(KIND_SCHEMA_FILES[kind], dir) as JsonSchemaNode;
  const resolveRef = (ref: string, path: string): CrdSchemaNode => {
    // A CRD may not constrain metadata beyond name; cairn's own validator checks the rest.
    if (ref === 'metadata.schema.json') return { type: 'object' };
    throw new Error(`${path}: $ref ${ref} is not known to the CRD generator`);
  };
  const converted = toCrdSchema(schema, kind, resolveRef);
  const given = converted.properties as Record<string, CrdSchemaNode>;
  const spec = { description: `The desired state of the ${kind}.`, ...given.spec };
  const properties = { ...given, spec, status: STATUS_SCHEMA };
  const { required: _required, ...rest } = converted;
  // apiVersion, kind and metadata are the API server's; only spec is required of users.
  return { ...rest, required: ['spec'], properties };
}

/** The CRD of one kind, as an object ready for YAML. */
export function renderCrd(kind: Kind, dir?: string): Record<string, unknown> {
  const names = KIND_NAMES[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}`, labels: { 'app.kubernetes.io/part-of': 'cairn' } },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind, listKind: names.listKind, plural: names.plural, singular: names.singular, shortNames: [...names.shortNames], categories: [...CATEGORIES] },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: names.columns.map((c) => ({ ...c })),
          schema: { openAPIV3Schema: kindCrdSchema(kind, dir) },
        },
      ],
    },
  };
}

export const CRD_HEADER = '# GENERATED from schemas/ by `npm run gen:crds`; do not edit by hand.\n';

/** Every CRD file: name under crds/ → YAML text. */
export function renderCrdFiles(dir?: string): Map<string, string> {
  return new Map(KINDS.map((kind) => [`${KIND_NAMES[kind].plural}.${GROUP}.yaml`, CRD_HEADER + stringify(renderCrd(kind, dir), { lineWidth: 0 })]));
}
