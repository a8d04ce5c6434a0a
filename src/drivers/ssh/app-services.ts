/**
 * @module How an app's programs (each release, the stable endpoint's proxy) are kept running on a
 * host past the SSH session and restarted when they crash: cairn's supervisor script
 * (app-host-scripts.ts) under a systemd unit where the host runs systemd (`Restart=always` brings
 * the supervisor back too, and the host's boot starts it again), else started detached with
 * `setsid nohup`. A service is a directory cairn made (its command, cwd, user, env files).
 */
import type { RemoteHost } from './remote-host.js';
import { PROXY_NAME, PROXY_SCRIPT, STOP_SCRIPT, SUPERVISOR_NAME, SUPERVISOR_SCRIPT } from './app-host-scripts.js';

const UNIT_DIR = '/etc/systemd/system';
const UNIT_NAME = /^cairn-[A-Za-z0-9-]+\.service$/;

/** One argument of a unit's ExecStart, quoted as systemd reads it (specifiers and variables escaped). */
export function systemdQuote(value: string): string {
  if (/[\0\n\r]/.test(value)) throw new Error(`a systemd unit cannot carry ${JSON.stringify(value)} (control characters)`);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

/** The unit that runs cairn's supervisor for one service directory. */
export function unitText(description: string, supervisor: string, serviceDir: string, log: string): string {
  return [
    '[Unit]',
    `Description=${description.replace(/[\n\r%]/g, ' ')}`,
    'After=network.target',
    '',
    '[Service]',
    `ExecStart=${[supervisor, serviceDir, log].map(systemdQuote).join(' ')}`,
    'Restart=always',
    'RestartSec=1',
    'KillMode=mixed',
    'TimeoutStopSec=15',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

export interface ServiceRef {
  /** The service directory on the host. */
  dir: string;
  /** Where its output goes. */
  log: string;
  /** The systemd unit's name (`cairn-<app id>-<service>.service`), used where the host runs systemd. */
  unit: string;
}

export class AppServices {
  private installed: Promise<string> | undefined;

  constructor(private readonly host: RemoteHost) {}

  get supervisor(): string {
    return this.host.path('bin', SUPERVISOR_NAME);
  }

  get proxy(): string {
    return this.host.path('bin', PROXY_NAME);
  }

  /**
   * Uploads the supervisor and the proxy (once per host and cairn process; a running copy keeps
   * its old file) and resolves python3 to its real program (a shim on the SSH user's PATH may be
   * slow or out of the app users' reach). Resolves with that program.
   */
  install(): Promise<string> {
    this.installed ??= (async () => {
      const python = this.host.facts.python3 ?? 'python3';
      const resolved = await this.host.run(['sh', '-c', 'mkdir -p -m 0755 "$1" && exec "$2" -c "import sys; print(sys.executable)"', 'sh', this.host.path('bin'), python]);
      await this.host.session.upload(this.supervisor, Buffer.from(SUPERVISOR_SCRIPT), 0o755);
      await this.host.session.upload(this.proxy, Buffer.from(PROXY_SCRIPT), 0o644);
      return resolved.trim() || python;
    })();
    this.installed.catch(() => {
      this.installed = undefined;
    });
    return this.installed;
  }

  /** Where the host runs systemd: writes the service's unit (started by the script that starts the service). Returns the unit to start, '' where there is no systemd. */
  async unitFor(service: ServiceRef, description: string): Promise<string> {
    if (!this.host.facts.systemd) return '';
    if (!UNIT_NAME.test(service.unit)) throw new Error(`refusing the unit name ${JSON.stringify(service.unit)}`);
    await this.host.session.upload(`${UNIT_DIR}/${service.unit}`, Buffer.from(unitText(description, this.supervisor, service.dir, service.log)), 0o644);
    return service.unit;
  }

  /** Stops services (a service already stopped or never started is fine) and forgets their units. */
  async stop(services: readonly ServiceRef[]): Promise<void> {
    if (services.length === 0) return;
    if (this.host.facts.systemd) {
      const units = services.map((s) => s.unit).filter((u) => UNIT_NAME.test(u));
      await this.host.run(['sh', '-c', 'systemctl disable --now "$@" >/dev/null 2>&1; for u in "$@"; do rm -f "/etc/systemd/system/$u"; done; systemctl daemon-reload', 'sh', ...units], { timeoutMs: 60_000 });
    }
    // Also where systemd runs: a supervisor started before the host had systemd, or left by a unit cut short.
    await this.host.run(['sh', '-c', STOP_SCRIPT, 'sh', ...services.map((s) => s.dir)], { timeoutMs: 60_000 });
  }
}
