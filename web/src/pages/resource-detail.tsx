/**
 * @module One resource's page: its live status and conditions, its fields, its events, the
 * actions its kind has (hidden from viewers; each confirmed first), and the kind's own panes
 * (a server's metrics and terminal, an app's deployments and logs, a database's backups).
 */
import type { JSX } from 'preact';
import { api } from '../api';
import { useFetched } from '../fetched';
import { KIND_VIEWS } from '../kinds';
import { useLiveRecord, type Collection, type LiveRecord } from '../live';
import { useLiveVersion } from '../live-version';
import { canAct, useMe } from '../me';
import { ConfirmButton, ErrorNote, Section, StatusBadge } from '../widgets-common';
import { AppPanes } from './app-panes';
import { DatabasePanes } from './database-panes';
import { EventList, type EventRecord } from './overview-widgets';
import { ServerPanes } from './server-panes';

function Fields(props: { record: LiveRecord }): JSX.Element {
  const shown = Object.entries(props.record).filter(([k, v]) => k !== 'conditions' && k !== 'name' && k !== 'status' && (v === null || typeof v !== 'object'));
  return (
    <dl class="fields">
      {shown.map(([k, v]) => (
        <div key={k}><dt>{k.replaceAll('_', ' ')}</dt><dd>{v === null || v === '' ? '—' : String(v as string | number | boolean)}</dd></div>
      ))}
    </dl>
  );
}

function Conditions(props: { record: LiveRecord }): JSX.Element {
  const conditions = props.record.conditions ?? [];
  if (conditions.length === 0) return <p>No conditions reported yet.</p>;
  return (
    <div class="table-scroll">
      <table>
        <thead><tr><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th></tr></thead>
        <tbody>
          {conditions.map((c) => <tr key={c.type}><th scope="row">{c.type}</th><td>{c.status}</td><td>{c.reason}</td><td>{c.message}</td></tr>)}
        </tbody>
      </table>
    </div>
  );
}

function ResourceEvents(props: { id: string }): JSX.Element {
  const version = useLiveVersion();
  const events = useFetched(() => api<{ items: EventRecord[] }>('GET', `/events?resource_id=${props.id}&limit=20`), [props.id, version]);
  return <>{events.data && <EventList events={events.data.items} />}<ErrorNote error={events.error} /></>;
}

export function ResourceDetail(props: { collection: Collection; id: string }): JSX.Element {
  const view = KIND_VIEWS[props.collection];
  const record = useLiveRecord(props.collection, props.id);
  const me = useMe();
  if (!record) {
    return <main id="main"><h1>{view.singular}</h1><p role="status">Loading, or no {view.singular} has this id.</p></main>;
  }
  return (
    <main id="main">
      <h1>{record.name} <StatusBadge status={record.status} /></h1>
      <p class="muted">{view.singular}</p>
      {canAct(me) && view.actions.length > 0 && (
        <div class="actions" role="group" aria-label="Actions">
          {view.actions.map((a) => <ConfirmButton key={a.label} label={a.label} question={a.question(record)} run={() => a.run(record)} danger={a.danger ?? false} />)}
        </div>
      )}
      <Section title="Conditions"><Conditions record={record} /></Section>
      {props.collection === 'servers' && <ServerPanes record={record} canAct={canAct(me)} />}
      {props.collection === 'apps' && <AppPanes record={record} />}
      {props.collection === 'databases' && <DatabasePanes record={record} canAct={canAct(me)} />}
      <Section title="Details"><Fields record={record} /></Section>
      {props.collection !== 'sources' && <Section title="Events"><ResourceEvents id={record.id} /></Section>}
    </main>
  );
}
