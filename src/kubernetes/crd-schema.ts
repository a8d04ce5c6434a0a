/**
 * @module Turns a kind's JSON Schema (2020-12, from schemas/) into the structural OpenAPI v3
 * schema a CustomResourceDefinition carries: every node typed, `const` as a one-value enum,
 * `uniqueItems` as a set list, the conditionals (mongodb has no storage; a managed database names
 * provider, region and size, any other its server) as CEL validations. A keyword it
 * cannot carry over is an error naming the schema path, never silently dropped.
 */

/** A JSON Schema node as read from schemas/ (only objects; booleans are not used there). */
export type JsonSchemaNode = Record<string, unknown>;

/** An OpenAPI v3 schema node in apiextensions.k8s.io/v1's JSONSchemaProps shape. */
export type CrdSchemaNode = Record<string, unknown>;

/** Keywords that mean the same in both dialects and carry over unchanged. */
const SAME = ['description', 'title', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'default', 'format'] as const;

/** Keywords that only document or identify the JSON Schema file and have no CRD meaning. */
const IDENTITY_ONLY = new Set(['$schema', '$id', 'examples']);

/** The JSON type of an enum's values, which a structural schema must state. */
function typeOfValues(values: readonly unknown[], path: string): string {
  const types = new Set(values.map((v) => (Number.isInteger(v) ? 'integer' : typeof v)));
  if (types.size !== 1) throw new Error(`${path}: an enum mixing ${[...types].join(' and ')} cannot be a structural schema`);
  const [only] = [...types];
  if (only !== 'string' && only !== 'integer' && only !== 'boolean') throw new Error(`${path}: enum of ${only} is not supported`);
  return only;
}

/** `F is V` of a conditional's `if: {properties: {F: {const: V}}, required: [F]}`, in CEL and in words. */
function conditionAsCel(condition: JsonSchemaNode | undefined, path: string): { cel: string; words: string } {
  const onlyRequired = condition?.required as string[] | undefined;
  if (condition && Object.keys(condition).length === 1 && onlyRequired?.length === 1) {
    // `if: {required: [F]}`: F is set.
    return { cel: `has(self.${onlyRequired[0]})`, words: `${onlyRequired[0]} is set` };
  }
  const props = condition?.properties as Record<string, JsonSchemaNode> | undefined;
  const [field, test] = Object.entries(props ?? {})[0] ?? [];
  if (!field || !test || !('const' in test) || Object.keys(props ?? {}).length !== 1) {
    throw new Error(`${path}: only "if F is V" conditions can become CEL rules`);
  }
  const value = JSON.stringify(test.const).replaceAll('"', "'");
  return { cel: `has(self.${field}) && self.${field} == ${value}`, words: `${field} is ${String(test.const)}` };
}

/**
 * What a `then`/`else` demands — `required: [A]`, `not: {required: [G]}`, `properties: {G: false}`
 * (the only forms the schemas use) — in CEL and in words.
 */
function demandAsCel(demand: JsonSchemaNode, path: string): { cel: string; words: string } {
  const present = (demand.required as string[] | undefined) ?? [];
  const absent = [
    ...(((demand.not as JsonSchemaNode | undefined)?.required as string[] | undefined) ?? []),
    ...Object.entries((demand.properties as Record<string, unknown> | undefined) ?? {}).map(([name, schema]) => {
      if (schema !== false) throw new Error(`${path}: only "G is absent" (false) property rules can become CEL rules`);
      return name;
    }),
  ];
  const unknown = Object.keys(demand).filter((k) => !['required', 'not', 'properties'].includes(k));
  if (unknown.length > 0 || present.length + absent.length === 0) throw new Error(`${path}: only required/absent rules can become CEL rules`);
  const cel = [...present.map((f) => `has(self.${f})`), ...absent.map((f) => `!has(self.${f})`)].join(' && ');
  const words = [present.length > 0 ? `${present.join(', ')} must be set` : '', absent.length > 0 ? `${absent.join(', ')} may not be set` : ''].filter((w) => w !== '').join(' and ');
  return { cel, words };
}

/**
 * The schemas' conditionals — `if F is V then <demand> [else <demand>]`, alone or in `allOf` —
 * as the CEL rules apiextensions evaluates, one per branch.
 */
