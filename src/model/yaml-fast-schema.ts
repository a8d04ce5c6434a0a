/**
 * @module The js-yaml schema of the fast manifest path: plain scalars resolve exactly as in the
 * `yaml` package's core schema — same patterns, same order, same number parsing — where js-yaml's
 * own core schema differs (`1_000`, `0b1`, `-0x1`, `-.5`, numbers too large for a double).
 */
import { FAILSAFE_SCHEMA, Type, type Schema } from 'js-yaml';

/** A scalar form of the `yaml` package's core schema: the pattern it is recognised by, and its value. */
interface ScalarForm {
  test: RegExp;
  resolve: (source: string) => unknown;
}

/** The first form of `forms` that matches `source`, if its first character can start one at all. */
function formOf(source: unknown, firstChars: string, forms: readonly ScalarForm[]): ScalarForm | undefined {
  if (typeof source !== 'string') return undefined;
  if (!firstChars.includes(source.charAt(0))) return undefined;
  return forms.find((form) => form.test.test(source));
}

/** One js-yaml implicit type for the forms `yaml` tries one after another under one tag. */
function scalarType(tag: string, firstChars: string, forms: readonly ScalarForm[]): Type {
  return new Type(tag, {
    kind: 'scalar',
    resolve: (source: unknown) => formOf(source, firstChars, forms) !== undefined,
    construct: (source: string) => formOf(source, firstChars, forms)?.resolve(source),
  });
}

const DIGITS = '0123456789';

// The patterns and values of yaml/dist/schema/core (yaml 2.x), in its order; `firstChars` only skips
// patterns that cannot match.
const nullType = scalarType('tag:yaml.org,2002:null', '~nN', [{ test: /^(?:~|[Nn]ull|NULL)?$/, resolve: () => null }]);

const boolType = scalarType('tag:yaml.org,2002:bool', 'tTfF', [
  { test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, resolve: (source) => source[0] === 't' || source[0] === 'T' },
]);

const intType = scalarType('tag:yaml.org,2002:int', `-+${DIGITS}`, [
  { test: /^0o[0-7]+$/, resolve: (source) => parseInt(source.substring(2), 8) },
  { test: /^[-+]?[0-9]+$/, resolve: (source) => parseInt(source, 10) },
  { test: /^0x[0-9a-fA-F]+$/, resolve: (source) => parseInt(source.substring(2), 16) },
]);

const floatType = scalarType('tag:yaml.org,2002:float', `-+.${DIGITS}`, [
  {
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (source) => (source.slice(-3).toLowerCase() === 'nan' ? NaN : source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY),
  },
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, resolve: (source) => parseFloat(source) },
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, resolve: (source) => parseFloat(source) },
]);

/** YAML 1.2 core as the `yaml` package reads it: strings, lists, mappings, null, booleans, integers, floats. No merge keys. */
export const FAST_CORE_SCHEMA: Schema = FAILSAFE_SCHEMA.extend({ implicit: [nullType, boolType, intType, floatType] });
