/**
 * @module Calls to cairn's REST API from the dashboard: the bearer header from the session, one
 * refresh and retry on a 401, and problem documents turned into errors that say what was wrong.
 */
import { currentTokens, refreshTokens } from './session';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

interface Problem {
  detail?: string;
  code?: string;
  errors?: Array<{ pointer: string; message: string }>;
}

/** Sends the request with the current access token; refreshes it once when refused. */
export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const attempt = (): Promise<Response> => {
    const headers = new Headers(init.headers);
    const token = currentTokens()?.access_token;
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return fetch(path, { ...init, headers });
  };
  const first = await attempt();
  if (first.status !== 401 || !(await refreshTokens())) return first;
  return attempt();
}

async function failure(response: Response): Promise<ApiError> {
  const problem = (await response.json().catch(() => ({}))) as Problem;
  const fields = (problem.errors ?? []).map((e) => `${e.pointer || 'body'}: ${e.message}`).join('; ');
  return new ApiError(response.status, problem.code ?? 'error', problem.detail ?? (fields || response.statusText));
}

/** A JSON call under /api/v1; the answer's JSON (undefined for 204). */
export async function api<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const response = await authorizedFetch(`/api/v1${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'Content-Type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A plain-text answer (build logs). */
export async function apiText(path: string): Promise<string> {
  const response = await authorizedFetch(`/api/v1${path}`);
  if (!response.ok) throw await failure(response);
  return response.text();
}

/** What an error says to a person. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
