/**
 * @module `cairn deploy --server URL`: `POST /api/v1/deploy` on a running cairn, then the
 * deployed record followed (`GET /api/v1/{servers|databases|apps}/{id}`) until it is ready or
 * has failed, with each change of status on stderr.
 */
import { CliError } from './cli-error.js';
import { remoteCall, remoteIdByName } from './remote-api.js';
import type { DeployBody } from '../api/deploy-request.js';
import { withIds } from './deploy-body.js';

/** A resource as the REST API answers it, with its deploy `endpoint`. */
export type DeployedRecord = Record<string, unknown> & { id: string; status: string; endpoint: string | null };

interface RemoteDeployRequest {
  server: string;
  token: string;
  body: DeployBody;
  timeoutMs: number;
  progress: (line: string) => void;
  intervalMs?: number;
}

const COLLECTION = { server: 'servers', database: 'databases', app: 'apps' } as const;
const READY = { server: 'running', database: 'available', app: 'running' } as const;
const FAILED = new Set(['error', 'failed']);

/** The endpoint of a REST record: a server's IPv4, a database's host:port, an app's URL. */
export function recordEndpoint(type: DeployBody['type'], record: Record<string, unknown>): string | null {
  if (type === 'server') return typeof record.ipv4 === 'string' ? record.ipv4 : null;
  if (type === 'database') return typeof record.host === 'string' && typeof record.port === 'number' ? `${record.host}:${record.port}` : null;
  return typeof record.url === 'string' ? record.url : null;
}

function readyCondition(record: Record<string, unknown>): { status?: string; message?: string } | undefined {
  const conditions = Array.isArray(record.conditions) ? (record.conditions as Array<{ type?: string; status?: string; message?: string }>) : [];
  return conditions.find((c) => c.type === 'Ready');
}

export async function remoteDeploy(request: RemoteDeployRequest): Promise<DeployedRecord> {
  const { type } = request.body;
  const body = await withIds(request.body, (kind, name) => remoteIdByName(request.server, request.token, kind, name));
  const started = await remoteCall<Record<string, unknown>>(request.server, request.token, 'POST', 'api/v1/deploy', body);
  const id = String(started.id);
  request.progress(`deploying ${type} ${id} on ${request.server}`);
  const deadline = Date.now() + request.timeoutMs;
  let last = '';
  for (;;) {
    const record = await remoteCall<Record<string, unknown>>(request.server, request.token, 'GET', `api/v1/${COLLECTION[type]}/${encodeURIComponent(id)}`);
    const status = String(record.status);
    const ready = readyCondition(record);
    const line = `${String(record.name)}: ${status}${ready?.message ? `: ${ready.message}` : ''}`;
    if (line !== last) request.progress(line);
    last = line;
    const current = record.observed_generation === record.generation;
    if (current && status === READY[type] && ready?.status === 'True') return { ...record, id, status, endpoint: recordEndpoint(type, record) };
    if (current && FAILED.has(status)) throw new CliError(`Deploy failed: ${String(record.name)} is ${status}${ready?.message ? `: ${ready.message}` : ''}`);
    if (Date.now() > deadline) throw new CliError(`Deploy timed out: ${String(record.name)} is still ${status}; follow it with GET /api/v1/${COLLECTION[type]}/${id}`);
    await new Promise((resolve) => setTimeout(resolve, request.intervalMs ?? 1_000));
  }
}
