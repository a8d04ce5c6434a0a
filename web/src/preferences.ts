/**
 * @module The overview's widgets as the user arranged them, kept on the server
 * (`/me/preferences`), so they follow the user to another browser.
 */
import { api } from './api';

export const WIDGETS = [
  { id: 'status', title: 'Resources by status' },
  { id: 'failing', title: 'Failing resources' },
  { id: 'events', title: 'Recent events' },
  { id: 'deployments', title: 'Deployments' },
  { id: 'backups', title: 'Backups' },
  { id: 'alerts', title: 'Alerts' },
  { id: 'usage', title: 'Usage against the plan' },
] as const;

export type WidgetId = (typeof WIDGETS)[number]['id'];

export interface WidgetSetting {
  id: WidgetId;
  shown: boolean;
}

/** Saved settings merged with the widgets this dashboard has: unknown ones dropped, new ones shown at the end. */
export function arranged(saved: unknown): WidgetSetting[] {
  const list = (saved as { widgets?: unknown } | undefined)?.widgets;
  const known = new Set<string>(WIDGETS.map((w) => w.id));
  const kept = Array.isArray(list)
    ? (list as Array<{ id?: unknown; shown?: unknown }>).filter((w): w is WidgetSetting => typeof w.id === 'string' && known.has(w.id)).map((w) => ({ id: w.id, shown: w.shown !== false }))
    : [];
  const seen = new Set(kept.map((w) => w.id));
  return [...kept, ...WIDGETS.filter((w) => !seen.has(w.id)).map((w) => ({ id: w.id, shown: true }))];
}

export async function loadWidgets(): Promise<WidgetSetting[]> {
  return arranged(await api<unknown>('GET', '/me/preferences'));
}

export async function saveWidgets(widgets: WidgetSetting[]): Promise<void> {
  await api('PUT', '/me/preferences', { widgets });
}
