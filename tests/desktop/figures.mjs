// The desktop app's figures, printed (a benchmark, not a test: nothing here fails on a number):
// idle memory summed over Maru's processes (PSS) with an empty data folder and after opening a
// 1,000-message chat, and the time from launch to a sidebar listing 10,000 chats.
// Run: tests/desktop/run.sh figures.mjs (MARU_DESKTOP_BIN=<a release build> for the real figures).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WebDriver, sleep } from './webdriver.mjs';

const BIN = process.env.MARU_DESKTOP_BIN;
const DRIVER = process.env.TAURI_DRIVER_URL;
const IDLE_MS = Number(process.env.MARU_IDLE_MS || 8000);

/** Every process under `pid` (WebKit's web and network processes are Maru's children). */
function tree(pid) {
  const children = new Map();
  for (const dir of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${dir}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(dir)]);
    } catch {
      // gone meanwhile
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]) ?? []));
  return all;
}

/** Proportional set size of each process, in MB: shared pages counted once across them all. */
function pss(pid) {
  return tree(pid).map((p) => {
    const name = fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim();
    const kb = Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    return { name, mb: kb / 1024 };
  });
}

function maruPid(dataDir) {
  for (const dir of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${dir}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(dataDir) && !cmd.includes('serve')) return Number(dir);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('the maru process was not found');
}

function report(label, rows) {
  const total = rows.reduce((s, r) => s + r.mb, 0);
  const parts = rows.filter((r) => r.mb >= 1).map((r) => `${r.name} ${r.mb.toFixed(0)}`).join(' + ');
  console.log(`${label}: ${total.toFixed(0)} MB PSS (${parts})`);
}

/** Creates the schema with `maru serve`, then writes chats straight into maru.db. */
async function seed(dataDir, sessions, messages) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const serve = spawn(BIN, ['serve', '--data-dir', dataDir, '--port', String(port), '--token', 'figures'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { Authorization: 'Bearer figures' } }).then((r) => r.ok, () => false);
    if (ok) break;
    await sleep(100);
  }
  serve.kill('SIGTERM');
  await new Promise((r) => serve.on('exit', r));
  const db = path.join(dataDir, 'maru.db');
  const sql = (q) => execFileSync('sqlite3', [db], { input: q, encoding: 'utf8' });
  // Triggers that call functions only Maru registers (the search index) are set aside meanwhile.
  const triggers = sql("SELECT sql || ';' FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('sessions', 'messages');");
  const names = sql("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('sessions', 'messages');").trim().split('\n').filter(Boolean);
  sql(`BEGIN;
${names.map((n) => `DROP TRIGGER ${n};`).join('\n')}
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${sessions})
INSERT INTO sessions (project_id, title, created_at, updated_at)
SELECT (SELECT id FROM projects ORDER BY id LIMIT 1), 'Chat number ' || i, 1700000000000 + i * 1000, 1700000000000 + i * 1000 FROM k;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${messages})
INSERT INTO messages (session_id, role, content, status, created_at, updated_at)
SELECT (SELECT max(id) FROM sessions), CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END,
  'Message ' || i || ' with **some** text, a list:' || char(10) || char(10) || '- one' || char(10) || '- two' || char(10) || char(10) || '\`\`\`js' || char(10) || 'console.log(' || i || ');' || char(10) || '\`\`\`',
  'complete', 1800000000000 + i, 1800000000000 + i FROM k;
-- One branch, as Maru writes a chat: each message follows the one before it.
UPDATE messages SET parent_id = (SELECT max(p.id) FROM messages p WHERE p.session_id = messages.session_id AND p.id < messages.id)
WHERE session_id = (SELECT max(id) FROM sessions);
${triggers}
COMMIT;`);
}

const wd = new WebDriver(DRIVER);
try {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'maru-figures-empty-'));
  await wd.start(BIN, ['--data-dir', empty]);
  await wd.waitFor('[data-testid=project]', { text: 'Default' });
  await sleep(IDLE_MS);
  report('idle, empty data folder', pss(maruPid(empty)));
  await wd.quit();

  const full = fs.mkdtempSync(path.join(os.tmpdir(), 'maru-figures-full-'));
  await seed(full, 10_000, 1_000);
  const launched = Date.now();
  await wd.start(BIN, ['--data-dir', full]);
  await wd.waitFor('[data-testid=session]', { text: 'Chat number', timeout: 30_000 });
  console.log(`launch to a sidebar listing 10,000 chats: ${Date.now() - launched} ms`);
  await wd.click(await wd.waitFor('[data-testid=session]', { text: 'Chat number 10000' }));
  await wd.waitFor('[data-testid=message-assistant]', { text: 'Message 1000 ' });
  await sleep(IDLE_MS);
  report('idle, after opening a 1,000-message chat', pss(maruPid(full)));
  await wd.quit();
  for (const d of [empty, full]) fs.rmSync(d, { recursive: true, force: true });
} finally {
  await wd.quit();
}
