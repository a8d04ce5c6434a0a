/**
 * @module Pieces every page uses: a status shown as its word (with a colour as a second cue,
 * never the only one), an action button that asks for confirmation in a modal dialog, and a
 * note for errors that screen readers announce.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { errorText } from './api';

const TONES: Record<string, string> = {
  ready: 'good', running: 'good', available: 'good', succeeded: 'good', active: 'good', resolved: 'good', completed: 'good',
  failed: 'bad', error: 'bad', firing: 'bad', degraded: 'bad',
  stopped: 'idle', untested: 'idle', suspended: 'idle',
};

export function StatusBadge(props: { status: string }): JSX.Element {
  const word = props.status || 'unknown';
  return <span class={`status status-${TONES[word.toLowerCase()] ?? 'busy'}`}>{word}</span>;
}

export function ErrorNote(props: { error: unknown }): JSX.Element | null {
  if (props.error === undefined || props.error === null) return null;
  return <p class="error" role="alert">{errorText(props.error)}</p>;
}

/** A button that opens a confirmation dialog; `run` goes only after "Yes". */
export function ConfirmButton(props: { label: string; question: string; run: () => Promise<unknown>; danger?: boolean; children?: ComponentChildren }): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const confirm = async (): Promise<void> => {
    dialog.current?.close();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await props.run();
      setDone(`${props.label}: requested`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={props.danger ? 'danger' : ''} disabled={busy} onClick={() => dialog.current?.showModal()}>{props.label}</button>
      <dialog ref={dialog} aria-label={`Confirm ${props.label}`}>
        <p>{props.question}</p>
        {props.children}
        <div class="dialog-buttons">
          <button type="button" onClick={() => void confirm()}>Yes, {props.label.toLowerCase()}</button>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>Cancel</button>
        </div>
      </dialog>
      {done && <span class="done" role="status">{done}</span>}
      <ErrorNote error={error} />
    </span>
  );
}

export function Section(props: { title: string; children: ComponentChildren; id?: string }): JSX.Element {
  const id = props.id ?? `section-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section class="card" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function timeAgo(iso: string | null | undefined): string {
  if (!iso) return '';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
