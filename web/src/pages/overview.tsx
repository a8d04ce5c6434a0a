/**
 * @module The overview: widgets the user shows, hides and reorders (saved per user on the
 * server), each fed by the live stream or by a read again when it brings a change.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api';
import { ErrorNote, Section } from '../widgets-common';
import { loadWidgets, saveWidgets, WIDGETS, type WidgetId, type WidgetSetting } from '../preferences';
import { AlertsWidget, BackupsWidget, DeploymentsWidget, EventsWidget, FailingWidget, StatusWidget, UsageWidget } from './overview-widgets';

const BODY: Record<WidgetId, () => JSX.Element> = {
  status: StatusWidget, failing: FailingWidget, events: EventsWidget, deployments: DeploymentsWidget,
  backups: BackupsWidget, alerts: AlertsWidget, usage: UsageWidget,
};

const titleOf = (id: WidgetId): string => WIDGETS.find((w) => w.id === id)?.title ?? id;

function Customize(props: { widgets: WidgetSetting[]; change: (next: WidgetSetting[]) => void }): JSX.Element {
  const move = (index: number, by: number): void => {
    const next = [...props.widgets];
    const [item] = next.splice(index, 1);
    if (item) next.splice(index + by, 0, item);
    props.change(next);
  };
  return (
    <details class="customize">
      <summary>Customize widgets</summary>
      <ol>
        {props.widgets.map((w, index) => (
          <li key={w.id}>
            <label>
              <input type="checkbox" checked={w.shown} onChange={(e) => props.change(props.widgets.map((x) => (x.id === w.id ? { ...x, shown: e.currentTarget.checked } : x)))} />
              {' '}{titleOf(w.id)}
            </label>
            <button type="button" class="small" aria-label={`Move ${titleOf(w.id)} up`} disabled={index === 0} onClick={() => move(index, -1)}>↑</button>
            <button type="button" class="small" aria-label={`Move ${titleOf(w.id)} down`} disabled={index === props.widgets.length - 1} onClick={() => move(index, 1)}>↓</button>
          </li>
        ))}
      </ol>
    </details>
  );
}

export function Overview(): JSX.Element {
  const [widgets, setWidgets] = useState<WidgetSetting[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState('');
  useEffect(() => {
    loadWidgets().then(setWidgets).catch(setError);
  }, []);
  const change = (next: WidgetSetting[]): void => {
    setWidgets(next);
    setSaved('saving…');
    saveWidgets(next).then(() => setSaved('saved')).catch((e: unknown) => setSaved(`not saved: ${errorText(e)}`));
  };
  return (
    <main id="main">
      <h1>Overview</h1>
      <ErrorNote error={error} />
      {widgets && <Customize widgets={widgets} change={change} />}
      <p class="muted" role="status" aria-live="polite">{saved}</p>
      <div class="widgets">
        {(widgets ?? []).filter((w) => w.shown).map((w) => {
          const Body = BODY[w.id];
          return <Section key={w.id} title={titleOf(w.id)} id={`widget-${w.id}`}><Body /></Section>;
        })}
      </div>
    </main>
  );
}
