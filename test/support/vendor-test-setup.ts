/**
 * @module What every vendor driver test sets up: a driver config pointing the vendor at its
 * double on loopback, and doubles started per case, each stopped at the end after the test
 * file expects that no request or answer broke the vendor's document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';

interface Stoppable {
  violations: string[];
  stop(): Promise<void>;
}

export interface VendorTestSetup<D, O> {
  token: string;
  /** A driver config for the vendor at `url` (the double), with the test token. */
  config: (url: string, overrides?: Partial<DriverConfig>) => DriverConfig;
  /** Starts a double, stopped (and checked) after the file's tests. */
  double: (options?: O) => Promise<D>;
}

export function vendorTestSetup<D extends Stoppable, O>(vendor: string, title: string, start: (options: O & { token: string }) => Promise<D>): VendorTestSetup<D, O> {
  const master = generateMasterKey();
  const token = `${vendor}-test-token`;
  const dataDir = mkdtempSync(join(tmpdir(), `cairn-${vendor}-`));
  const doubles: D[] = [];
  afterAll(async () => {
    for (const d of doubles) {
      expect(d.violations, `requests or answers outside ${title}’s document`).toEqual([]);
      await d.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    token,
    config: (url, overrides = {}) => ({
      providerName: vendor, spec: { vendor, endpoint: url }, credentials: { token }, dataDir, requestTimeoutMs: 5_000,
      dataKeys: keyringDataKeys({ active: master, keys: [master] }), ...overrides,
    }),
    double: async (options) => {
      const started = await start({ ...(options as O), token });
      doubles.push(started);
      return started;
    },
  };
}
