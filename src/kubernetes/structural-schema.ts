/**
 * @module The rules apiextensions.k8s.io/v1 holds a CRD's schema to (a "structural schema",
 * KEP-1002, plus the v1 restrictions), checked without a cluster: every node has a type unless
 * it preserves unknown fields, properties and additionalProperties are exclusive, no `$ref`,
 * `uniqueItems: true` or JSON-Schema-only keywords, metadata restricted to name, the
 * x-kubernetes extensions used as the API server allows. Returns every violation with its path.
 */

/** JSONSchemaProps fields the API server accepts (apiextensions/v1 types.go). */
const ALLOWED_KEYWORDS = new Set([
  'id', '$schema', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties',
  'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'externalDocs',
  'example', 'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Allowed by the Go type but forbidden in v1 CRDs (apiextensions validation). */
const FORBIDDEN_IN_V1 = ['$ref', 'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'id'];
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkNode(node: Node, path: string, root: boolean, problems: string[], insideLogic: boolean): void {
  for (const key of Object.keys(node)) {
    if (!ALLOWED_KEYWORDS.has(key) && key !== '$ref') problems.push(`${path}: unknown field "${key}"`);
  }
  for (const key of FORBIDDEN_IN_V1) if (key in node) problems.push(`${path}: ${key} is forbidden in apiextensions.k8s.io/v1`);
  if (node.uniqueItems === true) problems.push(`${path}: uniqueItems cannot be set to true (use x-kubernetes-list-type: set)`);
  const preserves = node['x-kubernetes-preserve-unknown-fields'] === true || node['x-kubernetes-int-or-string'] === true;
  if (!insideLogic) {
    if (typeof node.type !== 'string' || node.type === '') {
      if (!preserves) problems.push(`${path}: type must not be empty (structural schemas type every node)`);
    } else if (!TYPES.has(node.type)) {
      problems.push(`${path}: type "${node.type}" is not one of ${[...TYPES].join(', ')}`);
    }
  } else {
    // Inside allOf/anyOf/oneOf/not: no types, no defaults, no descriptions of new fields.
    for (const key of ['type', 'default', 'description', 'nullable', 'x-kubernetes-preserve-unknown-fields']) {
      if (key in node) problems.push(`${path}: ${key} may not appear inside allOf/anyOf/oneOf/not`);
    }
  }
  if (node.properties !== undefined && node.additionalProperties !== undefined && node.additionalProperties !== false) {
    problems.push(`${path}: properties and additionalProperties are mutually exclusive`);
  }
  if (node.type === 'array' && !insideLogic && !isNode(node.items)) problems.push(`${path}: an array must say what its items are`);
  if (node.type !== undefined && node.type !== 'object' && (node.properties !== undefined || node.additionalProperties !== undefined)) {
    problems.push(`${path}: properties on a node of type ${JSON.stringify(node.type)}`);
  }
  if (node.enum !== undefined && !Array.isArray(node.enum)) problems.push(`${path}: enum must be a list`);
  const listType = node['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (node.type !== 'array') problems.push(`${path}: x-kubernetes-list-type only applies to arrays`);
    if (typeof listType !== 'string' || !['atomic', 'set', 'map'].includes(listType)) problems.push(`${path}: x-kubernetes-list-type must be atomic, set or map`);
    const keys = node['x-kubernetes-list-map-keys'];
    if (listType === 'map') {
      const items = isNode(node.items) ? node.items : {};
      const itemProps = isNode(items.properties) ? items.properties : {};
      const required = Array.isArray(items.required) ? items.required : [];
      if (!Array.isArray(keys) || keys.length === 0) problems.push(`${path}: a map list needs x-kubernetes-list-map-keys`);
      else for (const k of keys) {
        if (typeof k !== 'string' || !(k in itemProps)) problems.push(`${path}: list map key ${String(k)} is not a property of the items`);
        else if (!required.includes(k) && !('default' in (itemProps[k] as Node))) problems.push(`${path}: list map key ${k} must be required or defaulted`);
      }
    }
    if (listType === 'set' && isNode(node.items) && node.items.type === 'object') problems.push(`${path}: a set list must hold scalars`);
  }
  if (Array.isArray(node['x-kubernetes-validations'])) {
    for (const [i, rule] of (node['x-kubernetes-validations'] as unknown[]).entries()) {
      if (!isNode(rule) || typeof rule.rule !== 'string' || rule.rule.trim() === '') problems.push(`${path}: x-kubernetes-validations[${i}] needs a rule`);
    }
  }
  if (isNode(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (!isNode(child)) {
        problems.push(`${path}.${name}: must be a schema`);
        continue;
      }
      if (root && name === 'metadata') checkRootMetadata(child, `${path}.metadata`, problems);
      checkNode(child, `${path}.${name}`, false, problems, insideLogic);
    }
  }
  if (isNode(node.additionalProperties)) checkNode(node.additionalProperties, `${path}[*]`, false, problems, insideLogic);
  if (isNode(node.items)) checkNode(node.items, `${path}[]`, false, problems, insideLogic);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((c, i) => isNode(c) && checkNode(c, `${path}.${key}[${i}]`, false, problems, true));
  }
  if (isNode(node.not)) checkNode(node.not, `${path}.not`, false, problems, true);
}

/** At the root, metadata may only restrict name and generateName (and only with type string). */
function checkRootMetadata(node: Node, path: string, problems: string[]): void {
  const props = isNode(node.properties) ? Object.keys(node.properties) : [];
  for (const p of props) if (p !== 'name' && p !== 'generateName') problems.push(`${path}: only name and generateName may be specified under metadata`);
  for (const key of Object.keys(node)) if (!['type', 'properties', 'description'].includes(key)) problems.push(`${path}: ${key} may not be set on metadata`);
}

/** Every way a CRD's openAPIV3Schema breaks apiextensions.k8s.io/v1's rules; empty when valid. */
export function structuralProblems(openAPIV3Schema: unknown): string[] {
  const problems: string[] = [];
  if (!isNode(openAPIV3Schema)) return ['openAPIV3Schema: must be an object'];
  if (openAPIV3Schema.type !== 'object') problems.push('openAPIV3Schema: the root must be of type object');
  checkNode(openAPIV3Schema, 'openAPIV3Schema', true, problems, false);
  return problems;
}
