/**
 * @module The API's OpenAPI 3.1 document (`schemas/openapi.yaml`): loaded once, served as JSON,
 * and the source of every request body's schema, so the document and the code cannot disagree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const DOCUMENT = join('schemas', 'openapi.yaml');

/** `schemas/openapi.yaml` of the package this module belongs to, from src/ or from dist/. */
function documentPath(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, DOCUMENT))) return join(dir, DOCUMENT);
    if (dirname(dir) === dir) throw new Error(`cairn's ${DOCUMENT} was not found above ${fileURLToPath(import.meta.url)}; reinstall cairn`);
  }
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}

let cached: OpenApiDocument | undefined;

export function openApiDocument(): OpenApiDocument {
  cached ??= parse(readFileSync(documentPath(), 'utf8')) as OpenApiDocument;
  return cached;
}

/** `/servers/{id}/start` → `/servers/:id/start` (express's form). */
export function toExpressPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}

/** `/servers/:id/start` → `/servers/{id}/start` (the document's form). */
export function toTemplatePath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}
