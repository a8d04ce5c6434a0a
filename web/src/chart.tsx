/**
 * @module A small line chart drawn as inline SVG (no chart library): percentages over time,
 * with a text summary for screen readers.
 */
import type { JSX } from 'preact';

export interface Series {
  label: string;
  values: number[];
}

const WIDTH = 300;
const HEIGHT = 100;

export function LineChart(props: { title: string; series: Series }): JSX.Element {
  const values = props.series.values;
  const last = values.at(-1);
  const step = values.length > 1 ? WIDTH / (values.length - 1) : WIDTH;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(HEIGHT - (Math.min(Math.max(v, 0), 100) / 100) * HEIGHT).toFixed(1)}`).join(' ');
  const summary = last === undefined ? 'no samples' : `now ${last.toFixed(1)} %, from ${Math.min(...values).toFixed(1)} to ${Math.max(...values).toFixed(1)} % over ${values.length} samples`;
  return (
    <figure class="chart">
      <figcaption>{props.title}: <strong>{last === undefined ? '—' : `${last.toFixed(1)} %`}</strong></figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${props.title}, ${summary}`} preserveAspectRatio="none">
        <line x1="0" y1={HEIGHT / 2} x2={WIDTH} y2={HEIGHT / 2} class="grid" />
        {values.length > 0 && <polyline points={points} class="line" />}
      </svg>
    </figure>
  );
}
