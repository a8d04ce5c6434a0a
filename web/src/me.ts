/**
 * @module Who is signed in (`GET /auth/me`), fetched once per session: the role decides whether
 * action buttons are shown (the API refuses a viewer's actions anyway).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

export interface Me {
  user: { id: string; email: string } | null;
  tenant: { id: string; name: string };
  role: 'owner' | 'admin' | 'member' | 'viewer';
}

let cached: Promise<Me> | undefined;

export function forgetMe(): void {
  cached = undefined;
}

export function useMe(): Me | undefined {
  const [me, setMe] = useState<Me | undefined>(undefined);
  useEffect(() => {
    cached ??= api<Me>('GET', '/auth/me');
    cached.then(setMe).catch(() => {
      cached = undefined;
    });
  }, []);
  return me;
}

/** Whether this role may change things (members and above). */
export function canAct(me: Me | undefined): boolean {
  return me !== undefined && me.role !== 'viewer';
}
