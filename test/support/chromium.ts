/**
 * @module The headless Chromium the dashboard's browser tests drive through playwright-core:
 * Debian's `chromium` from PATH (playwright never downloads a browser). Without it the tests
 * skip with a message, except under CI, where they fail (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

/** The chromium on PATH, or undefined. */
export function chromiumPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why the browser tests cannot run here; throws under CI, where a missing browser is a failure. */
export function chromiumMissing(): string | undefined {
  if (chromiumPath() !== undefined) return undefined;
  const message = 'chromium is not on PATH: the dashboard\'s browser tests need it (Debian/Ubuntu: apt-get install chromium; .ci/run installs it)';
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping the browser tests: ${message}`);
  return message;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('chromium is not on PATH');
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
