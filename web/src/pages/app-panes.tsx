/**
 * @module An app's own panes: its deployment history (read again when the live stream brings a
 * change), a deployment's build log, and the live tail of its log (new lines since the last
 * one, every 2 s while following).
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiText } from '../api';
import { useFetched } from '../fetched';
import type { LiveRecord } from '../live';
import { useLiveVersion } from '../live-version';
import { ErrorNote, Section, StatusBadge, timeAgo } from '../widgets-common';

interface Deployment {
  id: string;
  status: string;
  version: number;
  trigger: string;
  ref: string | null;
  commit: string | null;
  created_at: string;
  duration_ms: number | null;
}

interface LogLine {
  ts: string;
  stream: string;
  line: string;
}

function BuildLog(props: { appId: string; deployment: Deployment }): JSX.Element {
  const log = useFetched(() => apiText(`/apps/${props.appId}/deployments/${props.deployment.id}/log`), [props.deployment.id, props.deployment.status]);
  return (
    <>
      <pre class="log" tabIndex={0} aria-label={`Build log of deployment ${props.deployment.version}`}>{log.data ?? 'loading…'}</pre>
      <ErrorNote error={log.error} />
    </>
  );
}

function Deployments(props: { app: LiveRecord }): JSX.Element {
  const version = useLiveVersion();
  const list = useFetched(() => api<{ items: Deployment[] }>('GET', `/apps/${props.app.id}/deployments?limit=20`), [props.app.id, version, props.app.status]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const items = list.data?.items ?? [];
  return (
    <>
      {items.length === 0 && <p>No deployments yet.</p>}
      <ul class="deployments">
        {items.map((d) => (
          <li key={d.id}>
            <button type="button" class="link" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? undefined : d.id)}>
              #{d.version}
            </button>{' '}
            <StatusBadge status={d.status} /> <span class="muted">{d.trigger}{d.ref ? ` ${d.ref}` : ''}, {timeAgo(d.created_at)}{d.duration_ms !== null ? `, ${(d.duration_ms / 1000).toFixed(1)} s` : ''}</span>
            {open === d.id && <BuildLog appId={props.app.id} deployment={d} />}
          </li>
        ))}
      </ul>
      <ErrorNote error={list.error} />
    </>
  );
}

const TAIL_EVERY_MS = 2_000;

function LogTail(props: { app: LiveRecord }): JSX.Element {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [following, setFollowing] = useState(true);
  const [error, setError] = useState<unknown>(undefined);
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (!following) return undefined;
    let stopped = false;
    let last: string | undefined;
    const read = async (): Promise<void> => {
      try {
        const since = last ? `&since=${encodeURIComponent(last)}` : '';
        const page = await api<{ items: LogLine[] }>('GET', `/apps/${props.app.id}/logs?tail=200${since}`);
        if (stopped) return;
        const fresh = last ? page.items.filter((l) => l.ts > (last ?? '')) : page.items;
        if (fresh.length > 0) {
          last = fresh.at(-1)?.ts;
          setLines((before) => [...before, ...fresh].slice(-1000));
        }
        setError(undefined);
      } catch (e) {
        if (!stopped) setError(e);
      }
    };
    void read();
    const timer = setInterval(() => void read(), TAIL_EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [props.app.id, following]);
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines.length]);
  return (
    <>
      <label class="inline"><input type="checkbox" checked={following} onChange={(e) => setFollowing(e.currentTarget.checked)} /> Follow the log</label>
      <pre class="log" ref={box} tabIndex={0} aria-label={`Log of ${props.app.name}`} aria-live="off">
        {lines.length === 0 ? 'No log lines yet.' : lines.map((l) => `${l.ts.slice(11, 19)} ${l.stream === 'stderr' ? '!' : ' '} ${l.line}`).join('\n')}
      </pre>
      <ErrorNote error={error} />
    </>
  );
}

export function AppPanes(props: { record: LiveRecord }): JSX.Element {
  return (
    <>
      <Section title="Deployments"><Deployments app={props.record} /></Section>
      <Section title="Log"><LogTail app={props.record} /></Section>
    </>
  );
}
