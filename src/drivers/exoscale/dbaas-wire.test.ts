/**
 * @module Exoscale DBaaS answers read into cairn's types: every service state Exoscale's document
 * names mapped (a powered-off service an error saying so), cairn's `<name>@<zone>` ids parsed and
 * refused when malformed, and service names from keys kept within Exoscale's name rules.
 */
import { describe, expect, it } from 'vitest';
import { WireReader } from '../kit/wire-reader.js';
import { parseServiceId, readService, serviceIdOf, serviceNameFor } from './dbaas-wire.js';

const GIB = 1024 ** 3;
const answer = (state: string | undefined): WireReader =>
  WireReader.of({ name: 'cairn-0123', type: 'pg', plan: 'startup-4', version: '16.4', 'disk-size': 80 * GIB, uri: 'postgres://cairn@db.example:21699/defaultdb?sslmode=require', ...(state ? { state } : {}) }, 'test');

describe('exoscale dbaas wire format', () => {
  it('maps every state of the document: rebuilding creating, running and rebalancing available, poweroff an error saying so', () => {
    expect(readService(answer('rebuilding'), 'de-fra-1', 'k').status).toBe('creating');
    expect(readService(answer(undefined), 'de-fra-1', 'k').status).toBe('creating');
    expect(readService(answer('running'), 'de-fra-1', 'k')).toMatchObject({ status: 'available', id: 'cairn-0123@de-fra-1', version: '16', engineVersion: '16.4', storageGb: 80, host: 'db.example', port: 21699, size: 'startup-4' });
    expect(readService(answer('rebalancing'), 'de-fra-1', 'k').status).toBe('available');
    expect(readService(answer('poweroff'), 'de-fra-1', 'k')).toMatchObject({ status: 'error', message: 'Exoscale reports the service poweroff' });
  });

  it('parses cairn’s ids and refuses what is not one', () => {
    expect(parseServiceId(serviceIdOf('cairn-0123', 'ch-gva-2'))).toEqual({ name: 'cairn-0123', zone: 'ch-gva-2' });
    expect(parseServiceId('cairn-0123')).toBeUndefined();
    expect(parseServiceId('Bad_Name@ch-gva-2')).toBeUndefined();
    expect(parseServiceId('cairn-0123@nowhere')).toBeUndefined();
  });

  it('names services within Exoscale’s rules, whatever the key', () => {
    for (const key of ['', 'x', 'Tenant/Database:Ü', 'k'.repeat(500)]) expect(serviceNameFor(key)).toMatch(/^[a-z][a-z0-9-]{0,62}$/);
  });
});
