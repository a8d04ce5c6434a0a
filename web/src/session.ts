/**
 * @module The signed-in session: the access and refresh tokens kept in sessionStorage (never in
 * a URL), refreshed through `/auth/refresh` when the access token is refused, and listeners
 * told when the session starts or ends.
 */
export interface Tokens {
  access_token: string;
  refresh_token: string;
}

const KEY = 'cairn.session';
const listeners = new Set<() => void>();

export function currentTokens(): Tokens | undefined {
  const text = sessionStorage.getItem(KEY);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as Tokens;
  } catch {
    return undefined;
  }
}

export function saveTokens(tokens: Tokens | undefined): void {
  if (tokens) sessionStorage.setItem(KEY, JSON.stringify({ access_token: tokens.access_token, refresh_token: tokens.refresh_token }));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let refreshing: Promise<boolean> | undefined;

/** Trades the refresh token for new tokens (once at a time); false, and signed out, when it no longer works. */
export function refreshTokens(): Promise<boolean> {
  refreshing ??= (async (): Promise<boolean> => {
    const tokens = currentTokens();
    if (!tokens) return false;
    const response = await fetch('/api/v1/auth/refresh', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ refresh_token: tokens.refresh_token }),
    });
    if (!response.ok) {
      saveTokens(undefined);
      return false;
    }
    saveTokens((await response.json()) as Tokens);
    return true;
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}
