/** @module Tests of the shard gauges as a scrape reads them: what is held now, shards given up disappear. */
import { describe, expect, it } from 'vitest';
import type { HeldShard } from '../store/shard-leases.js';
import { createMetricsRegistry } from './metrics.js';
import { createShardMetrics } from './shard-metrics.js';

describe('shard metrics', () => {
  it('report the shards held and their tokens at each scrape', async () => {
    const registry = createMetricsRegistry();
    let held: HeldShard[] = [{ shard: 3, token: 7 }, { shard: 12, token: 1 }];
    createShardMetrics(registry, { heldShards: () => held });
    createShardMetrics(registry, { heldShards: () => held }); // installed twice: no clash
    const first = await registry.metrics();
    expect(first).toContain('cairn_shards_held 2');
    expect(first).toContain('cairn_shard_lease_token{shard="3"} 7');
    expect(first).toContain('cairn_shard_lease_token{shard="12"} 1');
    held = [{ shard: 12, token: 1 }];
    const second = await registry.metrics();
    expect(second).toContain('cairn_shards_held 1');
    expect(second).not.toContain('cairn_shard_lease_token{shard="3"}');
  });
});
