/**
 * @module Plans: paste or upload manifests (YAML), see what applying them would change
 * (`POST /manifests?dry_run=true`: each change with its field diff), then apply them, confirmed.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { canAct, useMe } from '../me';
import { ConfirmButton, ErrorNote, Section } from '../widgets-common';

interface PlanChange {
  action: string;
  kind: string;
  name: string;
  namespace: string;
  diff: Array<{ path: string; before: unknown; after: unknown; forces_replacement: boolean; sensitive: boolean }>;
  replacement_reasons: string[];
}

interface Plan {
  changes: PlanChange[];
  summary: Record<string, number>;
}

const show = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

function PlanView(props: { plan: Plan }): JSX.Element {
  const summary = Object.entries(props.plan.summary).filter(([, n]) => n > 0).map(([action, n]) => `${n} to ${action}`).join(', ');
  return (
    <>
      <p role="status"><strong>Plan:</strong> {summary || 'nothing to change'}</p>
      <ul class="plan">
        {props.plan.changes.filter((c) => c.action !== 'noop').map((c) => (
          <li key={`${c.kind}/${c.namespace}/${c.name}`} class={`plan-${c.action}`}>
            <strong>{c.action}</strong> {c.kind}/{c.name}
            {c.replacement_reasons.length > 0 && <span class="muted"> ({c.replacement_reasons.join('; ')})</span>}
            {c.diff.length > 0 && (
              <table class="diff">
                <thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
                <tbody>
                  {c.diff.map((d) => (
                    <tr key={d.path}><th scope="row">{d.path}{d.forces_replacement ? ' (replaces)' : ''}</th><td><del>{show(d.before)}</del></td><td><ins>{show(d.after)}</ins></td></tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Plans(): JSX.Element {
  const me = useMe();
  const [yaml, setYaml] = useState('');
  const [plan, setPlan] = useState<Plan | undefined>(undefined);
  const [planned, setPlanned] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [applied, setApplied] = useState<string | undefined>(undefined);

  const makePlan = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setApplied(undefined);
    try {
      setPlan(await api<Plan>('POST', '/manifests?dry_run=true', yaml, 'application/yaml'));
      setPlanned(yaml);
    } catch (e) {
      setPlan(undefined);
      setError(e);
    }
  };
  const upload = async (files: FileList | null): Promise<void> => {
    const texts = await Promise.all([...(files ?? [])].map((f) => f.text()));
    setYaml(texts.join('\n---\n'));
    setPlan(undefined);
  };
  const apply = async (): Promise<void> => {
    const result = await api<{ applied: Array<{ kind: string; name: string; action: string }> }>('POST', '/manifests', planned, 'application/yaml');
    setApplied(result.applied.map((a) => `${a.kind}/${a.name}: ${a.action}`).join(', '));
    setPlan(undefined);
  };

  return (
    <main id="main">
      <h1>Plans</h1>
      <Section title="Manifests">
        <form onSubmit={(e) => void makePlan(e)}>
          <label for="manifests">Paste cairn.dev/v1 manifests (YAML, several separated by ---)</label>
          <textarea id="manifests" rows={14} spellcheck={false} value={yaml} onInput={(e) => { setYaml(e.currentTarget.value); setPlan(undefined); }} />
          <label for="manifest-files">or upload files</label>
          <input id="manifest-files" type="file" accept=".yaml,.yml,application/yaml" multiple onChange={(e) => void upload(e.currentTarget.files)} />
          <div><button type="submit" disabled={yaml.trim() === ''}>Plan</button></div>
        </form>
        <ErrorNote error={error} />
      </Section>
      {plan && (
        <Section title="What would change">
          <PlanView plan={plan} />
          {canAct(me) && plan.changes.some((c) => c.action !== 'noop') && (
            <ConfirmButton label="Apply" question="Apply these manifests? The reconciler then makes the changes above." run={apply} />
          )}
        </Section>
      )}
      {applied && <p role="status" class="done">Applied: {applied}</p>}
    </main>
  );
}
