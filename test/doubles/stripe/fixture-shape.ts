/**
 * @module Checks that an object of the Stripe double is shaped like Stripe's: against the
 * canonical fixture of its type (fixtures3.json: no field that neither the fixture nor the SDK's
 * newer type declares; `id`, `object`,
 * `created`, `livemode` of the fixture's types; a non-null field of the same JSON type as the
 * fixture's) and against the installed SDK's TypeScript interface (every field it requires is
 * present, and null only where the type allows null).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';

const FIXTURES_FILE = '/work/shared/vendor-apis/stripe/fixtures3.json';

/** Where each fixture's type is declared in the SDK: `resources/<file>.d.ts`, `export interface <name>`. */
const SDK_INTERFACES: Record<string, { file: string; name: string }> = {
  customer: { file: 'Customers', name: 'Customer' },
  price: { file: 'Prices', name: 'Price' },
  'checkout.session': { file: 'Checkout/Sessions', name: 'Session' },
  'billing_portal.session': { file: 'BillingPortal/Sessions', name: 'Session' },
  subscription: { file: 'Subscriptions', name: 'Subscription' },
  subscription_item: { file: 'SubscriptionItems', name: 'SubscriptionItem' },
  invoice: { file: 'Invoices', name: 'Invoice' },
  line_item: { file: 'InvoiceLineItems', name: 'InvoiceLineItem' },
  event: { file: 'Events', name: 'EventBase' },
};

export interface SdkField {
  name: string;
  optional: boolean;
  nullable: boolean;
}

let fixtures: Record<string, Record<string, unknown>> | undefined;

export function stripeFixture(name: string): Record<string, unknown> {
  fixtures ??= (JSON.parse(readFileSync(FIXTURES_FILE, 'utf8')) as { resources: Record<string, Record<string, unknown>> }).resources;
  const fixture = fixtures[name];
  if (!fixture) throw new Error(`fixtures3.json has no resource '${name}'`);
  return fixture;
}

function sdkResourcesDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('stripe')), '..', 'esm', 'resources');
}

/** The top-level fields of the SDK's interface for `fixtureName`, read from its declaration file. */
export function sdkFields(fixtureName: string): SdkField[] {
  const where = SDK_INTERFACES[fixtureName];
  if (!where) throw new Error(`no SDK interface is mapped for '${fixtureName}'`);
  const lines = readFileSync(join(sdkResourcesDir(), `${where.file}.d.ts`), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith(`export interface ${where.name} {`) || line.startsWith(`export interface ${where.name} extends`));
  if (start < 0) throw new Error(`${where.file}.d.ts declares no interface ${where.name}`);
  const fields: SdkField[] = [];
  for (let i = start + 1; i < lines.length && !lines[i]?.startsWith('}'); i++) {
    const match = /^ {4}(\w+)(\?)?: (.*)$/.exec(lines[i] ?? '');
    if (!match) continue;
    let type = match[3] ?? '';
    for (let j = i + 1; !type.trimEnd().endsWith(';') && j < lines.length; j++) type += ` ${lines[j]?.trim() ?? ''}`;
    fields.push({ name: match[1] ?? '', optional: match[2] === '?', nullable: /\|\s*null\b/.test(type) });
  }
  if (fields.length === 0) throw new Error(`read no fields of interface ${where.name} in ${where.file}.d.ts: has the SDK's declaration format changed?`);
  return fields;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Fails the test naming every field of `object` that is not shaped like Stripe's `fixtureName`. */
export function expectShapedLike(object: unknown, fixtureName: string): void {
  const fixture = stripeFixture(fixtureName);
  const record = object as Record<string, unknown>;
  const problems: string[] = [];
  const declared = sdkFields(fixtureName);
  for (const [field, value] of Object.entries(record)) {
    // The SDK (API 2026-10) is newer than the fixtures and requires a few fields they lack.
    if (!(field in fixture) && !declared.some((sdk) => sdk.name === field && !sdk.optional)) problems.push(`${field}: not a field of the ${fixtureName} fixture`);
    else if (value !== null && fixture[field] !== null && jsonType(value) !== jsonType(fixture[field])) {
      problems.push(`${field}: ${jsonType(value)} where the fixture has ${jsonType(fixture[field])}`);
    }
  }
  for (const field of ['id', 'object', 'created', 'livemode']) {
    if (jsonType(record[field]) !== jsonType(fixture[field])) problems.push(`${field}: ${jsonType(record[field])} where the fixture has ${jsonType(fixture[field])}`);
  }
  if (record.object !== fixture.object) problems.push(`object: '${String(record.object)}', not '${String(fixture.object)}'`);
  for (const field of declared) {
    if (!field.optional && !(field.name in record)) problems.push(`${field.name}: required by the SDK's type, missing`);
    if (!field.nullable && field.name in record && record[field.name] === null) problems.push(`${field.name}: null, which the SDK's type does not allow`);
  }
  expect(problems.length, `${fixtureName} ${String(record.id)} is not shaped like Stripe's:\n  ${problems.join('\n  ')}`).toBe(0);
}
