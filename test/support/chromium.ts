/**
 * @module The headless Chromium the dashboard's browser tests drive through playwright-core:
 * Debian's `chromium` from PATH (playwright never downloads a browser). Chromium exists for
 * Linux, so a missing one fails the tests (never a skip), saying how to install it; `.ci/run`
 * installs it.
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

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error("chromium is not on PATH: the dashboard's browser tests need it (Debian/Ubuntu: apt-get install chromium; .ci/run installs it)");
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
