// What the browser tests share: `maru serve` on a free port (with the built UI and a token), its
// API, Debian's Chromium driven by playwright-core, and steps that save a screenshot and say what
// maru logged when they fail.
//
// Env: MARU_BIN (default ~/.cache/maru/target/debug/maru), CHROMIUM (default /usr/bin/chromium),
// MARU_UI_DIR (default <repo>/ui/dist).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { startFakeOpenAi } from './fake-openai.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');
export const outDir = path.join(here, 'out');
export const MARU_BIN = process.env.MARU_BIN || path.join(os.homedir(), '.cache/maru/target/debug/maru');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const UI_DIR = process.env.MARU_UI_DIR || path.join(repo, 'ui/dist');
export const TOKEN = 'e2e-' + Math.random().toString(36).slice(2);

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Fails plainly when the binary, Chromium or the built UI is missing; makes the screenshots' folder. */
export function checkPrerequisites() {
  for (const [what, file] of [['the maru binary (set MARU_BIN, or build it)', MARU_BIN], ['Chromium (apt-get install chromium)', CHROMIUM], ['the built UI (npm run build --prefix ui)', path.join(UI_DIR, 'index.html')]]) {
    assert.ok(fs.existsSync(file), `missing ${what}: ${file}`);
  }
  fs.mkdirSync(outDir, { recursive: true });
}

/** Starts `maru serve` and waits until /api/health answers. After a restore (`POST /api/restore`)
 *  the process execs itself in place: the same pid and the same stdout/stderr, which are read to
 *  the end (so its output is neither lost nor blocked), and only a real exit counts as one. */
export async function startMaru(dataDir, port) {
  const log = [];
  const child = spawn(MARU_BIN, ['serve', '--data-dir', dataDir, '--port', String(port), '--token', TOKEN, '--ui-dir', UI_DIR], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'info' },
  });
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (exited) throw new Error(`maru serve exited (${JSON.stringify(exited)}) before answering:\n${log.join('')}`);
    try {
      const res = await fetch(`${base}/api/health`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      if (res.ok) return { child, base, log };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGTERM');
  throw new Error(`maru serve did not answer /api/health within 15 s:\n${log.join('')}`);
}

/** Stops `maru serve` and waits (up to 10 s) until it has exited, so that nothing still writes in
 *  the data folder when the test's temporary folder is removed. */
export async function stopMaru(maru) {
  const { child } = maru;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
}

export async function api(base, method, route, body) {
  const res = await fetch(base + route, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Headless Chromium with its own profile under `tmp` (`profile`), preferring `locale`; page errors
 *  and console errors are collected. */
export async function openBrowser(tmp, { locale = 'en-US', profile = 'chromium-profile' } = {}) {
  const context = await chromium.launchPersistentContext(path.join(tmp, profile), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
    locale,
    colorScheme: 'light',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    // Failed requests are logged by the browser itself (expected once Maru is stopped).
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(`console: ${m.text()}`);
  });
  page.setDefaultTimeout(15_000);
  return { context, page, pageErrors };
}

/** `step(name, fn)`: runs one step; on failure saves a screenshot and says which step and what maru logged. */
export function stepper(page, maru, pageErrors, failureShot) {
  return async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      const shot = path.join(outDir, failureShot);
      await page.screenshot({ path: shot, fullPage: false }).catch(() => {});
      const logTail = maru.log.join('').split('\n').slice(-30).join('\n');
      throw new Error(`step "${name}" failed: ${e.message}\n  screenshot: ${shot}\n  page errors: ${pageErrors.join(' | ') || 'none'}\n  maru log (tail):\n${logTail}`, { cause: e });
    }
  };
}

/**
 * One browser test's world: a data folder, the fake model server (`fake`: its options, or null for
 * none), `maru serve`, Chromium and a `step` runner, all torn down after the test.
 */
export async function setUp(t, name, fake = {}) {
  checkPrerequisites();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `maru-e2e-${name}-`));
  const model = fake === null ? null : await startFakeOpenAi(fake);
  const maru = await startMaru(path.join(tmp, 'data'), await freePort());
  const { context, page, pageErrors } = await openBrowser(tmp);
  t.after(async () => {
    await context.close().catch(() => {});
    await stopMaru(maru);
    await model?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return { tmp, fake: model, maru, context, page, pageErrors, step: stepper(page, maru, pageErrors, `${name}-failure.png`) };
}
