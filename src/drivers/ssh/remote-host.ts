/**
 * @module One server as the SSH runtime sees it: what the host offers (found once per
 * connection: the runtime directory, root or not, systemd, a package manager, python3), the
 * records of what cairn placed there (one JSON file per database or app under the runtime
 * directory, written whole and renamed, so the host itself says what exists on it even when
 * cairn's data dir is lost), and commands run there, every argument quoted by `shellCommand`.
 *
 * The runtime directory is `$CAIRN_RUNTIME_DIR` in the SSH session's environment (an operator
 * may set it with sshd's `SetEnv`), else `/var/lib/cairn`.
 */
import type { CallOptions } from '../contract.js';
import type { SshSession } from '../../ssh/session.js';

export const DEFAULT_RUNTIME_DIR = '/var/lib/cairn';
/** How long a plain command may take (installs and builds pass their own, longer bounds). */
export const COMMAND_TIMEOUT_MS = 60_000;

export type RecordKind = 'databases' | 'apps';

export interface HostFacts {
  runtimeDir: string;
  /** The SSH user is root: no sudo needed to install packages or switch users. */
  root: boolean;
  /** systemd runs (PID 1): apps run as units; else under cairn's own supervisor. */
  systemd: boolean;
  /** The distribution's package installer, when there is one cairn knows. */
  packageManager: 'apt-get' | 'dnf' | 'yum' | 'apk' | null;
  python3: string | null;
}

/** Found in one round trip; a constant script, never built from a tenant's words. */
const FACTS_SCRIPT = [
  'dir="${CAIRN_RUNTIME_DIR:-' + DEFAULT_RUNTIME_DIR + '}"',
  'umask 077',
  'mkdir -p "$dir/records/databases" "$dir/records/apps" || exit 3',
  'printf "dir=%s\\n" "$dir"',
  'printf "uid=%s\\n" "$(id -u)"',
  '[ -d /run/systemd/system ] && echo systemd=1',
  'for pm in apt-get dnf yum apk; do if command -v "$pm" >/dev/null 2>&1; then echo "pm=$pm"; break; fi; done',
  'p=$(command -v python3 2>/dev/null) && echo "python3=$p"',
  'exit 0',
].join('\n');

/** A record or path name part: made by cairn (ids), checked anyway so no name can leave the runtime directory. */
const SAFE_PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function safePart(part: string): string {
  if (!SAFE_PART.test(part) || part.includes('..')) throw new Error(`refusing the path part ${JSON.stringify(part)}: cairn names its files with letters, digits, '.', '_' and '-' only`);
  return part;
}

export function parseFacts(text: string): HostFacts {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) values.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  const runtimeDir = values.get('dir');
  if (!runtimeDir?.startsWith('/')) throw new Error(`the host did not name an absolute runtime directory (got ${JSON.stringify(runtimeDir ?? '')}); check CAIRN_RUNTIME_DIR on the host`);
  const pm = values.get('pm');
  return {
    runtimeDir: runtimeDir.replace(/\/+$/, '') || '/',
    root: values.get('uid') === '0',
    systemd: values.get('systemd') === '1',
    packageManager: pm === 'apt-get' || pm === 'dnf' || pm === 'yum' || pm === 'apk' ? pm : null,
    python3: values.get('python3') ?? null,
  };
}

export class RemoteHost {
  /** Record writes on this host, one after another (two writers of one file would lose one). */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(readonly session: SshSession, readonly facts: HostFacts) {}

  static async open(session: SshSession, options?: CallOptions): Promise<RemoteHost> {
    const { stdout } = await session.run(['sh', '-c', FACTS_SCRIPT], { timeoutMs: COMMAND_TIMEOUT_MS, ...(options?.signal ? { signal: options.signal } : {}) });
    return new RemoteHost(session, parseFacts(stdout));
  }

  /** A path under the runtime directory; each part is checked. */
  path(...parts: string[]): string {
    return [this.facts.runtimeDir, ...parts.map(safePart)].join('/');
  }

  /** Runs argv on the host and returns its standard output; a non-zero exit rejects with the command's error. */
  async run(argv: readonly string[], options: { stdin?: string | Buffer; timeoutMs?: number; signal?: AbortSignal | undefined; env?: Record<string, string> } = {}): Promise<string> {
    const { stdout } = await this.session.run(argv, {
      timeoutMs: options.timeoutMs ?? COMMAND_TIMEOUT_MS,
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    return stdout;
  }

  /** Every record of a kind on this host. */
  async records<T>(kind: RecordKind, options?: CallOptions): Promise<T[]> {
    const dir = this.path('records', kind);
    const script = 'for f in "$1"/*.json; do [ -f "$f" ] && { cat "$f"; echo; }; done; exit 0';
    const text = await this.run(['sh', '-c', script, 'sh', dir], { signal: options?.signal });
    const records: T[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line) as T);
      } catch (error) {
        throw new Error(`a record of cairn's under ${dir} on the host is not valid JSON (${(error as Error).message}); move it away or restore it`, { cause: error });
      }
    }
    return records;
  }

  /** Writes one record whole (a temporary file renamed over the old one). */
  putRecord(kind: RecordKind, id: string, record: unknown): Promise<void> {
    return this.serially(() => this.session.upload(this.path('records', kind, `${id}.json`), Buffer.from(`${JSON.stringify(record)}\n`), 0o600));
  }

  /** Removes one record; removing one that is gone succeeds. */
  dropRecord(kind: RecordKind, id: string): Promise<void> {
    return this.serially(async () => {
      await this.run(['rm', '-f', '--', this.path('records', kind, `${id}.json`)]);
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writes.then(work, work);
    this.writes = next.catch(() => undefined);
    return next;
  }
}
