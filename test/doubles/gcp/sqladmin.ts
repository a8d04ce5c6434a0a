/**
 * @module The double's Cloud SQL Admin API (v1) for one project, by method id
 * (`sql.instances.insert`, ...), as Google answers it: tiers with the regions that offer them
 * (`sql.tiers.list`); instances named uniquely in the project (a second insert of a name is 409
 * `instanceAlreadyExists`), PENDING_CREATE → RUNNABLE after `actionMs`, the `rootPassword` kept
 * as the `postgres` user's (`sql.users.update` changes it); every change an Operation (PENDING →
 * DONE after `actionMs`, its effect applied when done, `sql.operations.get`); on-demand backup
 * runs (`sql.backupRuns.insert/list/get/delete`, listed newest first, paged by
 * `maxResults`/`pageToken` at most `maxPerPage` a page) that are deleted with their instance, as
 * Cloud SQL deletes them; `sql.instances.restoreBackup` puts a backup's content back into an
 * instance (the double keeps a `content` string per instance to show it). Errors are Google's.
 */
import { randomInt } from 'node:crypto';
import { googleError, type ComputeAnswer, type ComputeRequest, type Json } from './compute.js';

/** Tiers: name, RAM bytes, disk quota bytes, regions. */
export const SQL_TIERS: Array<[string, number, number, string[]]> = [
  ['db-f1-micro', 644_245_094, 3_078_632_472_576, ['europe-west1', 'us-central1']],
  ['db-custom-1-3840', 4_026_531_840, 65_999_987_081_216, ['europe-west1', 'europe-west4', 'us-central1']],
  ['db-custom-2-7680', 8_053_063_680, 65_999_987_081_216, ['europe-west1', 'us-central1']],
];

export interface SqlInstanceState {
  name: string;
  region: string;
  databaseVersion: string;
  tier: string;
  diskGb: number;
  labels: Record<string, string>;
  state: 'PENDING_CREATE' | 'RUNNABLE';
  readyAt: number;
  ip: string;
  /** The `postgres` user's password. */
  password: string;
  /** What the database holds (changed by tests; restored from backups). */
  content: string;
  created: string;
}

export interface BackupRunState {
  id: string;
  instance: string;
  description: string;
  status: 'RUNNING' | 'SUCCESSFUL';
  content: string;
  enqueued: string;
  doneAt: number;
}

interface SqlOperation {
  name: string;
  type: string;
  target: string;
  inserted: string;
  doneAt: number;
  done: boolean;
  effect: () => void;
}

type Handler = (request: ComputeRequest) => ComputeAnswer;

export class SqlAdminState {
  readonly instances = new Map<string, SqlInstanceState>();
  readonly backups: BackupRunState[] = [];
  private readonly operations = new Map<string, SqlOperation>();
  private nextBackup = 1_700_000_000_000;

  constructor(private readonly options: { project: string; actionMs: number; maxPerPage: number }) {}

  /** Applies whatever finished by now. */
  advance(): void {
    const now = Date.now();
    for (const op of this.operations.values()) {
      if (!op.done && op.doneAt <= now) {
        op.done = true;
        op.effect();
      }
    }
    for (const i of this.instances.values()) if (i.state === 'PENDING_CREATE' && i.readyAt <= now) i.state = 'RUNNABLE';
    for (const b of this.backups) if (b.status === 'RUNNING' && b.doneAt <= now) b.status = 'SUCCESSFUL';
  }

  private operation(type: string, target: string, effect: () => void, delayMs = this.options.actionMs): SqlOperation {
    const op: SqlOperation = { name: `op-${randomInt(1e9).toString(16)}-${this.operations.size}`, type, target, inserted: new Date().toISOString(), doneAt: Date.now() + delayMs, done: false, effect };
    this.operations.set(op.name, op);
    return op;
  }

  private operationJson(op: SqlOperation): Json {
    return {
      kind: 'sql#operation', name: op.name, operationType: op.type, status: op.done ? 'DONE' : 'PENDING', targetId: op.target, targetProject: this.options.project,
      insertTime: op.inserted, selfLink: `https://sqladmin.googleapis.com/v1/projects/${this.options.project}/operations/${op.name}`,
      targetLink: `https://sqladmin.googleapis.com/v1/projects/${this.options.project}/instances/${op.target}`,
    };
  }

  private instanceJson(i: SqlInstanceState): Json {
    return {
      kind: 'sql#instance', name: i.name, project: this.options.project, region: i.region, databaseVersion: i.databaseVersion, databaseInstalledVersion: `${i.databaseVersion}_4`,
      state: i.state, backendType: 'SECOND_GEN', instanceType: 'CLOUD_SQL_INSTANCE', createTime: i.created,
      ipAddresses: i.state === 'RUNNABLE' ? [{ type: 'PRIMARY', ipAddress: i.ip }] : [],
      settings: { tier: i.tier, dataDiskSizeGb: String(i.diskGb), userLabels: i.labels, kind: 'sql#settings' },
    };
  }

  private backupJson(b: BackupRunState): Json {
    return {
      kind: 'sql#backupRun', id: b.id, instance: b.instance, description: b.description, status: b.status, type: 'ON_DEMAND', enqueuedTime: b.enqueued,
      ...(b.status === 'SUCCESSFUL' ? { endTime: new Date(b.doneAt).toISOString() } : {}),
    };
  }

  private instance(name: string | undefined): SqlInstanceState | ComputeAnswer {
    const found = this.instances.get(name ?? '');
    return found ?? googleError(404, 'instanceDoesNotExist', 'The Cloud SQL instance does not exist.');
  }

