/** @module Tests of AlertRule manifests at validation (what `cairn plan` and `cairn apply` see): the metric, the threshold's range, webhook URLs without credentials, and each channel type's own fields, at file:line with the reason. */
import { describe, expect, it } from 'vitest';
import { formatLoadErrors, loadManifestSources } from './manifest-loader.js';

function errorsOf(spec: string): string[] {
  const text = `apiVersion: cairn.dev/v1\nkind: AlertRule\nmetadata:\n  name: high-cpu\nspec:\n${spec}`;
  return formatLoadErrors(loadManifestSources([{ file: 'alerts.yaml', text }]));
}

const selector = '  selector:\n    labels: {tier: web}\n';

describe('AlertRule manifests', () => {
  it('takes a rule with an email and a webhook channel, selecting by labels or server names', () => {
    expect(errorsOf(`  metric: cpu_percent\n  threshold: 90\n  forSeconds: 120\n${selector}  channels:\n    - {type: email, to: ops@example.com}\n    - {type: webhook, url: 'https://hooks.slack.com/services/T0/B0/x', format: slack}\n`)).toEqual([]);
    expect(errorsOf('  metric: disk_percent\n  threshold: 80\n  selector:\n    servers: [web-1, web-2]\n')).toEqual([]);
  });

  it('refuses an unknown metric, a threshold above 100 and an empty selector, naming each', () => {
    const errors = errorsOf('  metric: load\n  threshold: 150\n  selector: {}\n');
    expect(errors).toContainEqual(expect.stringMatching(/^alerts\.yaml:6:\d+ AlertRule\/high-cpu spec\.metric: must be one of: cpu_percent, memory_percent, disk_percent/));
    expect(errors).toContainEqual(expect.stringMatching(/^alerts\.yaml:7:\d+ AlertRule\/high-cpu spec\.threshold: .*100/));
    expect(errors).toContainEqual(expect.stringMatching(/spec\.selector: /));
  });

  it('refuses a webhook URL with credentials or of another scheme, and the other type\'s fields on a channel', () => {
    const channel = (text: string): string[] => errorsOf(`  metric: cpu_percent\n  threshold: 90\n${selector}  channels:\n    - ${text}\n`);
    expect(channel("{type: webhook, url: 'https://user:pw@hooks.example.com/x'}")[0]).toMatch(/spec\.channels\[0\]\.url: must be an http:\/\/ or https:\/\/ URL without credentials/);
    expect(channel("{type: webhook, url: 'file:///etc/passwd'}")[0]).toMatch(/spec\.channels\[0\]\.url: must be an http:\/\/ or https:\/\/ URL/);
    expect(channel('{type: email, to: ops@example.com, url: "https://x.example.com"}')).toEqual([expect.stringMatching(/spec\.channels\[0\]\.url: url is for webhook channels/)]);
    expect(channel('{type: webhook, url: "https://x.example.com", to: ops@example.com}')).toEqual([expect.stringMatching(/spec\.channels\[0\]\.to: to is for email channels/)]);
    expect(channel('{type: email}')[0]).toMatch(/spec\.channels\[0\]/);
  });
});
