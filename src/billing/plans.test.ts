/** @module Tests of the plans: defaults, a plans file laid over them, and a bad file refused naming file, line and field. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, loadPlans, parsePlansText, PLANS_FILE, PlansFileError } from './plans.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-plans-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('plans', () => {
  it('are the defaults without a plans file: free small with no trial, paid plans larger with 7 days', () => {
    const plans = loadPlans(dir);
    expect(plans).toEqual(DEFAULT_PLANS);
    expect(plans.free).toMatchObject({ trialDays: 0, priceMonthlyCents: 0, limits: { servers: 2, databases: 1, apps: 2 } });
    expect(plans.pro.trialDays).toBe(7);
    expect(plans.business.trialDays).toBe(7);
    expect(plans.pro.limits.servers).toBeGreaterThan(plans.free.limits.servers);
  });

  it('take amounts and limits from billing-plans.yaml over the defaults', () => {
    writeFileSync(join(dir, PLANS_FILE), 'plans:\n  pro:\n    price_monthly_cents: 3900\n    currency: EUR\n    limits: { servers: 20 }\n');
    const plans = loadPlans(dir);
    expect(plans.pro).toMatchObject({ priceMonthlyCents: 3900, currency: 'eur', limits: { servers: 20, databases: 5, apps: 10 } });
    expect(plans.business).toEqual(DEFAULT_PLANS.business);
  });

  it.each([
    ['plans:\n  pro:\n    price_monthly_cents: lots\n', 3, 'plans.pro.price_monthly_cents must be a whole number of cents, 0 or more, got "lots"'],
    ['plans:\n  gold:\n    name: Gold\n', 2, 'plans.gold is not a plan; the plans are free, pro, business'],
    ['plans:\n  free:\n    limits:\n      servers: -1\n', 4, 'plans.free.limits.servers must be a whole number, 0 or more, got -1'],
    ['plans:\n  business:\n    limits:\n      gpus: 3\n', 4, 'plans.business.limits.gpus is not a limit'],
    ['plans:\n  pro:\n    colour: red\n', 3, 'plans.pro.colour is not a plan field'],
    ['plans:\n  free:\n    price_monthly_cents: 100\n', 3, 'plans.free.price_monthly_cents must be 0'],
    ['plans: [\n', 2, 'not valid YAML'],
  ])('refuse a bad file naming the file, the line and the field (%#)', (text, line, message) => {
    const file = join(dir, PLANS_FILE);
    writeFileSync(file, text);
    expect(() => loadPlans(dir)).toThrow(PlansFileError);
    expect(() => loadPlans(dir)).toThrow(`${file} line ${line}: `);
    expect(() => parsePlansText(text, file)).toThrow(message);
  });
});

describe('the YAML parser', () => {
  /** Whether opening a store with billing on, then loading its plans, loads `yaml` in a fresh Node process. */
  function yamlLoadedAfterLoadingPlans(dataDir: string): boolean {
    const script = `
      import { createRequire } from 'node:module';
      const { Store } = await import(${JSON.stringify(new URL('../store/store.ts', import.meta.url).href)});
      const { loadPlans } = await import(${JSON.stringify(new URL('./plans.ts', import.meta.url).href)});
      Store.open(${JSON.stringify(dataDir)}, { env: { CAIRN_STRIPE_SECRET_KEY: 'sk_test_start' } }).close();
      loadPlans(${JSON.stringify(dataDir)});
      console.log(Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/yaml/')));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    return child.stdout.trim() === 'true';
  }

  it('is not loaded by a store (every command pays for what it loads) when there is no plans file', () => {
    expect(yamlLoadedAfterLoadingPlans(dir)).toBe(false);
  });

  it('is loaded to read a plans file', () => {
    writeFileSync(join(dir, PLANS_FILE), 'plans:\n  pro: { price_monthly_cents: 3900 }\n');
    expect(yamlLoadedAfterLoadingPlans(dir)).toBe(true);
  });
});
