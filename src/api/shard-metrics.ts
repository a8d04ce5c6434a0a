/**
 * @module Shard metrics of a replica sharing reconciling with others, read from the controller
 * at each scrape: `cairn_shards_held` (how many shards it holds) and `cairn_shard_lease_token`
 * (the fencing token of each, by shard). Unsharded, it holds none.
 */
import { Gauge, type Registry } from 'prom-client';
import type { HeldShard } from '../store/shard-leases.js';
import { registeredOnce } from './metrics.js';

export interface ShardMetricsSource {
  /** The shards held now, with their tokens (Controller.heldShards). */
  heldShards(): HeldShard[];
}

/** Registers the shard gauges on `registry`; `source` is read at each scrape. */
export function createShardMetrics(registry: Registry, source: ShardMetricsSource): void {
  registeredOnce(
    registry,
    'cairn_shards_held',
    () =>
      new Gauge({
        name: 'cairn_shards_held',
        help: 'Shards of the uid space whose leases this replica holds (and so reconciles); 0 when reconciling is not sharded.',
        registers: [registry],
        collect(): void {
          this.set(source.heldShards().length);
        },
      }),
  );
  registeredOnce(
    registry,
    'cairn_shard_lease_token',
    () =>
      new Gauge<'shard'>({
        name: 'cairn_shard_lease_token',
        help: 'The fencing token of each shard lease this replica holds: it grows every time the shard changes hands.',
        labelNames: ['shard'],
        registers: [registry],
        collect(): void {
          this.reset();
          for (const { shard, token } of source.heldShards()) this.set({ shard: String(shard) }, token);
        },
      }),
  );
}
