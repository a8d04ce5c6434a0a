/**
 * @module The dashboard in headless Chromium (playwright-core) against one real `cairn serve
 * --apply examples/quickstart` (the local vendor: a real PostgreSQL and a real app process):
 * an owner signs in, sees the quickstart's resources turn ready live, stops and starts the
 * server, deploys the app and reads its build log and log tail, plans and applies manifests
 * (one a host of the ssh vendor: a real sshd on loopback), runs `echo` in that host's browser
 * terminal, and finds a widget they hid still hidden after a reload; a viewer sees no action buttons and the API
 * refuses their actions anyway. The page makes no request that fails. Screenshots of the main
 * pages go to docs/screenshots/ (the README shows them).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { REPO_ROOT, runCairn, spawnCairn } from '../support/cairn-process.js';
import { stopLocalClusters } from '../support/local-clusters.js';
import { startSshd, type RunningSshd } from '../support/sshd.js';
import { storeEngineUnderTest } from '../support/store-engine.js';

const PASSWORD = 'a long enough password';

const root = mkdtempSync(join(tmpdir(), 'cairn-dashboard-browser-'));
/** The README's screenshots come from the SQLite run; the PostgreSQL one keeps its own, so the two never write one file at once. */
const SCREENSHOTS = storeEngineUnderTest === 'sqlite' ? join(REPO_ROOT, 'docs', 'screenshots') : join(root, 'screenshots');
const dataDir = join(root, 'state');
let serve: ChildProcess | undefined;
let output = '';
let base = '';
let browser: Browser | undefined;
let sshd: RunningSshd | undefined;

beforeAll(async () => {
  // First, so a machine without chromium fails at once, saying how to install it.
  browser = await launchChromium();
  for (const [email, role] of [['owner@example.com', 'owner'], ['viewer@example.com', 'viewer']] as const) {
    const added = await runCairn(['users', 'add', '--email', email, '--role', role, '--data-dir', dataDir], { input: `${PASSWORD}\n` });
    if (added.code !== 0) throw new Error(`users add failed: ${added.stderr}`);
  }
  // A host of the ssh vendor for the terminal: a real sshd on loopback taking the tenant's runtime key.
  const keys = await runCairn(['ssh-keys', 'runtime', '--data-dir', dataDir]);
  const publicKey = keys.stdout.split('\n').find((line) => line.startsWith('ssh-ed25519 '));
  if (keys.code !== 0 || !publicKey) throw new Error(`cairn ssh-keys runtime printed no key:\n${keys.stdout}\n${keys.stderr}`);
  // Its sessions keep cairn's files (the adoption marker) in a directory of this test, not the machine's /var/lib/cairn.
  sshd = await startSshd({ authorizedKeys: [publicKey], setEnv: { CAIRN_RUNTIME_DIR: join(root, 'runtime') } });
  serve = spawnCairn(['serve', '--apply', 'examples/quickstart', '--port', '0', '--data-dir', dataDir], { env: { CAIRN_LOG_LEVEL: 'silent' } });
  serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (base === '') {
    if (serve.exitCode !== null || Date.now() > deadline) throw new Error(`serve printed no dashboard URL:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    base = /^dashboard: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(output)?.[1] ?? '';
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve?.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await stopLocalClusters(dataDir);
  await sshd?.stop({ remove: true });
  rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Requests the page made that failed (4xx, 5xx or no answer), to assert there are none. */
function watchFailures(page: Page): string[] {
  const failures: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.request().method()} ${response.url()} → ${response.status()}`);
  });
  page.on('requestfailed', (request) => {
    // Leaving a page aborts its streams (the watch, a log read): that is not a failure.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') failures.push(`${request.method()} ${request.url()} → ${request.failure()?.errorText}`);
  });
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  return failures;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(base);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** Opens a page through the navigation, as a user does (the live stream stays up). */
async function open(page: Page, nav: string, name?: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: nav, exact: true }).click();
  if (name) await page.getByRole('link', { name, exact: true }).click();
}

/** Waits for the page's title status (the live record's) to read `status`. */
async function titleStatus(page: Page, status: string, timeout = 30_000): Promise<void> {
  try {
    await page.locator('h1 .status', { hasText: new RegExp(`^${status}$`) }).waitFor({ timeout });
  } catch (error) {
    const shown = await page.locator('main').innerText().catch(() => '');
    throw new Error(`the page's status did not become ${status}; the page shows:\n${shown.slice(0, 3000)}`, { cause: error });
  }
}

async function rowStatus(page: Page, name: string, status: string, timeout: number): Promise<void> {
  await page.locator('tr', { has: page.getByRole('link', { name, exact: true }) }).locator('.status', { hasText: new RegExp(`^${status}$`) }).waitFor({ timeout });
}

/** Runs an action through its confirmation dialog. */
async function act(page: Page, label: string): Promise<void> {
  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: label, exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: `Yes, ${label.toLowerCase()}` }).click();
}

