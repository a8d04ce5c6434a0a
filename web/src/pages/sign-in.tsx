/**
 * @module Signing in: e-mail and password (`POST /auth/login`), and a button for each identity
 * provider this cairn has configured (`GET /auth/providers`), which comes back with a one-time
 * code that `POST /auth/exchange` turns into tokens.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorText } from '../api';
import { saveTokens, type Tokens } from '../session';

interface SignInProvider {
  name: string;
  display_name: string;
  path: string;
}

async function post(path: string, body: unknown): Promise<Tokens> {
  const response = await fetch(`/api/v1${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json().catch(() => ({}))) as Partial<Tokens> & { detail?: string; code?: string };
  if (!response.ok) throw new ApiError(response.status, answer.code ?? 'error', answer.detail ?? response.statusText);
  return answer as Tokens;
}

export function SignIn(): JSX.Element {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState<SignInProvider[]>([]);

  useEffect(() => {
    fetch('/api/v1/auth/providers')
      .then((r) => (r.ok ? (r.json() as Promise<{ items: SignInProvider[] }>) : { items: [] }))
      .then((body) => setProviders(body.items))
      .catch(() => setProviders([]));
    // Back from an identity provider: the one-time code becomes tokens, and leaves the address bar.
    const code = new URLSearchParams(location.search).get('code');
    if (code) {
      history.replaceState(null, '', location.pathname);
      setBusy(true);
      post('/auth/exchange', { code }).then(saveTokens).catch((e: unknown) => setError(errorText(e))).finally(() => setBusy(false));
    }
  }, []);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      saveTokens(await post('/auth/login', { email, password }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Sign in to cairn</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>Sign in</button>
        {error && <p class="error" role="alert" id="sign-in-error">{error}</p>}
      </form>
      {providers.length > 0 && (
        <div class="providers">
          <p>or</p>
          {providers.map((p) => (
            <a class="button secondary" href={`/api/v1${p.path}?redirect_uri=${encodeURIComponent('/')}`}>Sign in with {p.display_name}</a>
          ))}
        </div>
      )}
    </main>
  );
}