  private backup(instance: string | undefined, id: string | undefined): BackupRunState | ComputeAnswer {
    return this.backups.find((b) => b.instance === instance && b.id === id) ?? googleError(404, 'backupRunDoesNotExist', 'The backup run does not exist.');
  }

  handlers(): Record<string, Handler> {
    const ok = (body: Json): ComputeAnswer => ({ status: 200, body });
    const isAnswer = (x: unknown): x is ComputeAnswer => typeof x === 'object' && x !== null && 'status' in x && 'body' in x && typeof (x as ComputeAnswer).status === 'number';
    return {
      'sql.tiers.list': () => ok({ kind: 'sql#tiersList', items: SQL_TIERS.map(([tier, ram, disk, region]) => ({ kind: 'sql#tier', tier, RAM: String(ram), DiskQuota: String(disk), region })) }),
      'sql.instances.get': ({ params }) => {
        this.advance();
        const i = this.instance(params['instance']);
        return isAnswer(i) ? i : ok(this.instanceJson(i));
      },
      'sql.instances.insert': ({ body }) => {
        const b = body as { name?: string; region?: string; databaseVersion?: string; rootPassword?: string; settings?: { tier?: string; dataDiskSizeGb?: string; userLabels?: Record<string, string> } };
        const name = b.name ?? '';
        if (this.instances.has(name)) return googleError(409, 'instanceAlreadyExists', 'The Cloud SQL instance already exists.');
        const tier = SQL_TIERS.find(([t]) => t === b.settings?.tier);
        if (!tier || !tier[3].includes(b.region ?? '')) return googleError(400, 'invalid', `Invalid request: tier ${b.settings?.tier ?? ''} is not available in ${b.region ?? ''}.`);
        const created = new Date().toISOString();
        this.instances.set(name, {
          name, region: b.region ?? '', databaseVersion: b.databaseVersion ?? 'POSTGRES_16', tier: tier[0], diskGb: Number(b.settings?.dataDiskSizeGb ?? 10), labels: b.settings?.userLabels ?? {},
          state: 'PENDING_CREATE', readyAt: Date.now() + this.options.actionMs, ip: `34.${randomInt(1, 255)}.${randomInt(255)}.${randomInt(1, 255)}`, password: b.rootPassword ?? '', content: '', created,
        });
        return ok(this.operationJson(this.operation('CREATE', name, () => undefined)));
      },
      'sql.instances.delete': ({ params }) => {
        const i = this.instance(params['instance']);
        if (isAnswer(i)) return i;
        return ok(this.operationJson(this.operation('DELETE', i.name, () => {
          this.instances.delete(i.name);
          // Cloud SQL deletes an instance's backups with it.
          for (let n = this.backups.length - 1; n >= 0; n--) if (this.backups[n]?.instance === i.name) this.backups.splice(n, 1);
        })));
      },
      'sql.instances.restoreBackup': ({ params, body }) => {
        const i = this.instance(params['instance']);
        if (isAnswer(i)) return i;
        const context = (body as { restoreBackupContext?: { backupRunId?: string; instanceId?: string } }).restoreBackupContext;
        const b = this.backup(context?.instanceId, context?.backupRunId);
        if (isAnswer(b)) return b;
        return ok(this.operationJson(this.operation('RESTORE_VOLUME', i.name, () => { i.content = b.content; })));
      },
      'sql.operations.get': ({ params }) => {
        this.advance();
        const op = this.operations.get(params['operation'] ?? '');
        return op ? ok(this.operationJson(op)) : googleError(404, 'operationDoesNotExist', 'The Cloud SQL operation does not exist.');
      },
      'sql.users.update': ({ params, query, body }) => {
        const i = this.instance(params['instance']);
        if (isAnswer(i)) return i;
        if (query.get('name') !== 'postgres') return googleError(404, 'userDoesNotExist', `The user ${query.get('name') ?? ''} does not exist.`);
        const password = (body as { password?: string }).password ?? '';
        return ok(this.operationJson(this.operation('UPDATE_USER', i.name, () => { i.password = password; })));
      },
      'sql.backupRuns.insert': ({ params, body }) => {
        const i = this.instance(params['instance']);
        if (isAnswer(i)) return i;
        const run: BackupRunState = { id: String(this.nextBackup++), instance: i.name, description: (body as { description?: string }).description ?? '', status: 'RUNNING', content: i.content, enqueued: new Date().toISOString(), doneAt: Date.now() + this.options.actionMs };
        this.backups.push(run);
        return ok(this.operationJson(this.operation('BACKUP_VOLUME', i.name, () => undefined)));
      },
      'sql.backupRuns.list': ({ params, query }) => {
        this.advance();
        const i = this.instance(params['instance']);
        if (isAnswer(i)) return i;
        const all = this.backups.filter((b) => b.instance === i.name).reverse();
        const size = Math.min(Number(query.get('maxResults') ?? this.options.maxPerPage), this.options.maxPerPage);
        const start = Number(query.get('pageToken') ?? 0);
        const page = all.slice(start, start + size);
        return ok({ kind: 'sql#backupRunsList', items: page.map((b) => this.backupJson(b)), ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}) });
      },
      'sql.backupRuns.get': ({ params }) => {
        this.advance();
        const b = this.backup(params['instance'], params['id']);
        return isAnswer(b) ? b : ok(this.backupJson(b));
      },
      'sql.backupRuns.delete': ({ params }) => {
        const b = this.backup(params['instance'], params['id']);
        if (isAnswer(b)) return b;
        return ok(this.operationJson(this.operation('DELETE_BACKUP', b.instance, () => {
          const at = this.backups.indexOf(b);
          if (at >= 0) this.backups.splice(at, 1);
        })));
      },
    };
  }
}
