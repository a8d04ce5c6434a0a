/**
 * @module A sandbox app as the API shows it (env values as their digests), and how a request
 * body becomes the app's deploy-relevant configuration (validated field by field, 422 naming
 * the field; env values digested before anything keeps them).
 */
import { simulatedIpv4 } from '../addresses.js';
import { unprocessable } from '../api-error.js';
import { isJsonObject, optionalInteger, optionalString, optionalStringMap, type JsonObject } from '../body-fields.js';
import { digestEnv } from '../env-digest.js';
import type { AppReleaseConfig } from '../release-digest.js';
import type { AppRow } from '../store/apps-table.js';
import { statusAt } from '../transitions.js';

export interface AppBody extends AppReleaseConfig {
  id: string;
  name: string;
  client_token: string;
  server_id: string;
  state: 'running' | 'stopped';
  status: string;
  url: string;
  release: number;
  release_digest: string;
  created_at: string;
  updated_at: string;
}

function readSource(value: unknown): Record<string, unknown> {
  if (!isJsonObject(value)) throw unprocessable('source', 'source is required: an object with exactly one of git, image, path');
  const kinds = ['git', 'image', 'path'].filter((k) => value[k] !== undefined && value[k] !== null);
  if (kinds.length !== 1) throw unprocessable('source', `source must have exactly one of git, image, path (got ${kinds.length === 0 ? 'none' : kinds.join(', ')})`);
  const git = value['git'];
  if (git !== undefined && git !== null) {
    if (!isJsonObject(git) || typeof git['url'] !== 'string' || git['url'] === '') throw unprocessable('source.git.url', 'source.git.url is required');
    for (const key of ['ref', 'path']) {
      if (git[key] !== undefined && typeof git[key] !== 'string') throw unprocessable(`source.git.${key}`, `source.git.${key} must be a string`);
    }
    return { git: { url: git['url'], ref: git['ref'], path: git['path'] } };
  }
  const kind = kinds[0] === 'image' ? 'image' : 'path';
  const text = value[kind];
  if (typeof text !== 'string' || text === '') throw unprocessable(`source.${kind}`, `source.${kind} must be a non-empty string`);
  return { [kind]: text };
}

function readHealthCheckPath(body: JsonObject): string | null | undefined {
  const path = optionalString(body, 'health_check_path', 1024);
  if (typeof path === 'string' && !path.startsWith('/')) throw unprocessable('health_check_path', 'health_check_path must start with "/"');
  return path;
}

const CONFIG_FIELDS = ['source', 'build', 'command', 'port', 'env', 'health_check_path'] as const;

/** True when `body` names any deploy-relevant field: such a PATCH is a new release. */
export function carriesConfiguration(body: JsonObject): boolean {
  return CONFIG_FIELDS.some((field) => body[field] !== undefined);
}

/** The configuration in `body`, each absent field taken from `base` (for PATCH) or its default (for POST). */
export function readReleaseConfig(body: JsonObject, base: AppReleaseConfig | undefined): AppReleaseConfig {
  const source = body['source'] === undefined && base ? base.source : readSource(body['source']);
  const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  const env = optionalStringMap(body, 'env');
  return {
    source,
    build: pick(optionalString(body, 'build'), base?.build ?? null),
    command: pick(optionalString(body, 'command'), base?.command ?? null),
    port: pick(optionalInteger(body, 'port', 1, 65_535), base?.port ?? null),
    env: env === undefined ? base?.env ?? {} : digestEnv(env),
    health_check_path: pick(readHealthCheckPath(body), base?.health_check_path ?? null),
  };
}

export function parseStoredConfig(row: AppRow): AppReleaseConfig {
  return JSON.parse(row.config_json) as AppReleaseConfig;
}

export function appBody(row: AppRow, nowMs: number): AppBody {
  const config = parseStoredConfig(row);
  return {
    id: row.id,
    name: row.name,
    client_token: row.client_token,
    server_id: row.server_id,
    ...config,
    state: row.state,
    status: statusAt(row, row.state, nowMs),
    url: `http://${simulatedIpv4(row.server_id)}:${config.port ?? 80}`,
    release: row.release,
    release_digest: row.release_digest,
    created_at: new Date(row.created_at_ms).toISOString(),
    updated_at: new Date(row.updated_at_ms).toISOString(),
  };
}
