/**
 * @module The API's OpenAPI 3.1 document (`schemas/openapi.yaml`): loaded once, served as JSON,
 * and the source of every request body's schema, so the document and the code cannot disagree.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const DOCUMENT_URL = new URL('../../schemas/openapi.yaml', import.meta.url);

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}

let cached: OpenApiDocument | undefined;

export function openApiDocument(): OpenApiDocument {
  cached ??= parse(readFileSync(DOCUMENT_URL, 'utf8')) as OpenApiDocument;
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
