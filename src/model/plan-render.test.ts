import { describe, expect, it } from 'vitest';
import type { Kind } from './kinds.js';
import { planChanges, type Plan, type PlanDesired, type PlanRecorded } from './plan.js';
import { MARKDOWN_COMMENT_LIMIT, planToApiJson, type PlanApiJson, renderPlanJson, renderPlanMarkdown, renderPlanText, shouldUseColor } from './plan-render.js';

const SECRET = 'hunter2-do-not-print';
const OLD_SECRET = 'old-hunter1';
const ESC = '\u001b[';

function desired(kind: Kind, name: string, spec: object, labels: Record<string, string> = {}): PlanDesired {
  return { kind, namespace: 'default', name, labels, annotations: {}, spec };
}

function recorded(d: PlanDesired): PlanRecorded {
  return { ...d, uid: `uid-${d.name}`, deleting: false };
}

const shop = (env: Record<string, string>, ref = 'main'): PlanDesired =>
  desired('App', 'shop', { server: 'web-1', source: { git: { url: 'https://git.example.com/shop.git', ref } }, env });

/** One of each action: create, update (size and a label), replace (region), update (app env, ref), delete, noop. */
function mixedPlan(): Plan {
  return planChanges(
    [
      desired('Server', 'web-1', { provider: 'sandbox', region: 'eu-1', size: 'small', image: 'debian-12' }),
      desired('Server', 'web-2', { provider: 'sandbox', region: 'eu-1', size: 'medium' }),
      desired('Server', 'web-3', { provider: 'sandbox', region: 'us-1', size: 'small' }),
      desired('Server', 'web-4', { provider: 'sandbox', region: 'eu-1', size: 'small' }),
      shop({ API_KEY: SECRET, DB_PASSWORD: SECRET }, 'v2'),
    ],
    [
      recorded(desired('Server', 'web-2', { provider: 'sandbox', region: 'eu-1', size: 'small' }, { team: 'shop' })),
      recorded(desired('Server', 'web-3', { provider: 'sandbox', region: 'eu-1', size: 'small' })),
      recorded(desired('Server', 'web-4', { provider: 'sandbox', region: 'eu-1', size: 'small' })),
      recorded(shop({ API_KEY: OLD_SECRET })),
      recorded(desired('Database', 'old-db', { type: 'postgresql', server: 'web-3', version: '16' })),
      recorded(desired('App', 'old-app', { server: 'web-3', source: { image: 'x' }, env: { TOKEN: SECRET } })),
    ],
  );
}

describe('renderPlanText', () => {
  const text = renderPlanText(mixedPlan(), { color: false });

  it('shows a header per change and terraform-like field lines', () => {
    expect(text).toContain('  + Server/web-1 will be created\n      + spec.image: "debian-12"\n');
    expect(text).toContain('  ~ Server/web-2 will be updated in-place\n      ~ spec.size: "small" → "medium"\n      - metadata.labels.team: "shop"\n');
    expect(text).toContain('-/+ Server/web-3 must be replaced\n      ~ spec.region: "eu-1" → "us-1"  # forces replacement\n');
    expect(text).toContain('      ~ spec.source.git.ref: "main" → "v2"\n');
    expect(text).toContain('      ~ spec.env.API_KEY: (sensitive) → (sensitive)\n');
    expect(text).toContain('      + spec.env.DB_PASSWORD: (sensitive)\n');
  });

  it('shows a delete as one line, hides noops unless asked, and ends with the summary', () => {
    expect(text).toContain('  - App/old-app will be deleted\n\n  - Database/old-db will be deleted\n');
    expect(text).not.toContain('spec.type');
    expect(text).not.toContain('web-4');
    expect(text.endsWith('Plan: 1 to create, 2 to update, 1 to replace, 2 to delete.\n')).toBe(true);
    expect(renderPlanText(mixedPlan(), { color: false, showNoop: true })).toContain('    Server/web-4 has no changes\n');
  });

  it('starts with a legend of the symbols used', () => {
    expect(text.startsWith('Resource actions are indicated with the following symbols:\n  + create\n  ~ update in-place\n-/+ delete and then create replacement\n  - delete\n')).toBe(true);
  });

  it('says there are no changes when nothing differs', () => {
    const same = desired('Server', 'web-1', { provider: 'sandbox', region: 'eu-1', size: 'small' });
    expect(renderPlanText(planChanges([same], [recorded(same)]), { color: false })).toBe('No changes. Your infrastructure matches the configuration.\n');
  });

  it('uses ANSI colour only when asked', () => {
    expect(text).not.toContain(ESC);
    const colored = renderPlanText(mixedPlan(), { color: true });
    expect(colored).toContain(`  ${ESC}32m+${ESC}0m ${ESC}1mServer/web-1${ESC}0m will be created`);
    expect(colored).toContain(`${ESC}31m-${ESC}0m/${ESC}32m+${ESC}0m`);
    expect(colored).toContain(`${ESC}33m~${ESC}0m spec.size`);
    expect(colored.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '')).toBe(text);
  });
});

