/**
 * @module App processes left behind by a cairn process that died without stopping them (killed
 * with SIGKILL): each app process carries in its environment the local host it belongs to and
 * the pid of the cairn process running it; those of this host whose cairn is gone are killed
 * before this process deploys the apps again. Linux only (reads /proc); elsewhere nothing is found.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const HOST_VARIABLE = 'CAIRN_LOCAL_HOST';
export const OWNER_VARIABLE = 'CAIRN_LOCAL_OWNER';

/** What marks a process as one of this host's apps, run by this cairn process. */
export function ownershipEnv(hostRoot: string): Record<string, string> {
  return { [HOST_VARIABLE]: hostRoot, [OWNER_VARIABLE]: String(process.pid) };
}

/** Whether process `pid` exists (one of another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills the processes of `hostRoot`'s apps whose cairn process is gone; returns their pids. */
export function reapOrphanedApps(hostRoot: string): number[] {
  if (!existsSync('/proc')) return [];
  const reaped: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone, or not ours to read
    }
    const vars = environ.split('\0');
    if (!vars.includes(`${HOST_VARIABLE}=${hostRoot}`)) continue;
    const owner = Number(vars.find((v) => v.startsWith(`${OWNER_VARIABLE}=`))?.slice(OWNER_VARIABLE.length + 1));
    if (!Number.isInteger(owner) || owner === process.pid || processAlive(owner)) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      reaped.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return reaped;
}
