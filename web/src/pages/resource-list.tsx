/**
 * @module A collection's list (providers, servers, databases, apps, git sources): live from the
 * watch stream, each status as its word.
 */
import type { JSX } from 'preact';
import { KIND_VIEWS } from '../kinds';
import { useLive, type Collection } from '../live';
import { Link } from '../router';
import { StatusBadge } from '../widgets-common';

export function ResourceList(props: { collection: Collection }): JSX.Element {
  const view = KIND_VIEWS[props.collection];
  const records = useLive(props.collection);
  return (
    <main id="main">
      <h1>{view.title}</h1>
      {records.length === 0 ? <p>No {view.title.toLowerCase()} yet.</p> : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Status</th>{view.columns.map((c) => <th scope="col" key={c.label}>{c.label}</th>)}</tr>
            </thead>
            <tbody>
              {records.map((r) => (
                <tr key={r.id}>
                  <th scope="row"><Link href={`/${props.collection}/${r.id}`}>{r.name}</Link></th>
                  <td><StatusBadge status={r.status} /></td>
                  {view.columns.map((c) => <td key={c.label}>{c.value(r)}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
