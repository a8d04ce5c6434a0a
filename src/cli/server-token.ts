/**
 * @module The bearer token of a command that talks to a running cairn (`--server URL`): the
 * one given (`--token`, `CAIRN_TOKEN`), else the one `cairn login` stored for that server,
 * refreshed first (`POST /api/v1/auth/refresh`, the new pair stored) when it expires within a
 * minute.
 */
import { CliError } from './cli-error.js';
import { readCredentials, saveCredentials, serverKey } from './credentials-file.js';

const REFRESH_MARGIN_MS = 60_000;

export async function serverToken(server: string, given: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const explicit = given ?? env.CAIRN_TOKEN;
  if (explicit) return explicit;
  const stored = readCredentials(server, env);
  if (!stored) {
    throw new CliError(`--server needs a token: --token T, CAIRN_TOKEN, or sign in once with  cairn login --server ${serverKey(server)}  (an API token for CI: POST /api/v1/tokens)`);
  }
  if (Date.parse(stored.expires_at) - Date.now() > REFRESH_MARGIN_MS) return stored.access_token;
  let response: Response;
  try {
    response = await fetch(new URL('/api/v1/auth/refresh', serverKey(server)), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ refresh_token: stored.refresh_token }),
    });
  } catch (error) {
    throw new CliError(`cannot reach ${serverKey(server)} to refresh the stored sign-in: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string; expires_in?: number; detail?: string };
  if (!response.ok || typeof answer.access_token !== 'string' || typeof answer.refresh_token !== 'string' || typeof answer.expires_in !== 'number') {
    throw new CliError(`the stored sign-in to ${serverKey(server)} could not be refreshed (${answer.detail ?? `HTTP ${response.status}`}); run cairn login --server ${serverKey(server)} again`);
  }
  saveCredentials(server, { access_token: answer.access_token, refresh_token: answer.refresh_token, expires_at: new Date(Date.now() + answer.expires_in * 1000).toISOString() }, env);
  return answer.access_token;
}
