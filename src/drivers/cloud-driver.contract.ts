/**
 * @module The cloud half of the shared driver contract (see driver.contract.ts): regions and
 * sizes, servers created once per key, found by key and id, resized, powered, measured and deleted.
 * Each case creates what it needs under a fresh key, so cases stand alone against a vendor that keeps state.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudDriver, ServerDesired, ServerObserved } from './contract.js';
import { UnsupportedError } from './errors.js';
import { contractKey, waitUntil, type ContractTiming } from './waiting.contract.js';

export interface CloudDriverFixture {
  driver: CloudDriver;
  /** Called after the contract closed the driver: releases whatever else the factory made. */
  cleanup(): Promise<void>;
}

/** Each field's JSON type (`array` for arrays), so a shape check says which field is wrong. */
function typesOf(value: object): Record<string, string> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v]));
}

export function runCloudDriverContract(name: string, makeDriver: () => Promise<CloudDriverFixture>, timing: ContractTiming = {}): void {
  const settleMs = timing.settleTimeoutMs ?? 10_000;

  describe(`${name}: cloud driver contract`, () => {
    let fixture: CloudDriverFixture;
    let driver: CloudDriver;
    let region: string;
    let sizesInRegion: string[];
    const created: string[] = [];

    beforeAll(async () => {
      fixture = await makeDriver();
      driver = fixture.driver;
      const [regions, sizes] = await Promise.all([driver.regions(), driver.sizes()]);
      const usable = regions.filter((r) => r.available && sizes.some((s) => s.regions.includes(r.slug)));
      if (!usable[0]) throw new Error(`${name}: no available region has a size`);
      region = usable[0].slug;
      sizesInRegion = sizes.filter((s) => s.regions.includes(region)).map((s) => s.slug);
    });

    afterAll(async () => {
      if (!fixture) return;
      await Promise.allSettled(created.map((id) => driver.servers.delete(id)));
      await fixture.driver.close();
      await fixture.cleanup();
    });

    function desired(label: string, size = sizesInRegion[0] ?? ''): ServerDesired {
      return { name: `contract-${label}`, region, size, image: 'debian-12' };
    }

    async function createServer(label: string): Promise<{ key: string; server: ServerObserved }> {
      const key = contractKey(label);
      const server = await driver.servers.create(key, desired(label));
      created.push(server.id);
      return { key, server };
    }

    function settled(id: string, status: string): Promise<ServerObserved | null> {
      return waitUntil(() => driver.servers.observe({ key: '', externalId: id }), (s) => s?.status === status, settleMs, `server ${id} to be ${status}`);
    }

    it('names its vendor and lists regions and sizes in the documented shape', async () => {
      expect(driver.vendor).toMatch(/^[a-z0-9-]+$/);
      const regions = await driver.regions();
      expect(regions.length).toBeGreaterThan(0);
      for (const r of regions) expect(typesOf(r)).toEqual({ slug: 'string', name: 'string', available: 'boolean' });
      const sizes = await driver.sizes();
      expect(sizes.length).toBeGreaterThan(0);
      for (const s of sizes) {
        expect(typesOf(s)).toEqual({ slug: 'string', vcpus: 'number', memoryMb: 'number', diskGb: 'number', priceMonthly: 'number', regions: 'array' });
        expect(s.regions.every((r) => typeof r === 'string')).toBe(true);
      }
    });

    it('observes an unknown key as null', async () => {
      expect(await driver.servers.observe({ key: contractKey('unknown') })).toBeNull();
    });

    it('creates a server that observe finds by key, by id, and by key when the id is gone', async () => {
      const { key, server } = await createServer('create');
      expect(server).toMatchObject({ name: 'contract-create', clientToken: key, region, size: sizesInRegion[0] });
      expect(server.id).not.toBe('');
      expect((await driver.servers.observe({ key }))?.id).toBe(server.id);
      expect((await driver.servers.observe({ key: contractKey('other'), externalId: server.id }))?.id).toBe(server.id);
      expect((await driver.servers.observe({ key, externalId: `gone-${randomUUID()}` }))?.id).toBe(server.id);
    });

    it('returns the first server when created again with the same key', async () => {
      const { key, server } = await createServer('twice');
      const again = await driver.servers.create(key, desired('twice'));
      expect(again.id).toBe(server.id);
      expect((await driver.servers.observe({ key }))?.id).toBe(server.id);
    });

    it(timing.noResizeInPlace ? 'refuses a resize it cannot make in place, changing nothing' : 'resizes a server in place', async () => {
      const { key, server } = await createServer('resize');
      const target = sizesInRegion[1] ?? sizesInRegion[0] ?? '';
      if (timing.noResizeInPlace) {
        await expect(driver.servers.update(server.id, desired('resize', target))).rejects.toBeInstanceOf(UnsupportedError);
        expect((await driver.servers.observe({ key, externalId: server.id }))?.size).toBe(sizesInRegion[0]);
        return;
      }
      const updated = await driver.servers.update(server.id, desired('resize', target));
      expect(updated).toMatchObject({ id: server.id, size: target });
      expect((await driver.servers.observe({ key, externalId: server.id }))?.size).toBe(target);
    });

    it('powers a server off and on', async () => {
      const { server } = await createServer('power');
      await settled(server.id, 'running');
      expect((await driver.power(server.id, 'power_off')).id).toBe(server.id);
      await settled(server.id, 'stopped');
      await driver.power(server.id, 'power_on');
      await settled(server.id, 'running');
    });

    it('reads metrics of a server, or says why its vendor cannot', async () => {
      const { server } = await createServer('metrics');
      await settled(server.id, 'running');
      if (driver.metricsUnsupported !== undefined) {
        expect(driver.metricsUnsupported).not.toBe('');
        await expect(driver.metrics(server.id)).rejects.toBeInstanceOf(UnsupportedError);
        return;
      }
      const metrics = await driver.metrics(server.id);
      for (const value of [metrics.cpuPercent, metrics.memoryPercent, metrics.diskPercent]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(100);
      }
      expect(Number.isNaN(Date.parse(metrics.sampledAt))).toBe(false);
      expect(Array.isArray(metrics.series)).toBe(true);
    });

    it('accepts its credentials', async () => {
      const test = await driver.testCredentials();
      expect(test.ok).toBe(true);
      expect(test.message).not.toBe('');
    });

    it('deletes idempotently; the server is gone afterwards', async () => {
      const { key, server } = await createServer('delete');
      await driver.servers.delete(server.id);
      await driver.servers.delete(server.id);
      expect(await driver.servers.observe({ key, externalId: server.id })).toBeNull();
    });
  });
}
