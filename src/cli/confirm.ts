/**
 * @module Asking the user to approve a plan, Terraform-style: only "yes" proceeds. On a
 * non-interactive stdin without --auto-approve the command refuses rather than hangs.
 */
import { createInterface } from 'node:readline/promises';
import { CliError } from './cli-error.js';

export async function confirmOrRefuse(question: string, autoApprove: boolean, verb: string): Promise<boolean> {
  if (autoApprove) return true;
  if (!process.stdin.isTTY) {
    throw new CliError(`refusing to ${verb} without --auto-approve: stdin is not a terminal, so nobody can confirm the plan`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}
