/** @module Tests of which event-log entries are webhook events, and of the body each is sent as. */
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../store/events.js';
import { mapEvent, webhookEventOf, WEBHOOK_EVENTS } from './event-mapping.js';

const event = (reason: string, kind: RecordedEvent['kind'] = 'Server'): RecordedEvent => ({
  id: 7, tenant: 't', uid: 'u-1', kind, namespace: 'default', name: 'web', type: 'Normal', reason, message: `${reason} happened`,
  createdAt: '2026-11-26T18:00:00.000Z', count: 1, lastSeenAt: '2026-11-26T18:00:00.000Z',
});

describe('event mapping', () => {
  it('names the reasons of creation, readiness, failure, deletion, deployments and backups, and nothing else', () => {
    expect(['Created', 'Ready', 'Failed', 'Deleted', 'Orphaned', 'DeploymentSucceeded', 'DeploymentFailed', 'BackupCompleted', 'BackupFailed']
      .map((reason) => webhookEventOf({ reason }))).toEqual([
      'resource.created', 'resource.ready', 'resource.failed', 'resource.deleted', 'resource.deleted',
      'deployment.succeeded', 'deployment.failed', 'backup.completed', 'backup.failed',
    ]);
    for (const reason of ['Creating', 'Updated', 'DriftDetected', 'BackupStarted', 'DeploymentRequested', 'ProviderError', 'constructor', 'toString']) {
      expect(webhookEventOf({ reason })).toBeUndefined();
    }
    expect(new Set(['Created', 'Ready', 'Failed', 'Deleted', 'DeploymentSucceeded', 'DeploymentFailed', 'BackupCompleted', 'BackupFailed']
      .map((reason) => webhookEventOf({ reason })))).toEqual(new Set(WEBHOOK_EVENTS));
  });

  it('sends {id, event, occurred_at, resource, detail} with the delivery id and the event as recorded', () => {
    const mapped = mapEvent(event('BackupCompleted', 'Database'));
    expect(mapped?.name).toBe('backup.completed');
    expect(JSON.parse(mapped!.body('d-1'))).toEqual({
      id: 'd-1', event: 'backup.completed', occurred_at: '2026-11-26T18:00:00.000Z',
      resource: { kind: 'Database', id: 'u-1', name: 'web', namespace: 'default' },
      detail: { reason: 'BackupCompleted', type: 'Normal', message: 'BackupCompleted happened' },
    });
    expect(mapEvent(event('Updated'))).toBeUndefined();
  });
});
