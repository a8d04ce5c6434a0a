/**
 * @module A database's backups, each completed one restorable (confirmed first).
 */
import type { JSX } from 'preact';
import { api } from '../api';
import { useFetched } from '../fetched';
import type { LiveRecord } from '../live';
import { useLiveVersion } from '../live-version';
import { ConfirmButton, ErrorNote, Section, StatusBadge, timeAgo } from '../widgets-common';

interface Backup {
  id: string;
  status: string;
  kind: string;
  size_bytes: number | null;
  created_at: string;
}

export function DatabasePanes(props: { record: LiveRecord; canAct: boolean }): JSX.Element {
  const version = useLiveVersion();
  const backups = useFetched(() => api<{ items: Backup[] }>('GET', `/databases/${props.record.id}/backups?limit=20`), [props.record.id, version]);
  const items = backups.data?.items ?? [];
  return (
    <Section title="Backups">
      {items.length === 0 && <p>No backups yet.</p>}
      <ul>
        {items.map((b) => (
          <li key={b.id}>
            <StatusBadge status={b.status} /> {b.kind} <span class="muted">{timeAgo(b.created_at)}{b.size_bytes !== null ? `, ${Math.round(b.size_bytes / 1024)} KiB` : ''}</span>{' '}
            {props.canAct && b.status === 'completed' && (
              <ConfirmButton label="Restore" danger question={`Restore database ${props.record.name} from this backup? What was written since is lost.`}
                run={() => api('POST', `/databases/${props.record.id}/backups/${b.id}/restore`, {})} />
            )}
          </li>
        ))}
      </ul>
      <ErrorNote error={backups.error} />
    </Section>
  );
}
