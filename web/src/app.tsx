/**
 * @module The dashboard's frame: sign-in until there is a session, then the navigation, the
 * live stream's state and the page the path names.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { KIND_VIEWS } from './kinds';
import { COLLECTIONS, startLive, stopLive, useLiveConnected, type Collection } from './live';
import { forgetMe, useMe } from './me';
import { Link, usePath } from './router';
import { currentTokens, onSessionChange, saveTokens } from './session';
import { Overview } from './pages/overview';
import { Plans } from './pages/plans';
import { ResourceDetail } from './pages/resource-detail';
import { ResourceList } from './pages/resource-list';
import { SignIn } from './pages/sign-in';

function Page(props: { path: string }): JSX.Element {
  const [, first, id] = props.path.split('/');
  if ((COLLECTIONS as string[]).includes(first ?? '')) {
    const collection = first as Collection;
    return id ? <ResourceDetail collection={collection} id={id} /> : <ResourceList collection={collection} />;
  }
  if (first === 'plans') return <Plans />;
  if (first === '' || first === undefined) return <Overview />;
  return <main id="main"><h1>Not found</h1><p>No page at {props.path}.</p></main>;
}

function SignedIn(): JSX.Element {
  const path = usePath();
  const me = useMe();
  const connected = useLiveConnected();
  useEffect(() => {
    startLive();
  }, []);
  const signOut = async (): Promise<void> => {
    const refresh = currentTokens()?.refresh_token;
    await api('POST', '/auth/logout', refresh ? { refresh_token: refresh } : {}).catch(() => undefined);
    stopLive();
    forgetMe();
    saveTokens(undefined);
  };
  const links: Array<[string, string]> = [['/', 'Overview'], ...COLLECTIONS.map((c): [string, string] => [`/${c}`, KIND_VIEWS[c].title]), ['/plans', 'Plans']];
  const current = (href: string): boolean => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <span class="brand">cairn</span>
        <nav aria-label="Main">
          <ul>{links.map(([href, label]) => <li key={href}><Link href={href} aria-current={current(href) ? 'page' : undefined}>{label}</Link></li>)}</ul>
        </nav>
        <span class="who">
          <span class={connected ? 'live on' : 'live'} role="status">{connected ? 'live' : 'reconnecting…'}</span>
          {me && <span>{me.user?.email ?? 'API token'} ({me.role}, {me.tenant.name})</span>}
          <button type="button" class="small secondary" onClick={() => void signOut()}>Sign out</button>
        </span>
      </header>
      <Page path={path} />
    </>
  );
}

export function App(): JSX.Element {
  const [signedIn, setSignedIn] = useState(currentTokens() !== undefined);
  useEffect(() => onSessionChange(() => setSignedIn(currentTokens() !== undefined)), []);
  return signedIn ? <SignedIn /> : <SignIn />;
}