describe('shouldUseColor', () => {
  it('follows NO_COLOR, then FORCE_COLOR, then the terminal', () => {
    expect(shouldUseColor({ isTTY: true }, {})).toBe(true);
    expect(shouldUseColor({ isTTY: false }, {})).toBe(false);
    expect(shouldUseColor({}, {})).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '' })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(true);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
    expect(shouldUseColor({ isTTY: false }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });
});

describe('renderPlanJson', () => {
  it('has API.md shape in snake_case, with absent values as null', () => {
    const json = JSON.parse(renderPlanJson(mixedPlan())) as PlanApiJson;
    expect(Object.keys(json)).toEqual(['format_version', 'changes', 'summary']);
    expect(json.format_version).toBe('1.0');
    expect(json.summary).toEqual({ create: 1, import: 0, update: 2, replace: 1, delete: 2, noop: 1 });
    const replaced = json.changes.find((c) => c.name === 'web-3');
    expect(replaced).toEqual({
      action: 'replace',
      kind: 'Server',
      namespace: 'default',
      name: 'web-3',
      uid: 'uid-web-3',
      diff: [{ path: 'spec.region', before: 'eu-1', after: 'us-1', forces_replacement: true, sensitive: false }],
      replacement_reasons: ['spec.region: changing the region replaces the server'],
    });
    const created = json.changes[0];
    expect(created).not.toHaveProperty('uid');
    expect(created!.diff[0]).toEqual({ path: 'spec.image', before: null, after: 'debian-12', forces_replacement: false, sensitive: false });
  });

  it('lists every resource, noops included, in execution order', () => {
    const json = planToApiJson(mixedPlan());
    expect(json.changes.map((c) => `${c.action} ${c.name}`)).toEqual([
      'create web-1', 'update web-2', 'replace web-3', 'noop web-4', 'update shop', 'delete old-app', 'delete old-db',
    ]);
  });

  it('is the same text for the same plan', () => {
    expect(renderPlanJson(mixedPlan())).toBe(renderPlanJson(mixedPlan()));
  });
});

