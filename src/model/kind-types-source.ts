/**
 * @module Renders the TypeScript source of the kinds' types from their JSON Schemas
 * (json-schema-to-typescript). Shared by the generator script and the staleness test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

/** One exported declaration with its optional doc comment, up to the next one. */
const DECLARATION = /(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?export (?:interface|type) (\w+)[\s\S]*?(?=(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*)?export |$)/g;

export const SCHEMA_FILES = ['provider', 'sshkey', 'server', 'database', 'app', 'alertrule'] as const;

const BANNER = `/* eslint-disable */
/**
 * @module Types of the cairn.dev/v1 kinds, GENERATED from schemas/*.schema.json by
 * \`npm run gen:types\`. Do not edit by hand: change the schema and regenerate.
 */`;

export async function renderKindTypes(schemaDir: string): Promise<string> {
  const parts: string[] = [BANNER];
  const seen = new Set<string>();
  for (const file of SCHEMA_FILES) {
    const schema = JSON.parse(readFileSync(join(schemaDir, `${file}.schema.json`), 'utf8')) as JSONSchema;
    const ts = await compile(schema, schema.title ?? file, {
      cwd: schemaDir,
      bannerComment: '',
      additionalProperties: false,
      strictIndexSignatures: false,
      format: true,
      declareExternallyReferenced: true,
    });
    // Each compile repeats the shared ObjectMeta; keep the first declaration of every name,
    // together with the doc comment above it.
    for (const match of ts.matchAll(DECLARATION)) {
      const name = match[1] ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      parts.push(match[0].trim());
    }
  }
  return parts.filter((p) => p.length > 0).join('\n\n') + '\n';
}
