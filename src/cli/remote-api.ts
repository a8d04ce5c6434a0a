/**
 * @module One call of a running cairn's REST API from a CLI command (`--server URL`): the
 * bearer token, JSON both ways, and a problem answer turned into a CliError that carries its
 * detail and each field error; plus finding a recorded Server or Database by name.
 */
import { CliError } from './cli-error.js';
import { serverBaseUrl } from './server-url.js';

export async function remoteCall<T>(server: string, token: string, method: string, path: string, body?: unknown, query: Record<string, string> = {}): Promise<T> {
  const url = new URL(path.replace(/^\//, ''), serverBaseUrl(server));
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new CliError(`cannot reach cairn at ${server}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined; // not JSON; the status says enough
  }
  if (!response.ok) {
    const problem = (parsed ?? {}) as { detail?: unknown; errors?: unknown };
    const issues = Array.isArray(problem.errors) ? (problem.errors as Array<{ pointer?: string; message?: string }>).map((e) => `  ${e.pointer ?? ''}: ${e.message ?? ''}`) : [];
    const detail = typeof problem.detail === 'string' ? problem.detail : text.slice(0, 500);
    throw new CliError([`cairn answered ${response.status} (${server}): ${detail}`, ...issues].join('\n'));
  }
  return parsed as T;
}

/** The id of the Server or Database of that name in the default namespace, paging through its list. */
export async function remoteIdByName(server: string, token: string, kind: 'Server' | 'Database', name: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await remoteCall<{ items?: Array<{ id?: string; name?: string; namespace?: string }>; next_cursor?: string | null }>(
      server, token, 'GET', `api/v1/${kind === 'Server' ? 'servers' : 'databases'}`, undefined, { limit: '200', ...(cursor !== undefined ? { cursor } : {}) },
    );
    const found = (page.items ?? []).find((item) => item.name === name && (item.namespace ?? 'default') === 'default');
    if (found?.id !== undefined) return found.id;
    cursor = typeof page.next_cursor === 'string' ? page.next_cursor : undefined;
  } while (cursor !== undefined);
  return undefined;
}
