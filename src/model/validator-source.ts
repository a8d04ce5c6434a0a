/**
 * @module Renders src/model/generated/validators.ts: ajv's standalone validation code for the
 * kinds' JSON Schemas, so that no schema is compiled at run time. Shared by the generator script
 * (`npm run gen:types`) and the staleness test. The ajv options here are the validator's options.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { KINDS } from './kinds.js';
import { KIND_SCHEMA_FILES, METADATA_SCHEMA_FILE, readSchemaFile } from './schema-files.js';

/** The options the kinds are validated with: every error, verbose, and schema defaults never applied. */
export const VALIDATOR_OPTIONS: Options = { allErrors: true, strict: true, strictRequired: false, useDefaults: false, verbose: true };

const BANNER = `/* eslint-disable */
// @ts-nocheck
/**
 * @module The kinds' validators, GENERATED from schemas/*.schema.json as ajv standalone code by
 * \`npm run gen:types\`. Do not edit by hand: change the schema and regenerate.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { AnyManifest } from '../resource.js';
import { createRequire } from 'node:module';

// The standalone code \`require\`s ajv's runtime helpers (e.g. ajv/dist/runtime/ucs2length).
const require = createRequire(import.meta.url);`;

export function renderKindValidators(schemaDir: string): string {
  const ajv = new Ajv2020({ ...VALIDATOR_OPTIONS, code: { source: true, esm: true } });
  ajv.addSchema(readSchemaFile(METADATA_SCHEMA_FILE, schemaDir));
  const exportNames: Record<string, string> = {};
  for (const kind of KINDS) {
    const schema = readSchemaFile(KIND_SCHEMA_FILES[kind], schemaDir);
    ajv.addSchema(schema);
    exportNames[`validate${kind}`] = schema.$id;
  }
  const code = standaloneCode.default(ajv, exportNames);
  const table = [
    '/** The validator of each kind. */',
    `export const kindValidators: { ${KINDS.map((k) => `${k}: ValidateFunction<AnyManifest>`).join('; ')} } = {`,
    ...KINDS.map((k) => `  ${k}: validate${k},`),
    '};',
  ];
  return [BANNER, code, ...table].join('\n') + '\n';
}
