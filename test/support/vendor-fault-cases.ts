/**
 * @module The fault cases every cloud vendor's driver runs against its double: 30% of requests
 * failing with 5xx (reads are sent again by the kit; a create that failed is asked again under
 * the same key and never makes a second server; calls stay bounded), and the rate budget (once
 * the vendor has said what is left, a burst of calls draws no 429; before it has, every call
 * still lands after waiting out the 429s).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CloudDriver, ServerDesired } from '../../src/drivers/contract.js';
import { VendorUnavailableError } from '../../src/drivers/errors.js';
import type { DoubleCall } from './vendor-double.js';

export interface FaultDouble {
  url: string;
  calls: DoubleCall[];
  setFaultRatio(ratio: number, seed?: number): void;
  /** The names of the servers the double holds. */
  names(): string[];
}

export interface VendorFaultCases {
  vendor: string;
  /** A double, with a rate limit when asked. */
  start(rateLimit?: { limit: number; windowMs: number }): Promise<FaultDouble>;
  driver(url: string): Promise<CloudDriver>;
  desired: ServerDesired;
  /** Calls one observe by key makes when nothing is found (Scaleway lists zone by zone: one per zone). Default 1; the storm cases scale the double's limit by it, so calls stay in the same ratio to the limit as for every vendor. */
  observeCalls?: number;
  /** Calls a driver makes once, before its first observe by key, besides `observeCalls` (Tencent reads its list of regions to look through). Default 0. */
  onceCalls?: number;
  /**
   * The status of a call that landed when an observe by key finds nothing: 200 (an empty list)
   * by default; 404 where the key names the thing itself (Azure GETs the VM's deterministic name).
   */
  observeNothingStatus?: number;
}

export function describeVendorFaultCases(cases: VendorFaultCases): void {
  describe(`${cases.vendor} driver under faults`, () => {
    it('converges through 30% vendor faults: reads are sent again, a failed create is asked again under the same key', async () => {
      const d = await cases.start();
      d.setFaultRatio(0.3, 7);
      const driver = await cases.driver(d.url);
      expect((await driver.regions()).length).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) {
        let created = false;
        for (let attempt = 0; attempt < 10 && !created; attempt++) {
          created = await driver.servers.create(`cairn-faults-${i}`, { ...cases.desired, name: `faults-${i}` }).then(() => true, (error: unknown) => {
            if (!(error instanceof VendorUnavailableError)) throw error;
            return false;
          });
        }
        expect(created).toBe(true);
      }
      expect(d.names().sort()).toEqual(['faults-0', 'faults-1', 'faults-2', 'faults-3', 'faults-4']);
      expect(d.calls.length, 'calls for 5 servers and the catalog').toBeLessThan(60);
    });

  });

  // The budget cases keep to each vendor's published rate, as in production (the tests'
  // CAIRN_VENDOR_RATE_SCALE is for the other cases): what is tested is the budget itself.
  describe(`${cases.vendor} driver's budget, at its published rate`, () => {
    beforeEach(() => {
      vi.stubEnv('CAIRN_VENDOR_RATE_SCALE', '1');
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('keeps to the budget once the vendor has said what is left: a burst of calls all land, none refused', async () => {
      const d = await cases.start({ limit: 5 * (cases.observeCalls ?? 1), windowMs: 1000 });
      const driver = await cases.driver(d.url);
      expect(await driver.servers.observe({ key: 'cairn-storm-first' })).toBeNull();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => driver.servers.observe({ key: `cairn-storm-${i}` })));
      expect(results.every((r) => r === null)).toBe(true);
      expect(d.calls.filter((c) => c.status === 429), `of ${d.calls.length} calls`).toEqual([]);
    }, 30_000);

    it('waits out 429s when it had no word from the vendor yet: every call lands', async () => {
      const d = await cases.start({ limit: 5 * (cases.observeCalls ?? 1), windowMs: 1000 });
      const driver = await cases.driver(d.url);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => driver.servers.observe({ key: `cairn-storm-${i}` })));
      expect(results.every((r) => r === null)).toBe(true);
      const nothingFound = cases.observeNothingStatus ?? 200;
      const onceCalls = nothingFound === 200 ? (cases.onceCalls ?? 0) : 0;
      expect(d.calls.filter((c) => c.status === nothingFound)).toHaveLength(10 * (cases.observeCalls ?? 1) + onceCalls);
    }, 30_000);
  });
}
