/**
 * @module The js-yaml schema of the fast manifest path: plain scalars resolve exactly as in the
 * `yaml` package's core schema (same patterns, same order, same number parsing), and mappings
 * become plain objects keyed the way `yaml` keys them, refusing the keys where the two differ.
 */
import { NOT_RESOLVED, Schema, defineMappingTag, defineScalarTag, seqTag, strTag, type MappingTagDefinition, type ScalarTagDefinition } from 'js-yaml';

/** A scalar form of the `yaml` package's core schema: the pattern it is recognised by, and its value. */
interface ScalarForm<T> {
  test: RegExp;
  resolve: (source: string) => T;
}

/**
 * One js-yaml tag for forms that `yaml` tries one after another. Only plain scalars are resolved:
 * explicit tags never reach the fast path, and a stray one is refused rather than guessed at.
 */
function scalarTag<T>(tagName: string, firstChars: readonly string[], forms: ReadonlyArray<ScalarForm<T>>): ScalarTagDefinition<T> {
  return defineScalarTag<T>(tagName, {
    implicit: true,
    implicitFirstChars: firstChars,
    resolve: (source, isExplicit) => {
      if (isExplicit) return NOT_RESOLVED;
      for (const form of forms) if (form.test.test(source)) return form.resolve(source);
      return NOT_RESOLVED;
    },
    identify: () => false,
  });
}

const DIGITS = [...'0123456789'];

// The forms below are copied from yaml/dist/schema/core (yaml 2.x): null, bool, int, float.
const nullTag = scalarTag('tag:yaml.org,2002:null', ['', '~', 'n', 'N'], [{ test: /^(?:~|[Nn]ull|NULL)?$/, resolve: () => null }]);

const boolTag = scalarTag('tag:yaml.org,2002:bool', ['t', 'T', 'f', 'F'], [
  { test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, resolve: (source) => source[0] === 't' || source[0] === 'T' },
]);

const intTag = scalarTag('tag:yaml.org,2002:int', ['-', '+', ...DIGITS], [
  { test: /^0o[0-7]+$/, resolve: (source) => parseInt(source.substring(2), 8) },
  { test: /^[-+]?[0-9]+$/, resolve: (source) => parseInt(source, 10) },
  { test: /^0x[0-9a-fA-F]+$/, resolve: (source) => parseInt(source.substring(2), 16) },
]);

const floatTag = scalarTag('tag:yaml.org,2002:float', ['-', '+', '.', ...DIGITS], [
  {
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (source) => (source.slice(-3).toLowerCase() === 'nan' ? NaN : source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY),
  },
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, resolve: (source) => parseFloat(source) },
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, resolve: (source) => parseFloat(source) },
]);

type PlainObject = Record<string, unknown>;

/**
 * `yaml` turns a key into a string with `String()`, except null (`""`) and lists or mappings
 * (YAML text); the slow path refuses the latter anyway. Only keys `String()` agrees on are
 * taken: strings, numbers and booleans.
 */
function keyOf(key: unknown): string | undefined {
  return typeof key === 'string' ? key : typeof key === 'number' || typeof key === 'boolean' ? String(key) : undefined;
}

const mapTag: MappingTagDefinition<PlainObject, PlainObject> = defineMappingTag<PlainObject>('tag:yaml.org,2002:map', {
  create: () => ({}),
  addPair: (map, key, value) => {
    const name = keyOf(key);
    if (name === undefined) return 'only string, number and boolean keys are read on the fast path';
    // Like yaml, a key that is also an inherited property (`__proto__`, `constructor`) becomes an own one.
    if (name in map) Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
    else map[name] = value;
    return '';
  },
  has: (map, key) => {
    const name = keyOf(key);
    return name !== undefined && Object.hasOwn(map, name);
  },
  keys: (map) => Object.keys(map),
  get: (map, key) => map[String(key)],
  identify: () => false,
});

/** YAML 1.2 core as the `yaml` package reads it, for js-yaml's `parseEvents`/`constructFromEvents`. */
export const FAST_CORE_SCHEMA: Schema = new Schema([strTag, seqTag, mapTag, nullTag, boolTag, intTag, floatTag]);
