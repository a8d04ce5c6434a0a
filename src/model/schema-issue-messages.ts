/**
 * @module Turns ajv's validation errors into messages a user can act on: one issue per problem,
 * pointing at the field (or, for unknown fields and invalid keys, at the key), worded in YAML's
 * terms ("a mapping", "a list") rather than JSON Schema's, with ajv's bookkeeping noise removed.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { closestWord } from './closest-word.js';
import { appendPointer, pointerToFieldPath } from './json-pointer.js';
import { API_VERSION } from './kinds.js';

/** One problem with the shape of a manifest. */
export interface ShapeIssue {
  /** JSON pointer of the field the issue is about, e.g. `/spec/storageGb`; `''` is the whole document. */
  pointer: string;
  message: string;
  /** `'key'` when the issue is about the key itself (an unknown field, an invalid key), not its value. */
  locateAt?: 'key';
}

export const DNS_LABEL_MESSAGE =
  "must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)";

/** schemas/sshkey.schema.json's pattern of spec.publicKey. */
const SSH_PUBLIC_KEY_PATTERN = '^[ \\t\\r\\n]*(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521)[ \\t]+[A-Za-z0-9+/]+={0,2}([ \\t][^\\r\\n]*)?[ \\t\\r\\n]*$';

/** What each pattern of the schemas means, in words. */
const PATTERN_MESSAGES: Record<string, string> = {
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$': DNS_LABEL_MESSAGE,
  '^[A-Za-z_][A-Za-z0-9_]*$': "must be an environment variable name (letters, digits and '_', not starting with a digit)",
  '^([a-z0-9.-]+/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$':
    "must be a label key (an optional DNS prefix and '/', then letters, digits, '-', '_' and '.', starting and ending with a letter or digit)",
  '^/': 'must start with "/"',
  '^https?://': 'must be an http:// or https:// URL',
  '^[0-9]+(\\.[0-9]+)?$': 'must be a version number such as "16" or "4.4"',
  '^https?://[^/?#@]+([/?#].*)?$': 'must be an http:// or https:// URL without credentials (no user:password@) in it',
  '^[^@\\s<>,;]+@[^@\\s<>,;]+\\.[^@\\s<>,;]+$': 'must be one e-mail address, such as ops@example.com',
  [SSH_PUBLIC_KEY_PATTERN]:
    'must be one public key line as in a .pub file or authorized_keys: ssh-ed25519, ssh-rsa or ecdsa-sha2-nistp256/384/521, its base64, an optional comment (no options before it, no DSA, one key only)',
};

/** Conditional rules (`if`/`then`/`not`) of a kind's schema, worded for users. */
const RULE_MESSAGES: Record<string, string> = {
  ...Object.fromEntries(['url', 'format'].map((field) => [
    `AlertRule#/properties/spec/properties/channels/items/allOf/0/then/properties/${field}/false schema`,
    `${field} is for webhook channels; an email channel takes only to`,
  ])),
  'AlertRule#/properties/spec/properties/channels/items/allOf/1/then/properties/to/false schema': 'to is for email channels; a webhook channel takes url and format',
  'Database#/properties/spec/allOf/0/then/not': 'storageGb is only for postgresql',
  'Database#/properties/spec/allOf/1/then/properties/server/false schema':
    'a managed database (managed: true) runs at its provider, not on a server: remove server',
  ...Object.fromEntries(['provider', 'region', 'size'].map((field) => [
    `Database#/properties/spec/allOf/1/else/properties/${field}/false schema`,
    `${field} is for managed databases only: add managed: true, or remove ${field} and name the server it runs on`,
  ])),
  'SSHKey#/properties/spec/properties/publicKey/not':
    'this is a private key, not a public one: give the public key (the one line of the .pub file, e.g. ~/.ssh/id_ed25519.pub) and consider this private key exposed',
  ...Object.fromEntries(['algorithm', 'bits'].map((field) => [
    `SSHKey#/properties/spec/allOf/0/then/properties/${field}/false schema`,
    `${field} is for keys cairn generates; an imported key (publicKey) is what it is: remove ${field}, or remove publicKey to have cairn generate the pair`,
  ])),
  'SSHKey#/properties/spec/allOf/1/else/properties/bits/false schema': 'bits is for RSA keys only (algorithm: rsa); ed25519 keys are always 256 bits',
  'App#/properties/metadata/properties/annotations/properties/cairn.dev~1external-id/false schema':
    'apps cannot be imported: cairn builds and deploys an app itself; remove the annotation and cairn deploys it',
};

/** Keywords whose errors only repeat what the errors beneath them say. */
// `discriminator` only repeats what the `type`/`required`/`enum` rules beside it say in words.
const NOISE_KEYWORDS = new Set(['if', 'anyOf', 'oneOf', 'allOf', 'propertyNames', 'then', 'else', 'discriminator']);

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

