/**
 * @module The REST shapes of migrations (snake_case): a migration record with its steps and the
 * resources it made, and a Heroku analysis as `POST /migrations/platform-b/analyze` answers it.
 * Neither ever carries a config var value or the API key.
 */
import type { PlatformAnalysis, PlatformListing } from '../../migrations/platform.js';
import type { PlatformMigration } from '../../store/platform-migrations.js';

export function migrationRecord(m: PlatformMigration): Record<string, unknown> {
  const analysis = m.analysis as unknown as Partial<PlatformAnalysis>;
  return {
    id: m.id,
    platform: m.platform,
    subject: m.subject,
    subject_name: m.subjectName,
    server_id: m.serverId,
    status: m.status,
    steps: m.steps.map((s) => ({ name: s.name, status: s.status, detail: s.detail, started_at: s.startedAt, finished_at: s.finishedAt, error: s.error })),
    resources: m.resources.map((r) => ({ kind: r.kind, name: r.name, id: r.id })),
    manifests: m.manifests,
    warnings: [...(analysis.warnings ?? [])],
    url: m.url,
    error: m.error,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function listingRecord(l: PlatformListing): Record<string, unknown> {
  return { id: l.id, name: l.name, services: [...l.services], databases: [...l.databases] };
}

export function analysisRecord(a: PlatformAnalysis, manifests: string, warnings: readonly string[]): Record<string, unknown> {
  return {
    app: { id: a.subject.id, name: a.subject.name },
    stack: a.stack ?? null,
    buildpacks: [...a.buildpacks],
    processes: a.processes.map((p) => ({ type: p.type, command: p.command, quantity: p.quantity, web: p.web })),
    config_vars: [...a.configVarNames],
    addons: a.addons.map((x) => ({ name: x.name, service: x.service, plan: x.plan ?? null, supported: x.supported })),
    databases: a.databases.map((d) => ({ name: d.name, type: d.type, origin: d.origin, url_variable: d.urlVariable, version: d.version ?? null })),
    domains: [...a.domains],
    manifests,
    warnings: [...a.warnings, ...warnings],
  };
}