function conditionalsAsCel(node: JsonSchemaNode, path: string): Array<{ rule: string; message: string }> {
  if ('if' in node) {
    const condition = conditionAsCel(node.if as JsonSchemaNode | undefined, path);
    const rules: Array<{ rule: string; message: string }> = [];
    if (node.then !== undefined) {
      const then = demandAsCel(node.then as JsonSchemaNode, path);
      rules.push({ rule: `!(${condition.cel}) || (${then.cel})`, message: `when ${condition.words}, ${then.words}` });
    }
    if (node.else !== undefined) {
      const otherwise = demandAsCel(node.else as JsonSchemaNode, path);
      rules.push({ rule: `(${condition.cel}) || (${otherwise.cel})`, message: `unless ${condition.words}, ${otherwise.words}` });
    }
    return rules;
  }
  if (Array.isArray(node.allOf)) return (node.allOf as JsonSchemaNode[]).flatMap((part, i) => conditionalsAsCel(part, `${path}.allOf[${i}]`));
  throw new Error(`${path}: only conditionals can become CEL rules`);
}

/** A string's `not: {pattern: P}` (an SSHKey's publicKey is never a private key) as a CEL rule. */
function notPatternAsCel(not: JsonSchemaNode, path: string): { rule: string; message: string } {
  if (Object.keys(not).length !== 1 || typeof not.pattern !== 'string' || not.pattern.includes("'") || not.pattern.includes('\\')) {
    throw new Error(`${path}: only "not: {pattern}" (without quotes or backslashes) can become a CEL rule`);
  }
  return { rule: `!self.matches('${not.pattern}')`, message: `must not match /${not.pattern}/` };
}

/**
 * The structural counterpart of one JSON Schema node. `resolveRef` supplies what a `$ref`
 * stands for (the CRD form of the referenced schema).
 */
export function toCrdSchema(node: JsonSchemaNode, path: string, resolveRef: (ref: string, path: string) => CrdSchemaNode): CrdSchemaNode {
  if (typeof node.$ref === 'string') return resolveRef(node.$ref, path);
  const out: CrdSchemaNode = {};
  for (const key of SAME) if (key in node) out[key] = node[key];
  if ('const' in node) {
    out.type = typeOfValues([node.const], path);
    out.enum = [node.const];
  }
  if (Array.isArray(node.enum)) {
    out.type = typeOfValues(node.enum, path);
    out.enum = node.enum;
  }
  if (typeof node.type === 'string') out.type = node.type;
  if (node.properties && typeof node.properties === 'object') {
    out.type ??= 'object';
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, JsonSchemaNode>).map(([name, child]) => [name, toCrdSchema(child, `${path}.${name}`, resolveRef)]),
    );
  }
  if (Array.isArray(node.required)) out.required = node.required;
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    out.additionalProperties = toCrdSchema(node.additionalProperties as JsonSchemaNode, `${path}[*]`, resolveRef);
  }
  if (node.items && typeof node.items === 'object') out.items = toCrdSchema(node.items as JsonSchemaNode, `${path}[]`, resolveRef);
  if (node.uniqueItems === true) out['x-kubernetes-list-type'] = 'set';
  if ('if' in node || 'allOf' in node) out['x-kubernetes-validations'] = conditionalsAsCel(node, path);
  if ('not' in node) out['x-kubernetes-validations'] = [...((out['x-kubernetes-validations'] as unknown[] | undefined) ?? []), notPatternAsCel(node.not as JsonSchemaNode, path)];
  for (const key of Object.keys(node)) {
    const handled = (SAME as readonly string[]).includes(key) || IDENTITY_ONLY.has(key) ||
      ['const', 'enum', 'type', 'properties', 'required', 'additionalProperties', 'items', 'uniqueItems', 'if', 'then', 'else', 'allOf', '$ref', 'not'].includes(key);
    // propertyNames has no structural counterpart; the cairn validator still enforces it on every write.
    if (!handled && key !== 'propertyNames') throw new Error(`${path}: the JSON Schema keyword "${key}" has no CRD counterpart; teach crd-schema.ts about it`);
  }
  if (out.type === undefined) throw new Error(`${path}: a structural schema needs a type here`);
  return out;
}
