/**
 * @module A number that changes (at most once a second) whenever the live stream brings a
 * change: pages that read lists the watch does not carry (events, deployments, backups) read
 * them again on it.
 */
import { useEffect, useState } from 'preact/hooks';
import { COLLECTIONS, useLive } from './live';

export function useLiveVersion(): number {
  const fingerprint = COLLECTIONS.map((c) => useLive(c).map((r) => `${r.id}:${r.status}:${String(r.updated_at)}`).join(',')).join('|');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const timer = setTimeout(() => setVersion((v) => v + 1), 1000);
    return () => clearTimeout(timer);
  }, [fingerprint]);
  return version;
}
