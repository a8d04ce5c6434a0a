/**
 * @module What the dashboard shows of each collection: its title, the columns of its list, and
 * the actions its detail page offers (each one a POST, confirmed first).
 */
import { api } from './api';
import type { Collection, LiveRecord } from './live';

export interface Column {
  label: string;
  value: (r: LiveRecord) => string;
}

export interface ResourceAction {
  label: string;
  question: (r: LiveRecord) => string;
  run: (r: LiveRecord) => Promise<unknown>;
  danger?: boolean;
}

export interface KindView {
  title: string;
  singular: string;
  columns: Column[];
  actions: ResourceAction[];
}

const text = (field: string) => (r: LiveRecord): string => {
  const value = r[field];
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
};

const post = (path: (r: LiveRecord) => string) => (r: LiveRecord): Promise<unknown> => api('POST', path(r), {});

export const KIND_VIEWS: Record<Collection, KindView> = {
  providers: {
    title: 'Providers', singular: 'provider',
    columns: [{ label: 'Vendor', value: text('vendor') }],
    actions: [{ label: 'Test credentials', question: (r) => `Test the credentials of provider ${r.name} at its vendor?`, run: post((r) => `/providers/${r.id}/test`) }],
  },
  servers: {
    title: 'Servers', singular: 'server',
    columns: [{ label: 'Region', value: text('region') }, { label: 'Size', value: text('size') }, { label: 'Power', value: text('power') }, { label: 'IPv4', value: text('ipv4') }],
    actions: [
      { label: 'Start', question: (r) => `Start server ${r.name}?`, run: post((r) => `/servers/${r.id}/start`) },
      { label: 'Stop', question: (r) => `Stop server ${r.name}? Its databases and apps stop with it.`, run: post((r) => `/servers/${r.id}/stop`), danger: true },
      { label: 'Reboot', question: (r) => `Reboot server ${r.name}?`, run: post((r) => `/servers/${r.id}/reboot`), danger: true },
    ],
  },
  databases: {
    title: 'Databases', singular: 'database',
    columns: [{ label: 'Type', value: text('type') }, { label: 'Version', value: text('version') }, { label: 'Host', value: text('host') }],
    actions: [
      { label: 'Back up', question: (r) => `Back up database ${r.name} now?`, run: post((r) => `/databases/${r.id}/backups`) },
      { label: 'Rotate credentials', question: (r) => `Rotate the credentials of database ${r.name}? Apps using it get the new ones.`, run: post((r) => `/databases/${r.id}/credentials/rotate`), danger: true },
    ],
  },
  apps: {
    title: 'Apps', singular: 'app',
    columns: [{ label: 'URL', value: text('url') }],
    actions: [
      { label: 'Deploy', question: (r) => `Deploy app ${r.name} again?`, run: post((r) => `/apps/${r.id}/deploy`) },
      { label: 'Start', question: (r) => `Start app ${r.name}?`, run: post((r) => `/apps/${r.id}/start`) },
      { label: 'Stop', question: (r) => `Stop app ${r.name}?`, run: post((r) => `/apps/${r.id}/stop`), danger: true },
    ],
  },
  sources: {
    title: 'Git sources', singular: 'git source',
    columns: [{ label: 'URL', value: text('url') }, { label: 'Revision', value: text('revision') }],
    actions: [{ label: 'Sync', question: (r) => `Fetch and apply git source ${r.name} now?`, run: post((r) => `/sources/${r.id}/sync`) }],
  },
};
