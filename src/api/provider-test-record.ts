/**
 * @module What `POST /providers/{id}/test` leaves behind: the test's outcome becomes the
 * provider's status (valid or invalid, with `details.testedAt`), as the reconciler's own tests
 * do, and an event. The status is written on a fresh read through the compare-and-swap
 * (store/status-change.ts): the test took a vendor round trip, during which the reconciler may
 * have written, and neither write may be lost.
 */
import type { CredentialTest } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import { REASON_CREDENTIALS_INVALID, REASON_CREDENTIALS_VALID } from '../reconcile/reconcile-provider.js';
import { StatusDraft } from '../reconcile/status-draft.js';
import { writeStatusChange } from '../store/status-change.js';
import type { Store } from '../store/store.js';

export function recordCredentialTest(store: Pick<Store, 'resources' | 'events'>, provider: StoredResource<'Provider'>, test: CredentialTest, testedAt: string): void {
  const written = writeStatusChange(store.resources, provider.uid, (current) => {
    const draft = new StatusDraft(current);
    draft.setPhase(test.ok ? 'valid' : 'invalid');
    if (test.ok) draft.markReady(REASON_CREDENTIALS_VALID, test.message);
    else draft.setCondition('Ready', 'False', REASON_CREDENTIALS_INVALID, test.message);
    draft.status.details = { ...draft.status.details, testedAt };
    return draft.status;
  });
  if (!written) return; // deleted meanwhile: nothing to record
  store.events.append({
    tenant: provider.tenant, uid: provider.uid, kind: 'Provider', namespace: provider.namespace, name: provider.name,
    type: test.ok ? 'Normal' : 'Warning', reason: test.ok ? REASON_CREDENTIALS_VALID : REASON_CREDENTIALS_INVALID,
    message: `tested through the API: ${test.message}`,
  });
}
