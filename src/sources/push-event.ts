/**
 * @module What a verified push webhook says: which kind of event it is, the ref it pushed and
 * the commit the ref now points at, from GitHub (`X-GitHub-Event: push`, `ref`, `after`) or
 * GitLab (`X-Gitlab-Event: Push Hook`, `ref`, `checkout_sha`). The delivery's id (GitHub's
 * `X-GitHub-Delivery`, GitLab's `X-Gitlab-Event-UUID`) lets a replayed delivery be recognised.
 */

export type PushEvent =
  | { kind: 'ping'; deliveryId: string | undefined }
  | { kind: 'push'; branch: string | undefined; ref: string; commit: string | null; deliveryId: string | undefined }
  | { kind: 'other'; event: string; deliveryId: string | undefined };

const ZERO_COMMIT = /^0+$/;

/** Reads a push event from its headers and parsed JSON body; `reason` when the body is not a push it can read. */
export function readPushEvent(header: (name: string) => string | undefined, body: unknown): PushEvent | { reason: string } {
  const deliveryId = header('x-github-delivery') ?? header('x-gitlab-event-uuid');
  const event = header('x-github-event') ?? header('x-gitlab-event') ?? 'push';
  if (event === 'ping') return { kind: 'ping', deliveryId };
  if (event !== 'push' && event !== 'Push Hook') return { kind: 'other', event, deliveryId };
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const ref = fields.ref;
  if (typeof ref !== 'string' || ref === '') return { reason: 'the push event has no ref (a string like refs/heads/main)' };
  const pushed = typeof fields.checkout_sha === 'string' ? fields.checkout_sha : fields.after;
  const commit = typeof pushed === 'string' && /^[0-9a-f]{7,64}$/i.test(pushed) && !ZERO_COMMIT.test(pushed) ? pushed.toLowerCase() : null;
  const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
  return { kind: 'push', branch, ref, commit, deliveryId };
}

/** True when a push of `pushedRef` moves the App's `appRef` (a branch name, or a full `refs/...` name). */
export function pushMovesRef(pushedRef: string, appRef: string): boolean {
  return pushedRef === appRef || pushedRef === `refs/heads/${appRef}` || pushedRef === `refs/tags/${appRef}`;
}
