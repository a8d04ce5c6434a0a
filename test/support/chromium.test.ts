/**
 * @module A machine without chromium fails the browser tests, saying how to install it: chromium
 * exists for Linux, so its absence is never a reason to skip.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chromiumPath, launchChromium } from './chromium.js';

afterEach(() => vi.unstubAllEnvs());

describe('the browser the dashboard tests drive', () => {
  it('is found on PATH here, and its absence is a failure naming the package', async () => {
    expect(chromiumPath()).toMatch(/chromium/);
    vi.stubEnv('PATH', '/nonexistent');
    expect(chromiumPath()).toBeUndefined();
    await expect(launchChromium()).rejects.toThrow(/chromium is not on PATH.*apt-get install chromium/);
  });
});
