/**
 * @module Durations as users type them: `500ms`, `30s`, `5m`, `1h`, or a bare number of seconds.
 */
import { CliError } from './cli-error.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new CliError(`${option} must be a duration such as 90s, 5m or 1h, got "${text}"`);
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1000));
}
