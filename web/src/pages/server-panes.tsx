/**
 * @module A server's own panes: CPU, memory and disk charts from `/servers/{id}/metrics` (read
 * again every 15 s while shown: the vendor's samples, not statuses), and its terminal.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { LineChart } from '../chart';
import { useFetched } from '../fetched';
import type { LiveRecord } from '../live';
import { ErrorNote, Section } from '../widgets-common';

interface Metrics {
  simulated: boolean;
  series: Array<{ ts: string; cpu_percent: number; memory_percent: number; disk_percent: number }>;
}

const METRICS_EVERY_MS = 15_000;

function MetricsCharts(props: { id: string }): JSX.Element {
  const metrics = useFetched(() => api<Metrics>('GET', `/servers/${props.id}/metrics`), [props.id]);
  useEffect(() => {
    const timer = setInterval(metrics.reload, METRICS_EVERY_MS);
    return () => clearInterval(timer);
  }, [props.id]);
  const series = metrics.data?.series ?? [];
  return (
    <>
      {metrics.data?.simulated && <p class="muted">These figures are simulated by the vendor, not measured.</p>}
      {metrics.data && (
        <div class="charts">
          <LineChart title="CPU" series={{ label: 'cpu', values: series.map((p) => p.cpu_percent) }} />
          <LineChart title="Memory" series={{ label: 'memory', values: series.map((p) => p.memory_percent) }} />
          <LineChart title="Disk" series={{ label: 'disk', values: series.map((p) => p.disk_percent) }} />
        </div>
      )}
      <ErrorNote error={metrics.error} />
    </>
  );
}

/** The terminal, loaded only when asked for: xterm.js is most of the dashboard's weight. */
function LazyTerminal(props: { serverId: string; serverName: string }): JSX.Element {
  const [pane, setPane] = useState<typeof import('../terminal').TerminalPane | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  if (pane) {
    const Pane = pane;
    return <Pane serverId={props.serverId} serverName={props.serverName} open />;
  }
  const load = (): void => {
    import('../terminal').then((m) => setPane(() => m.TerminalPane)).catch(setError);
  };
  return <><button type="button" onClick={load}>Open a terminal on {props.serverName}</button><ErrorNote error={error} /></>;
}

export function ServerPanes(props: { record: LiveRecord; canAct: boolean }): JSX.Element {
  return (
    <>
      <Section title="Metrics">{props.record.status === 'pending' ? <p>Metrics follow once the server exists.</p> : <MetricsCharts id={props.record.id} />}</Section>
      {props.canAct && <Section title="Terminal"><LazyTerminal serverId={props.record.id} serverName={props.record.name} /></Section>}
    </>
  );
}
