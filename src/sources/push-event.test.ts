/** @module Reading push events: GitHub's and GitLab's fields, pings, other events, deleted refs, and which refs a push moves. */
import { describe, expect, it } from 'vitest';
import { pushMovesRef, readPushEvent } from './push-event.js';

const headers = (h: Record<string, string>) => (name: string): string | undefined => h[name];
const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('readPushEvent', () => {
  it('reads GitHub pushes (ref, after, delivery) and pings', () => {
    expect(readPushEvent(headers({ 'x-github-event': 'push', 'x-github-delivery': 'd-1' }), { ref: 'refs/heads/main', after: SHA.toUpperCase() }))
      .toEqual({ kind: 'push', ref: 'refs/heads/main', branch: 'main', commit: SHA, deliveryId: 'd-1' });
    expect(readPushEvent(headers({ 'x-github-event': 'ping' }), { zen: 'hi' })).toEqual({ kind: 'ping', deliveryId: undefined });
    expect(readPushEvent(headers({ 'x-github-event': 'issues' }), {})).toMatchObject({ kind: 'other', event: 'issues' });
  });

  it('reads GitLab push hooks by checkout_sha', () => {
    expect(readPushEvent(headers({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u-1' }), { ref: 'refs/heads/dev', after: 'f'.repeat(40), checkout_sha: SHA }))
      .toEqual({ kind: 'push', ref: 'refs/heads/dev', branch: 'dev', commit: SHA, deliveryId: 'u-1' });
  });

  it('has no commit for a deleted ref, and refuses a push without a ref', () => {
    expect(readPushEvent(headers({ 'x-github-event': 'push' }), { ref: 'refs/heads/main', after: '0'.repeat(40) })).toMatchObject({ commit: null });
    expect(readPushEvent(headers({ 'x-github-event': 'push' }), { after: SHA })).toEqual({ reason: 'the push event has no ref (a string like refs/heads/main)' });
    expect(readPushEvent(headers({ 'x-github-event': 'push' }), 'text')).toHaveProperty('reason');
  });
});

describe('pushMovesRef', () => {
  it('matches a branch or tag by short or full name, and nothing else', () => {
    expect(pushMovesRef('refs/heads/main', 'main')).toBe(true);
    expect(pushMovesRef('refs/heads/main', 'refs/heads/main')).toBe(true);
    expect(pushMovesRef('refs/tags/v1', 'v1')).toBe(true);
    expect(pushMovesRef('refs/heads/feature', 'main')).toBe(false);
    expect(pushMovesRef('refs/heads/main-2', 'main')).toBe(false);
  });
});
