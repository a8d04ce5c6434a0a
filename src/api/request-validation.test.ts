/** @module Tests of request-body validation where a body has several shapes: only the shape its `type` names is checked, in words. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { validateBody } from './request-validation.js';

function issues(body: unknown): string[] {
  try {
    validateBody('post', '/deploy', body);
  } catch (error) {
    if (error instanceof ValidationError) return (error.issues ?? []).map((i) => `${i.pointer}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('POST /deploy bodies', () => {
  it('are checked against the one shape their type names, not against every shape', () => {
    expect(issues({ type: 'app', provider: 'sandbox', region: 'eu-1', size: 'small' })).toEqual(['/source: is required']);
    const database = issues({ type: 'database', provider: 'sandbox', server_id: 'web-1', engine: 'postgresql', version: '16' });
    expect(database).toContain('/server_id: must match format "uuid"');
    expect(database.join('\n')).not.toMatch(/\/source|must be "server"|must be "app"/);
  });

  it('without a known type say which types there are', () => {
    expect(issues({ provider: 'sandbox' })).toEqual(['/type: is required']);
    expect(issues({ type: 'cluster', provider: 'sandbox' })).toEqual(['/type: must be one of: server, database, app']);
  });

  it('that are not objects are refused, not let through', () => {
    for (const body of [null, 5, 'server', []]) expect(issues(body), JSON.stringify(body)).toHaveLength(1);
  });

  it('pass when they fit their shape', () => {
    expect(issues({ type: 'server', provider: 'sandbox', region: 'eu-1', size: 'small' })).toEqual([]);
  });
});