describe('renderPlanMarkdown', () => {
  const markdown = renderPlanMarkdown(mixedPlan(), { title: 'Plan for main' });

  it('has a heading, the summary, a table and the text plan in a diff block', () => {
    expect(markdown.startsWith('### Plan for main\n\n**Plan: 1 to create, 2 to update, 1 to replace, 2 to delete.**\n')).toBe(true);
    expect(markdown).toContain('| Action | Kind | Namespace | Name | Changed fields |');
    expect(markdown).toContain('| -/+ replace | Server | default | web-3 | spec.region (forces replacement) |');
    expect(markdown).toContain('| ~ update | Server | default | web-2 | spec.size, metadata.labels.team |');
    expect(markdown).not.toContain('web-4');
    expect(markdown).toContain('<details>');
    expect(markdown).toContain('```diff\n+   Server/web-1 will be created\n+       spec.image: "debian-12"\n');
    expect(markdown).toContain('!       spec.size: "small" → "medium"\n-       metadata.labels.team: "shop"\n');
    expect(markdown).toContain('-/+ Server/web-3 must be replaced\n');
    expect(markdown).not.toContain(ESC);
  });

  it('escapes pipes and backticks in table cells, and fences values that hold backticks', () => {
    const web = desired('Server', 'web-1', { provider: 'sandbox', region: 'eu-1', size: 'small' });
    const labelled = { ...web, labels: { 'a|b': 'x', 'c`d': '```y' } };
    const md = renderPlanMarkdown(planChanges([labelled], [recorded(web)]));
    expect(md).toContain('metadata.labels\\["a\\|b"\\], metadata.labels\\["c\\`d"\\]');
    expect(md).toContain('````diff\n');
    expect(md).toContain('"```y"');
  });

  it('fits GitHub’s comment limit, saying how many changes were left out', () => {
    const many = Array.from({ length: 3_000 }, (_, i) => desired('Server', `web-${String(i).padStart(4, '0')}`, { provider: 'sandbox', region: 'eu-1', size: 'small', image: 'debian-12' }));
    const md = renderPlanMarkdown(planChanges(many, []));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_COMMENT_LIMIT);
    const note = /> \*\*Note:\*\* (\d+) of 3000 changes were left out/.exec(md);
    expect(note).not.toBeNull();
    const rows = md.split('\n').filter((line) => line.startsWith('| + create |'));
    expect(rows.length + Number(note![1])).toBe(3000);
    const name = (i: number): string => `web-${String(i).padStart(4, '0')}`;
    expect(md).toContain(`${name(rows.length - 1)} will be created`);
    expect(md).not.toContain(`${name(rows.length)} will be created`);
    expect(md.endsWith('</details>\n')).toBe(true);
  });

  it('says there are no changes without a table', () => {
    const same = desired('Server', 'web-1', { provider: 'sandbox', region: 'eu-1', size: 'small' });
    expect(renderPlanMarkdown(planChanges([same], [recorded(same)]))).toBe(
      '### cairn plan\n\n**No changes. Your infrastructure matches the configuration.**\n',
    );
  });
});

describe('sensitive values in every rendering', () => {
  it('never prints a secret, yet shows that it changed', () => {
    const plan = mixedPlan();
    const renderings = [
      renderPlanText(plan, { color: false, showNoop: true }),
      renderPlanText(plan, { color: true }),
      renderPlanJson(plan),
      JSON.stringify(planToApiJson(plan)),
      renderPlanMarkdown(plan),
    ];
    for (const rendered of renderings) {
      expect(rendered).not.toContain(SECRET);
      expect(rendered).not.toContain(OLD_SECRET);
      expect(rendered).toContain('(sensitive)');
    }
  });

  it('masks on render even when a plan was built with a value left in', () => {
    const plan = mixedPlan();
    const leaky: Plan = {
      ...plan,
      changes: plan.changes.map((c) => ({ ...c, diff: c.diff.map((d) => (d.sensitive ? { ...d, after: SECRET } : d)) })),
    };
    expect(renderPlanText(leaky, { color: false })).not.toContain(SECRET);
    expect(renderPlanJson(leaky)).not.toContain(SECRET);
    expect(renderPlanMarkdown(leaky)).not.toContain(SECRET);
  });
});

describe('an import in every rendering', () => {
  const imported = (): Plan =>
    planChanges([{ ...desired('Server', 'legacy', { provider: 'sandbox', region: 'eu-1', size: 'small' }), annotations: { 'cairn.dev/external-id': 'srv-7' } }], []);

  it('text says it will be imported, with the vendor id, and counts it in the summary line', () => {
    const text = renderPlanText(imported(), { color: false });
    expect(text).toContain('Server/legacy will be imported (vendor id srv-7)');
    expect(text).toContain('Plan: 0 to create, 1 to import, 0 to update, 0 to replace, 0 to delete.');
  });

  it('JSON has action "import", external_id and an import count', () => {
    const json = planToApiJson(imported());
    expect(json.changes[0]).toMatchObject({ action: 'import', external_id: 'srv-7' });
    expect(json.summary.import).toBe(1);
  });

  it('Markdown names the id it adopts', () => {
    expect(renderPlanMarkdown(imported())).toContain('\\< import | Server | default | legacy | (adopts vendor id srv-7) |');
  });
});
