/**
 * @module examples/kubernetes agrees with what controller mode does: the ClusterRole grants
 * every call the controller makes, the Deployment runs `serve --kubernetes` as the bound
 * ServiceAccount with POD_NAMESPACE for its Lease, and the sample resources are valid manifests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KINDS, PLURALS } from '../model/kinds.js';
import { validateManifest } from '../model/schema-validator.js';

const dir = join(import.meta.dirname, '..', '..', 'examples', 'kubernetes');
type Doc = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
const docs = (file: string): Doc[] => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => d.toJSON() as Doc);

describe('examples/kubernetes', () => {
  it('grants the controller every call it makes', () => {
    const role = docs('rbac.yaml').find((d) => d.kind === 'ClusterRole') as unknown as { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
    const allows = (group: string, resource: string, verb: string): boolean => role.rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    // Controller mode watches every kind (informers.ts), so every kind's plural.
    for (const plural of KINDS.map((kind) => PLURALS[kind])) {
      for (const verb of ['list', 'watch', 'patch']) expect(allows('cairn.dev', plural, verb), `${verb} ${plural}`).toBe(true);
      expect(allows('cairn.dev', `${plural}/status`, 'patch'), `patch ${plural}/status`).toBe(true);
    }
    expect(allows('', 'secrets', 'get')).toBe(true);
    expect(allows('', 'events', 'create')).toBe(true);
    for (const verb of ['get', 'create', 'update']) expect(allows('coordination.k8s.io', 'leases', verb), `${verb} leases`).toBe(true);
  });

  it('runs serve --kubernetes as the bound ServiceAccount, with POD_NAMESPACE for the Lease', () => {
    const rbac = docs('rbac.yaml');
    const account = rbac.find((d) => d.kind === 'ServiceAccount');
    const binding = rbac.find((d) => d.kind === 'ClusterRoleBinding') as unknown as { subjects: Array<{ name: string; namespace: string }> };
    const deployment = docs('deployment.yaml')[0] as unknown as { metadata: { namespace: string }; spec: { template: { spec: { serviceAccountName: string; containers: Array<{ args: string[]; env: Array<{ name: string }> }> } } } };
    const pod = deployment.spec.template.spec;
    expect(pod.serviceAccountName).toBe(account?.metadata.name);
    expect(binding.subjects).toContainEqual({ kind: 'ServiceAccount', name: account?.metadata.name, namespace: deployment.metadata.namespace });
    expect(pod.containers[0]?.args.slice(0, 2)).toEqual(['serve', '--kubernetes']);
    expect(pod.containers[0]?.env.map((e) => e.name)).toContain('POD_NAMESPACE');
  });

  it('keeps the data dir on a PersistentVolumeClaim, one pod at a time', () => {
    const [deployment, claim] = docs('deployment.yaml') as unknown as [
      { spec: { replicas: number; strategy: { type: string }; template: { spec: { volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> } } } },
      { kind: string; metadata: { name: string; namespace: string }; spec: { accessModes: string[] } },
    ];
    expect(claim.kind).toBe('PersistentVolumeClaim');
    expect(deployment.spec.template.spec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: claim.metadata.name } });
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect([deployment.spec.replicas, deployment.spec.strategy.type]).toEqual([1, 'Recreate']);
  });

  it('has sample resources that are valid manifests', () => {
    const samples = readdirSync(join(dir, 'resources')).flatMap((f) => docs(join('resources', f)));
    expect(samples.map((d) => d.kind).sort()).toEqual(['App', 'Database', 'Provider', 'Server', 'Server']);
    for (const sample of samples) expect(validateManifest(sample).valid, sample.metadata.name).toBe(true);
  });
});
