/**
 * @module Finds and reads the JSON Schemas in the project's `schemas/` folder, wherever this
 * module runs from (src/ through tsx, dist/src/ after tsc, or the bundle in dist/cli/): the folder next to package.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kind } from './kinds.js';

/** The schema file of each kind, and the shared metadata schema they `$ref`. */
export const KIND_SCHEMA_FILES: Record<Kind, string> = {
  Provider: 'provider.schema.json',
  SSHKey: 'sshkey.schema.json',
  Server: 'server.schema.json',
  Database: 'database.schema.json',
  App: 'app.schema.json',
  AlertRule: 'alertrule.schema.json',
};
export const METADATA_SCHEMA_FILE = 'metadata.schema.json';

/** A schema as read from disk; only `$id` is relied on. */
export interface SchemaDocument {
  $id: string;
  [keyword: string]: unknown;
}

/** The nearest folder at or above `startDir` that holds a package.json. */
export function findPackageRoot(startDir: string): string {
  let dir = startDir;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json found in ${startDir} or any folder above it`);
    dir = parent;
  }
}

/** The `schemas/` folder of the cairn package this module belongs to. */
export function schemaDirectory(): string {
  return join(findPackageRoot(dirname(fileURLToPath(import.meta.url))), 'schemas');
}

/** Reads one schema file of `schemas/`, checking that it has an `$id`. */
export function readSchemaFile(fileName: string, dir: string = schemaDirectory()): SchemaDocument {
  const path = join(dir, fileName);
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { $id?: unknown }).$id !== 'string') {
    throw new Error(`${path} is not a JSON Schema with an $id`);
  }
  return parsed as SchemaDocument;
}
