/**
 * @module The last lines of apply and delete: what converged, what failed and why, and the exit code.
 */
import { displayName } from '../model/resource.js';
import { CliError } from './cli-error.js';
import type { ConvergenceReport } from './convergence.js';

export function reportConvergence(report: ConvergenceReport, verb: 'Apply' | 'Delete' | 'Reconcile' | 'Import' | 'Deploy'): void {
  const states = [...report.states.values()];
  const count = (state: string): number => states.filter((s) => s.state === state).length;
  if (report.ok) {
    console.log(verb === 'Delete' ? `Delete complete: ${count('gone')} deleted.` : `${verb} complete: ${count('ready')} ready.`);
    return;
  }
  const problems = states
    .filter((s) => s.state !== 'ready' && s.state !== 'gone')
    .map((s) => `  ${displayName(s.target)}: ${s.state === 'working' ? 'not done' : s.state} — ${s.detail}`);
  const head = report.timedOut ? `${verb} timed out before everything converged:` : `${verb} failed:`;
  throw new CliError(`${head}\n${problems.join('\n')}`);
}