describe('the dashboard in a browser', () => {
  it('is announced by serve, signs an owner in, and follows the quickstart live through stop, start, deploy, a plan and a terminal', async () => {
    expect(output).toMatch(/^dashboard: http:\/\/127\.0\.0\.1:\d+\/$/m);
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const failures = watchFailures(page);
    await signIn(page, 'owner@example.com');

    // Ready, as the live stream says (the page is never reloaded for it).
    await open(page, 'Apps');
    await rowStatus(page, 'shop', 'running', 60_000);
    await open(page, 'Databases');
    await rowStatus(page, 'shop-db', 'available', 5_000);
    await open(page, 'Overview');
    await page.locator('#widget-status').getByText('running').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });

    await open(page, 'Servers', 'web-1');
    await titleStatus(page, 'running');
    await page.getByRole('figure').filter({ hasText: 'CPU' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'server.png'), fullPage: true });
    await act(page, 'Stop');
    await titleStatus(page, 'stopped');
    await act(page, 'Start');
    await titleStatus(page, 'running');

    await open(page, 'Apps', 'shop');
    await titleStatus(page, 'running', 30_000);
    await act(page, 'Deploy');
    const second = page.locator('.deployments li', { has: page.getByRole('button', { name: '#2', exact: true }) });
    await second.locator('.status', { hasText: /^succeeded$/ }).waitFor({ timeout: 30_000 });
    await second.getByRole('button', { name: '#2' }).click();
    const buildLog = page.getByLabel('Build log of deployment 2');
    await buildLog.filter({ hasNotText: 'loading…' }).waitFor();
    await page.getByLabel('Log of shop').getByText(/shop listening on port \d+/).first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'app.png'), fullPage: true });

    // A plan, then applied: a label on web-1 and a host of the ssh vendor, for the terminal.
    await open(page, 'Plans');
    await page.getByLabel(/Paste cairn.dev\/v1 manifests/).fill([
      'apiVersion: cairn.dev/v1', 'kind: Server', 'metadata:', '  name: web-1', '  labels: { team: shop, tier: front }',
      'spec:', '  provider: local', '  region: local', '  size: host', '  state: running', '---',
      'apiVersion: cairn.dev/v1', 'kind: Provider', 'metadata:', '  name: byo', 'spec:', '  vendor: ssh', '---',
      'apiVersion: cairn.dev/v1', 'kind: Server', 'metadata:', '  name: box-1', 'spec:', '  provider: byo',
      `  host: ${sshd!.host}`, `  port: ${sshd!.port}`, `  user: ${sshd!.user}`,
    ].join('\n'));
    await page.getByRole('button', { name: 'Plan' }).click();
    await page.getByText('2 to create, 1 to update').waitFor();
    await page.locator('.diff').getByRole('rowheader', { name: /labels/ }).first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'plans.png'), fullPage: true });
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, apply' }).click();
    await page.getByText(/Applied: .*Server\/box-1: created/).waitFor();

    // The terminal on the ssh host: a command typed in the browser runs there.
    await open(page, 'Servers', 'box-1');
    await titleStatus(page, 'running', 60_000);
    await page.getByRole('button', { name: 'Open a terminal on box-1' }).click();
    await page.getByTestId('terminal-state').getByText('connected', { exact: true }).waitFor({ timeout: 15_000 });
    await page.locator('.terminal.xterm').click();
    await page.keyboard.type('echo dashboard-$((6*7))\n');
    // The rows on screen, not the screen reader's hidden copy of the buffer (which matches first).
    await page.locator('.terminal.xterm .xterm-rows').getByText('dashboard-42', { exact: true }).first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'terminal.png'), fullPage: true });
    await page.getByRole('button', { name: 'Close terminal' }).click();

    // Hide a widget; after a reload (a fresh read of /me/preferences) it is still hidden.
    await open(page, 'Overview');
    await page.getByText('Customize widgets').click();
    await page.getByRole('checkbox', { name: 'Recent events' }).uncheck();
    await page.getByRole('status').filter({ hasText: /^saved$/ }).waitFor();
    expect(await page.locator('#widget-events').count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('#widget-status').waitFor();
    await page.getByText('Customize widgets').click();
    expect(await page.getByRole('checkbox', { name: 'Recent events' }).isChecked()).toBe(false);
    expect(await page.locator('#widget-events').count()).toBe(0);
    expect(await page.locator('#widget-alerts').count()).toBe(1);

    expect(failures).toEqual([]);
    await page.close();
  }, 200_000);

  it('shows a viewer no action buttons, and the API refuses their actions anyway', async () => {
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    const failures = watchFailures(page);
    await signIn(page, 'viewer@example.com');
    await open(page, 'Servers', 'web-1');
    await titleStatus(page, 'running');
    await page.getByRole('heading', { name: 'Conditions' }).waitFor();
    expect(await page.getByRole('group', { name: 'Actions' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Start|Stop|Reboot)$/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /terminal/ }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-narrow.png'), fullPage: true });

    const serverId = page.url().split('/').pop() ?? '';
    const refused = await page.evaluate(async (id) => {
      const tokens = JSON.parse(sessionStorage.getItem('cairn.session') ?? '{}') as { access_token?: string };
      const response = await fetch(`/api/v1/servers/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${tokens.access_token ?? ''}` } });
      return response.status;
    }, serverId);
    expect(refused).toBe(403);
    expect(failures.filter((f) => !f.includes('/stop → 403'))).toEqual([]);
    await page.close();
  }, 60_000);
});
