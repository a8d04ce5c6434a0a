/**
 * @module The figures a test set for a sandbox server's metrics: per server, each of cpu, memory
 * and disk either held at a value or (null) left to the simulation.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export const METRIC_FIELDS = ['cpu_percent', 'memory_percent', 'disk_percent'] as const;
export type MetricField = (typeof METRIC_FIELDS)[number];

/** A held value per metric; null (or absent) follows the simulation. */
export type MetricOverrides = Partial<Record<MetricField, number | null>>;

export class MetricOverridesTable {
  constructor(private readonly sql: StatementCache) {}

  /** The figures held for a server (only the fields that are held). */
  get(serverId: string): Partial<Record<MetricField, number>> {
    const row = this.sql.get('SELECT cpu_percent, memory_percent, disk_percent FROM metric_overrides WHERE server_id = ?').get(serverId) as Record<MetricField, number | null> | undefined;
    const held: Partial<Record<MetricField, number>> = {};
    for (const field of METRIC_FIELDS) if (row && row[field] !== null) held[field] = row[field];
    return held;
  }

  /** Applies `change`: a number holds the metric at it, null returns it to the simulation, absent leaves it as it is. */
  apply(serverId: string, change: MetricOverrides): Partial<Record<MetricField, number>> {
    const merged: Record<MetricField, number | null> = { cpu_percent: null, memory_percent: null, disk_percent: null, ...this.get(serverId) };
    for (const field of METRIC_FIELDS) if (change[field] !== undefined) merged[field] = change[field];
    if (METRIC_FIELDS.every((f) => merged[f] === null)) {
      this.sql.get('DELETE FROM metric_overrides WHERE server_id = ?').run(serverId);
    } else {
      this.sql.get(
        `INSERT INTO metric_overrides (server_id, cpu_percent, memory_percent, disk_percent) VALUES (@server_id, @cpu_percent, @memory_percent, @disk_percent)
         ON CONFLICT(server_id) DO UPDATE SET cpu_percent = excluded.cpu_percent, memory_percent = excluded.memory_percent, disk_percent = excluded.disk_percent`,
      ).run({ server_id: serverId, ...merged });
    }
    return this.get(serverId);
  }
}
