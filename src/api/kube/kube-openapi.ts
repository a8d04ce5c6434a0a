/**
 * @module OpenAPI v3 for cairn's Kubernetes endpoint, as kube-apiserver publishes it: an index
 * at `/openapi/v3` and one document for cairn.dev/v1 whose schemas (the CRDs' structural
 * schemas, tagged with x-kubernetes-group-version-kind) let `kubectl explain` describe every
 * field, and whose operations declare `fieldValidation` and `dryRun`, so kubectl validates on
 * the server.
 */
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { KINDS, type Kind } from '../../model/kinds.js';
import { kindCrdSchema } from '../../kubernetes/crd-render.js';
import { GROUP, GROUP_VERSION, KIND_NAMES, VERSION } from '../../kubernetes/kind-names.js';

const PATH_KEY = `apis/${GROUP}/${VERSION}`;

/** `dev.cairn.v1.Server`: the reverse-DNS schema name Kubernetes gives a group's kinds. */
export function schemaName(kind: string): string {
  return `${GROUP.split('.').reverse().join('.')}.${VERSION}.${kind}`;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

function kindSchema(kind: Kind): Record<string, unknown> {
  const schema = kindCrdSchema(kind);
  const properties = { ...(schema.properties as Record<string, unknown>), metadata: { description: 'Standard object metadata; name is a DNS-1123 label, unique per namespace and kind.', allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }] } };
  return { ...schema, properties, 'x-kubernetes-group-version-kind': [{ group: GROUP, kind, version: VERSION }] };
}

function listSchema(kind: Kind): Record<string, unknown> {
  return {
    description: `A list of ${KIND_NAMES[kind].plural}.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: `#/components/schemas/${LIST_META}` }] },
      items: { type: 'array', items: { $ref: `#/components/schemas/${schemaName(kind)}` } },
    },
    'x-kubernetes-group-version-kind': [{ group: GROUP, kind: `${kind}List`, version: VERSION }],
  };
}

const QUERY = (name: string, description: string): Record<string, unknown> => ({ name, in: 'query', description, schema: { type: 'string' }, uniqueItems: true });
const WRITE_PARAMS = [
  QUERY('dryRun', 'All: validate and answer as if written, without writing.'),
  QUERY('fieldManager', 'Who makes the change (server-side apply).'),
  QUERY('fieldValidation', 'Ignore, Warn or Strict: what unknown or duplicate fields do.'),
];

function operations(kind: Kind): Record<string, unknown> {
  const ref = { $ref: `#/components/schemas/${schemaName(kind)}` };
  const json = (schema: unknown): Record<string, unknown> => ({ content: { 'application/json': { schema } } });
  const gvk = { group: GROUP, version: VERSION, kind };
  const plural = KIND_NAMES[kind].plural;
  return {
    [`/apis/${GROUP_VERSION}/namespaces/{namespace}/${plural}`]: {
      get: { operationId: `list${kind}`, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk, responses: { '200': json({ $ref: `#/components/schemas/${schemaName(`${kind}List`)}` }) } },
      post: { operationId: `create${kind}`, 'x-kubernetes-action': 'post', 'x-kubernetes-group-version-kind': gvk, parameters: WRITE_PARAMS, requestBody: json(ref), responses: { '201': json(ref) } },
      parameters: [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }],
    },
    [`/apis/${GROUP_VERSION}/namespaces/{namespace}/${plural}/{name}`]: {
      get: { operationId: `read${kind}`, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk, responses: { '200': json(ref) } },
      put: { operationId: `replace${kind}`, 'x-kubernetes-action': 'put', 'x-kubernetes-group-version-kind': gvk, parameters: WRITE_PARAMS, requestBody: json(ref), responses: { '200': json(ref) } },
      patch: {
        operationId: `patch${kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
        parameters: [...WRITE_PARAMS, { name: 'force', in: 'query', schema: { type: 'boolean' } }],
        requestBody: { content: Object.fromEntries(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'].map((t) => [t, { schema: { type: 'object' } }])) },
        responses: { '200': json(ref) },
      },
      delete: { operationId: `delete${kind}`, 'x-kubernetes-action': 'delete', 'x-kubernetes-group-version-kind': gvk, parameters: [QUERY('dryRun', 'All: answer without deleting.')], responses: { '200': json(ref) } },
      parameters: [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }, { name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
    },
  };
}

/** The cairn.dev/v1 OpenAPI v3 document. */
function groupOpenApiDocument(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {
    [OBJECT_META]: {
      description: 'ObjectMeta is metadata that all persisted resources must have.',
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Name, unique per namespace and kind; a DNS-1123 label; immutable.' },
        namespace: { type: 'string', description: 'Namespace inside the tenant; defaults to "default".' },
        labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Labels for selecting and grouping.' },
        annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Free-form notes; keys under cairn.dev/ are cairn\'s.' },
        uid: { type: 'string', description: 'Set by cairn.' },
        resourceVersion: { type: 'string', description: 'The store revision of the last write; send it back to update without overwriting others.' },
        generation: { type: 'integer', format: 'int64', description: 'Bumped on each change of spec.' },
        creationTimestamp: { type: 'string', format: 'date-time' },
        deletionTimestamp: { type: 'string', format: 'date-time' },
        finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'cairn.dev/finalizer while the vendor\'s side exists.' },
      },
    },
    [LIST_META]: { type: 'object', properties: { resourceVersion: { type: 'string' }, continue: { type: 'string' } } },
  };
  for (const kind of KINDS) {
    schemas[schemaName(kind)] = kindSchema(kind);
    schemas[schemaName(`${kind}List`)] = listSchema(kind);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'cairn Kubernetes API', version: VERSION },
    paths: Object.assign({}, ...KINDS.map(operations)) as Record<string, unknown>,
    components: { schemas },
  };
}

let served: { document: string; hash: string } | undefined;

/** The document as served and its hash: built on the first request for it (only `kubectl explain` and validation ask), then kept. */
function servedDocument(): { document: string; hash: string } {
  if (!served) {
    const document = JSON.stringify(groupOpenApiDocument());
    served = { document, hash: createHash('sha256').update(document).digest('hex').slice(0, 32).toUpperCase() };
  }
  return served;
}

export function kubeOpenApiRoutes(): Router {
  const router = Router();
  router.get('/openapi/v3', (_req, res) => {
    res.json({ paths: { [PATH_KEY]: { serverRelativeURL: `/openapi/v3/${PATH_KEY}?hash=${servedDocument().hash}` } } });
  });
  router.get(`/openapi/v3/${PATH_KEY}`, (_req, res) => {
    const { document, hash } = servedDocument();
    res.setHeader('Cache-Control', 'public, immutable');
    res.setHeader('Etag', `"${hash}"`);
    res.type('application/json').send(document);
  });
  return router;
}