/** How a YAML value reads to its author: `a string`, `a list`, `2.5`. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : `the number ${String(value)}`;
  if (typeof value === 'boolean') return `${String(value)} (a boolean)`;
  if (typeof value === 'object') return 'a mapping';
  return 'a string';
}

function typeMessage(expected: unknown, value: unknown): string {
  const types = (Array.isArray(expected) ? expected : [expected]).map((t) => TYPE_NAMES[String(t)] ?? String(t));
  const message = `must be ${types.join(' or ')}, not ${describeValue(value)}`;
  const quotable = (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
  return quotable && types.includes('a string') ? `${message} (put it in quotes: "${String(value)}")` : message;
}

function propertyNamesOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

function numberParam(error: ErrorObject, name: string): number {
  const value = (error.params as Record<string, unknown>)[name];
  return typeof value === 'number' ? value : 0;
}

function stringParam(error: ErrorObject, name: string): string {
  const value = (error.params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** "exactly one of git, image, path" when a mapping must hold one of its fields, else undefined. */
function exactlyOneMessage(error: ErrorObject): string | undefined {
  const schema = error.parentSchema as { minProperties?: unknown; maxProperties?: unknown } | undefined;
  if (schema?.minProperties !== 1 || schema.maxProperties !== 1) return undefined;
  return `exactly one of ${propertyNamesOf(schema).join(', ')}`;
}

function lengthMessage(error: ErrorObject): string {
  const limit = numberParam(error, 'limit');
  if (error.keyword === 'maxLength') return `must be at most ${limit} characters`;
  return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
}

function describeError(error: ErrorObject, ruleScope: string): ShapeIssue {
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required': {
      const field = stringParam(error, 'missingProperty');
      const message = at === '' && field === 'apiVersion' ? `is required (the supported apiVersion is ${API_VERSION})` : 'is required';
      return { pointer: appendPointer(at, field), message };
    }
    case 'additionalProperties': {
      const field = stringParam(error, 'additionalProperty');
      const suggestion = closestWord(field, propertyNamesOf(error.parentSchema));
      const message = `unknown field ${JSON.stringify(field)}${suggestion ? `; did you mean ${suggestion}?` : ''}`;
      return { pointer: appendPointer(at, field), message, locateAt: 'key' };
    }
    case 'type':
      return { pointer: at, message: typeMessage((error.params as { type?: unknown }).type, error.data) };
    case 'enum': {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      return { pointer: at, message: `must be one of: ${allowed.map(String).join(', ')}` };
    }
    case 'const': {
      const allowed = (error.params as { allowedValue?: unknown }).allowedValue;
      if (at === '/apiVersion') {
        return { pointer: at, message: `unsupported apiVersion ${JSON.stringify(error.data)}; the supported apiVersion is ${API_VERSION}` };
      }
      return { pointer: at, message: `must be ${JSON.stringify(allowed)}` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: at, message: `must be ${stringParam(error, 'comparison')} ${numberParam(error, 'limit')}` };
    case 'pattern': {
      const pattern = stringParam(error, 'pattern');
      return { pointer: at, message: PATTERN_MESSAGES[pattern] ?? `must match the pattern ${pattern}` };
    }
    case 'minLength':
    case 'maxLength':
      return { pointer: at, message: lengthMessage(error) };
    case 'minProperties':
    case 'maxProperties': {
      const limit = numberParam(error, 'limit');
      const bound = error.keyword === 'minProperties' ? 'at least' : 'at most';
      return { pointer: at, message: exactlyOneMessage(error) ?? `must have ${bound} ${limit} entries` };
    }
    case 'minItems':
    case 'maxItems': {
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      return { pointer: at, message: `must have ${bound} ${numberParam(error, 'limit')} items` };
    }
    case 'uniqueItems': {
      const [first, second] = [numberParam(error, 'j'), numberParam(error, 'i')].sort((a, b) => a - b);
      const firstPath = pointerToFieldPath(appendPointer(at, first ?? 0));
      return { pointer: appendPointer(at, second ?? 0), message: `is already listed at ${firstPath}` };
    }
    case 'not': {
      const forbidden = (error.schema as { required?: unknown[] } | undefined)?.required?.[0];
      const pointer = typeof forbidden === 'string' ? appendPointer(at, forbidden) : at;
      const rule = RULE_MESSAGES[`${ruleScope}${error.schemaPath}`];
      return { pointer, message: rule ?? (typeof forbidden === 'string' ? `${forbidden} is not allowed here` : 'is not allowed here') };
    }
    case 'false schema':
      return { pointer: at, message: RULE_MESSAGES[`${ruleScope}${error.schemaPath}`] ?? 'is not allowed here' };
    case 'dependentRequired': {
      const property = stringParam(error, 'property');
      return { pointer: appendPointer(at, stringParam(error, 'missingProperty')), message: `is required with ${property}` };
    }
    default:
      return { pointer: at, message: error.message ?? `fails the schema's ${error.keyword} rule` };
  }
}

/** Issues for an invalid key of a mapping (ajv reports these with `propertyName` set). */
function describeKeyError(error: ErrorObject, key: string, ruleScope: string): ShapeIssue {
  const issue = describeError(error, ruleScope);
  return { pointer: appendPointer(error.instancePath, key), message: `invalid key: ${issue.message}`, locateAt: 'key' };
}

/**
 * The issues behind ajv's errors for a manifest of `kind` (compiled with `allErrors` and
 * `verbose`), without duplicates and without the wrapper errors of `if`, `anyOf` and the like.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], ruleScope: string): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (NOISE_KEYWORDS.has(error.keyword)) continue;
    const issue = error.propertyName !== undefined ? describeKeyError(error, error.propertyName, ruleScope) : describeError(error, ruleScope);
    const identity = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    issues.push(issue);
  }
  return issues;
}
