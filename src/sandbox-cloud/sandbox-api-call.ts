/**
 * @module A raw call to the sandbox API, for tests, benchmarks and scripts that look at "the
 * cloud" directly (cairn's drivers use drivers/sandbox/http-client.ts instead). The answer's
 * body is typed with every field any endpoint may send; a caller reads the ones its endpoint sends.
 */
import type { ApiErrorBody } from './api-error.js';
import type { RegionEntry, SizeEntry } from './catalog.js';
import type { LogLineBody } from './routes/app-log-routes.js';
import type { AppBody } from './routes/app-representation.js';
import type { BackupBody, RestoreBody } from './routes/backup-representation.js';
import type { DatabaseBody } from './routes/database-representation.js';
import type { ServerBody } from './routes/server-representation.js';
import type { MetricsBody } from './simulated-metrics.js';

export interface AnySandboxBody extends ApiErrorBody, MetricsBody {
  server: ServerBody;
  servers: ServerBody[];
  database: DatabaseBody;
  databases: DatabaseBody[];
  backup: BackupBody;
  backups: BackupBody[];
  restore: RestoreBody;
  restores: RestoreBody[];
  login: { database_id: string; username: string; ok: boolean };
  app: AppBody;
  apps: AppBody[];
  logs: LogLineBody[];
  regions: RegionEntry[];
  sizes: SizeEntry[];
  account: Record<string, unknown>;
  action: Record<string, unknown>;
}

export interface SandboxAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON (undefined for an empty body, e.g. 204). */
  body: AnySandboxBody;
}

/** One request with a bearer token (`null`: none); JSON in, JSON out, no error mapping. */
export async function callSandboxApi(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = 'sandbox',
): Promise<SandboxAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as AnySandboxBody };
}
