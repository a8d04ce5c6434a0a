/**
 * @module The overview's widgets: counts by status and failing resources from the live stream;
 * recent events, deployments, backups, alerts and plan usage read again when it changes.
 */
import type { JSX } from 'preact';
import { api } from '../api';
import { useFetched } from '../fetched';
import { COLLECTIONS, useLive, type Collection, type LiveRecord } from '../live';
import { useLiveVersion } from '../live-version';
import { Link } from '../router';
import { ErrorNote, StatusBadge, timeAgo } from '../widgets-common';

interface Page<T> {
  items: T[];
}

export interface EventRecord {
  id: string;
  resource_id: string;
  kind: string;
  name: string;
  type: string;
  reason: string;
  message: string;
  created_at: string;
  count: number;
}

const PATH_OF_KIND: Record<string, Collection> = { Provider: 'providers', Server: 'servers', Database: 'databases', App: 'apps' };

export function StatusWidget(): JSX.Element {
  const rows = COLLECTIONS.map((c) => {
    const records = useLive(c);
    const counts = new Map<string, number>();
    for (const r of records) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    return { collection: c, total: records.length, counts: [...counts].sort() };
  });
  return (
    <table>
      <caption class="visually-hidden">Resources by kind and status</caption>
      <thead><tr><th scope="col">Kind</th><th scope="col">Total</th><th scope="col">By status</th></tr></thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.collection}>
            <th scope="row"><Link href={`/${row.collection}`}>{row.collection}</Link></th>
            <td>{row.total}</td>
            <td>{row.counts.map(([status, n]) => <span class="count" key={status}><StatusBadge status={status} /> {n}</span>)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function failing(r: LiveRecord): boolean {
  return /fail|error|degraded/i.test(r.status) || (r.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False' && /fail|error/i.test(c.reason));
}

export function FailingWidget(): JSX.Element {
  const bad = COLLECTIONS.flatMap((c) => useLive(c).filter(failing).map((r) => ({ collection: c, record: r })));
  if (bad.length === 0) return <p>Nothing is failing.</p>;
  return (
    <ul>
      {bad.map(({ collection, record }) => (
        <li key={record.id}>
          <Link href={`/${collection}/${record.id}`}>{record.name}</Link> <StatusBadge status={record.status} />{' '}
          <span class="muted">{record.conditions?.find((c) => c.status === 'False')?.message ?? ''}</span>
        </li>
      ))}
    </ul>
  );
}

export function EventList(props: { events: EventRecord[] }): JSX.Element {
  if (props.events.length === 0) return <p>No events yet.</p>;
  return (
    <ul class="events">
      {props.events.map((e) => (
        <li key={e.id} class={e.type === 'Warning' ? 'warning' : ''}>
          <span class="muted">{timeAgo(e.created_at)}</span>{' '}
          {PATH_OF_KIND[e.kind] ? <Link href={`/${PATH_OF_KIND[e.kind]}/${e.resource_id}`}>{e.kind}/{e.name}</Link> : `${e.kind}/${e.name}`}{' '}
          <strong>{e.type === 'Warning' ? 'Warning: ' : ''}{e.reason}</strong> {e.message}{e.count > 1 ? ` (×${e.count})` : ''}
        </li>
      ))}
    </ul>
  );
}

export function EventsWidget(): JSX.Element {
  const version = useLiveVersion();
  const events = useFetched(() => api<Page<EventRecord>>('GET', '/events?limit=10'), [version]);
  return <>{events.data && <EventList events={events.data.items} />}<ErrorNote error={events.error} /></>;
}

interface DeploymentRecord {
  id: string;
  app_id: string;
  status: string;
  version: number;
  trigger: string;
  created_at: string;
}

export function DeploymentsWidget(): JSX.Element {
  const apps = useLive('apps');
  const version = useLiveVersion();
  const ids = apps.map((a) => a.id).join(',');
  const deployments = useFetched(async () => {
    const lists = await Promise.all(apps.map(async (a) => (await api<Page<DeploymentRecord>>('GET', `/apps/${a.id}/deployments?limit=5`)).items.map((d) => ({ ...d, app: a.name }))));
    return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, 8);
  }, [ids, version]);
  if (apps.length === 0) return <p>No apps.</p>;
  return (
    <>
      <ul>
        {(deployments.data ?? []).map((d) => (
          <li key={d.id}><Link href={`/apps/${d.app_id}`}>{d.app}</Link> #{d.version} <StatusBadge status={d.status} /> <span class="muted">{d.trigger}, {timeAgo(d.created_at)}</span></li>
        ))}
      </ul>
      <ErrorNote error={deployments.error} />
    </>
  );
}

interface BackupRecord {
  id: string;
  database_id: string;
  status: string;
  kind: string;
  size_bytes: number | null;
  created_at: string;
}

export function BackupsWidget(): JSX.Element {
  const databases = useLive('databases');
  const version = useLiveVersion();
  const ids = databases.map((d) => d.id).join(',');
  const backups = useFetched(async () => {
    const lists = await Promise.all(databases.map(async (d) => (await api<Page<BackupRecord>>('GET', `/databases/${d.id}/backups?limit=5`)).items.map((b) => ({ ...b, database: d.name }))));
    return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, 8);
  }, [ids, version]);
  if (databases.length === 0) return <p>No databases.</p>;
  return (
    <>
      {backups.data?.length === 0 && <p>No backups yet.</p>}
      <ul>
        {(backups.data ?? []).map((b) => (
          <li key={b.id}><Link href={`/databases/${b.database_id}`}>{b.database}</Link> <StatusBadge status={b.status} /> <span class="muted">{b.kind}, {timeAgo(b.created_at)}</span></li>
        ))}
      </ul>
      <ErrorNote error={backups.error} />
    </>
  );
}

interface AlertRecord {
  id: string;
  rule_name: string;
  server_id: string;
  server_name: string;
  metric: string;
  value: number;
  threshold: number;
  state: string;
  started_at: string;
}

export function AlertsWidget(): JSX.Element {
  const version = useLiveVersion();
  const alerts = useFetched(() => api<Page<AlertRecord>>('GET', '/alerts?limit=10'), [version]);
  return (
    <>
      {alerts.data?.items.length === 0 && <p>No alerts.</p>}
      <ul>
        {(alerts.data?.items ?? []).map((a) => (
          <li key={a.id}>
            <StatusBadge status={a.state} /> {a.rule_name} on <Link href={`/servers/${a.server_id}`}>{a.server_name}</Link>:{' '}
            {a.metric} {a.value} (threshold {a.threshold}) <span class="muted">{timeAgo(a.started_at)}</span>
          </li>
        ))}
      </ul>
      <ErrorNote error={alerts.error} />
    </>
  );
}

interface Usage {
  plan: string;
  resources: Record<'servers' | 'databases' | 'apps', { used: number; limit: number | null }>;
  warnings: Array<{ message: string }>;
}

export function UsageWidget(): JSX.Element {
  const version = useLiveVersion();
  const usage = useFetched(() => api<Usage>('GET', '/billing/usage'), [version]);
  const u = usage.data;
  return (
    <>
      {u && (
        <>
          <p>Plan: <strong>{u.plan}</strong></p>
          <dl class="usage">
            {(['servers', 'databases', 'apps'] as const).map((k) => {
              const { used, limit } = u.resources[k];
              return (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>
                    {used} of {limit ?? 'unlimited'}
                    {limit !== null && <meter min={0} max={limit} value={used} aria-label={`${k} used of the plan's ${limit}`} />}
                  </dd>
                </div>
              );
            })}
          </dl>
          {u.warnings.map((w) => <p class="warning" key={w.message}>{w.message}</p>)}
        </>
      )}
      <ErrorNote error={usage.error} />
    </>
  );
}
