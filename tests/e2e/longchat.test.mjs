// Browser end-to-end: a chat of 1,000 messages stays responsive. The messages are written into
// maru.db directly (maru stopped), then a reply streams at about 200 words a second while a
// PerformanceObserver records the main thread's long tasks. Checks that scrolling up loads older
// messages on its own, keeping the view still, until the first message shows, and back down; that
// the reply then arrives whole (streamed with all 1,000 messages loaded); and that the page never
// holds more than a bounded number of message elements.
//
// The longest task is always printed; with MARU_BENCH=1 a task over 50 ms fails the test.
//
// Needs the sqlite3 command. Env: as chat.test.mjs, and MARU_BENCH.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LONG_END, LONG_MARKER, MODEL, startFakeOpenAi } from './fake-openai.mjs';
import { TOKEN, api, checkPrerequisites, freePort, openBrowser, outDir, sleep, startMaru, stepper } from './harness.mjs';

const SEEDED = 1000;
const LONG_WORDS = 600;
/** Message elements the chat keeps in the page at most (ui/src/views/chat.ts, MAX_SHOWN). */
const MAX_ELEMENTS = 200;
const BENCH = process.env.MARU_BENCH === '1';
const LONG_TASK_LIMIT_MS = 50;

/** Writes `n` alternating user and assistant messages into the session, straight into maru.db. */
function seed(db, sessionId, n) {
  const sql = (q) => execFileSync('sqlite3', [db], { input: q, encoding: 'utf8' });
  // The search index's trigger calls a function only maru registers: it is set aside meanwhile
  // (the seeded messages are simply not searchable).
  const trigger = sql("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_index';").trim();
  assert.ok(trigger.startsWith('CREATE TRIGGER'), `maru.db should have the messages_index trigger, found: ${trigger}`);
  const nl = "char(10)";
  sql(`BEGIN;
DROP TRIGGER messages_index;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
INSERT INTO messages (session_id, role, content, status, created_at, updated_at)
SELECT ${sessionId},
  CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END,
  CASE WHEN i % 2 = 1 THEN 'Question ' || i || ': what about part ' || i || ' of the plan?'
       WHEN i % 10 = 0 THEN 'Answer ' || i || ' with code:' || ${nl} || ${nl} || '\`\`\`js' || ${nl} || 'console.log(' || i || ');' || ${nl} || '\`\`\`' || ${nl} || ${nl} || 'That is **all** for now.'
       ELSE 'Answer ' || i || '. Here is **some** text with a list:' || ${nl} || ${nl} || '- first point' || ${nl} || '- second point, a little longer than the first' || ${nl} || ${nl} || 'And a closing paragraph for message ' || i || '.' END,
  'complete', 1700000000000 + i * 1000, 1700000000000 + i * 1000
FROM k;
-- One branch, as Maru writes a chat: each message follows the one before it.
UPDATE messages SET parent_id = (SELECT max(p.id) FROM messages p WHERE p.session_id = ${sessionId} AND p.id < messages.id)
WHERE session_id = ${sessionId};
${trigger};
COMMIT;`);
  return Number(sql(`SELECT min(id) FROM messages WHERE session_id = ${sessionId};`).trim());
}

test('a chat of 1,000 messages: streaming, a bounded page, older messages as the user scrolls up', { timeout: 240_000 }, async (t) => {
  checkPrerequisites();
  try {
    execFileSync('sqlite3', ['-version']);
  } catch {
    assert.fail('the long chat is written into maru.db with the sqlite3 command: apt-get install sqlite3');
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'maru-e2e-long-'));
  const dataDir = path.join(tmp, 'data');
  const fake = await startFakeOpenAi({ longPieces: LONG_WORDS, longPieceMs: 5, maxModelLen: 1_000_000 });
  const port = await freePort();

  // A session made through the API, then filled while maru is stopped.
  let maru = await startMaru(dataDir, port);
  const session = await api(maru.base, 'POST', '/api/sessions', {});
  await api(maru.base, 'PATCH', `/api/sessions/${session.id}`, { title: 'A very long chat' });
  maru.child.kill('SIGTERM');
  await new Promise((r) => maru.child.once('exit', r));
  const firstId = seed(path.join(dataDir, 'maru.db'), session.id, SEEDED);
  maru = await startMaru(dataDir, port);
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });

  const { context, page, pageErrors } = await openBrowser(tmp);
  t.after(async () => {
    await context.close().catch(() => {});
    maru.child.kill('SIGTERM');
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const step = stepper(page, maru, pageErrors, 'longchat-failure.png');
  const messageCount = () => page.locator('.messages .msg').count();

  await step('open the long chat: its newest messages show', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator(`[data-testid=session][data-session-id="${session.id}"] .session-link`).click();
    await page.getByTestId('message-user').filter({ hasText: `Question ${SEEDED - 1}:` }).waitFor();
    assert.ok(await messageCount() <= MAX_ELEMENTS, 'the chat opens on a page of messages, not all of them');
    // The main thread's long tasks from now on.
    await page.evaluate(() => {
      const w = window;
      w.longTasks = [];
      w.longTaskObserver = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.longTasks.push(e.duration);
      });
      w.longTaskObserver.observe({ type: 'longtask' });
    });
  });

  await step('scrolling up loads older messages without moving what is on screen', async () => {
    // Near the top of what is drawn: more is drawn above, and the message in view stays put.
    const before = await page.evaluate(() => {
      const scroller = document.querySelector('.scroller');
      scroller.scrollTop = 200;
      const top = scroller.getBoundingClientRect().top;
      const el = [...document.querySelectorAll('.messages .msg')].find((m) => m.getBoundingClientRect().bottom > top);
      return { id: el.dataset.messageId, top: el.getBoundingClientRect().top, first: document.querySelector('.messages .msg').dataset.messageId };
    });
    await page.waitForFunction((first) => document.querySelector('.messages .msg')?.dataset.messageId !== first, before.first);
    await sleep(100);
    const after = await page.evaluate((id) => document.querySelector(`.msg[data-message-id="${id}"]`)?.getBoundingClientRect().top ?? null, before.id);
    assert.ok(after !== null, 'the message that was in view is still in the page');
    assert.ok(Math.abs(after - before.top) <= 2, `the message in view should stay where it was (${before.top} px), but moved to ${after} px`);
  });

  await step('scrolling up reaches the first message, the page staying bounded', async () => {
    await page.evaluate(() => window.longTasks.splice(0));
    const box = await page.locator('.scroller').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const first = page.locator(`.msg[data-message-id="${firstId}"]`);
    let most = 0;
    let wheels = 0;
    for (; wheels < 400 && (await first.count()) === 0; wheels++) {
      await page.mouse.wheel(0, -4000);
      await sleep(60);
      most = Math.max(most, await messageCount());
    }
    assert.equal(await first.count(), 1, `the first message should be reached by scrolling up (after ${wheels} turns of the wheel)`);
    assert.ok(most <= MAX_ELEMENTS, `the page should hold at most ${MAX_ELEMENTS} messages while scrolling, but held ${most}`);
    await page.mouse.wheel(0, -4000);
    await sleep(200);
    const inView = await first.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const box = el.closest('.scroller').getBoundingClientRect();
      return r.bottom > box.top && r.top < box.bottom;
    });
    assert.ok(inView, 'the first message is on screen at the top of the chat');
    assert.match(await first.innerText(), /Question 1: what about part 1 /);
    assert.equal(await page.getByTestId('older').isVisible(), false, 'nothing older is offered at the very top');
    const scrolled = await page.evaluate(() => window.longTasks.splice(0));
    const line = `longest main-thread task while scrolling up through ${SEEDED} messages: ${Math.round(Math.max(0, ...scrolled))} ms (${scrolled.length} tasks over 50 ms, ${wheels} turns of the wheel)`;
    console.log(line);
    t.diagnostic(line);
    await page.screenshot({ path: path.join(outDir, 'long-chat-top.png') });
  });

  await step('scrolling back down returns to the newest messages', async () => {
    const newest = page.getByTestId('message-user').filter({ hasText: `Question ${SEEDED - 1}:` });
    let wheels = 0;
    for (; wheels < 400 && !(await newest.count() && await page.evaluate(() => {
      const s = document.querySelector('.scroller');
      return s.scrollHeight - s.scrollTop - s.clientHeight < 5;
    })); wheels++) {
      await page.mouse.wheel(0, 4000);
      await sleep(60);
    }
    assert.equal(await newest.count(), 1, `the newest messages should be back after scrolling down (${wheels} turns of the wheel)`);
    const n = await messageCount();
    assert.ok(n <= MAX_ELEMENTS, `the page should hold at most ${MAX_ELEMENTS} messages, but holds ${n}`);
  });

  let streamed;
  await step('a reply streams at about 200 words a second without long main-thread tasks', async () => {
    await page.evaluate(() => window.longTasks.splice(0));
    const composer = page.getByTestId('composer');
    await composer.fill(`Please write at length ${LONG_MARKER}`);
    await composer.press('Enter');
    await page.getByTestId('message-live').waitFor();
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 60_000 });
    await page.getByTestId('send').waitFor();
    const reply = page.getByTestId('message-assistant').last();
    const text = await reply.locator('.md').innerText();
    assert.ok(text.includes(LONG_END), `the reply should arrive complete, ending with "${LONG_END}", but ends with: ${text.slice(-120)}`);
    assert.ok(text.includes(`w${LONG_WORDS}`), `every word of the reply should be there (w${LONG_WORDS} is missing)`);
    await sleep(300);
    streamed = await page.evaluate(() => window.longTasks.splice(0));
    const longest = Math.round(Math.max(0, ...streamed));
    const line = `longest main-thread task while ${LONG_WORDS} words streamed into a ${SEEDED}-message chat: ${longest} ms (${streamed.length} tasks over 50 ms)`;
    console.log(line);
    t.diagnostic(line);
    if (BENCH) assert.ok(longest < LONG_TASK_LIMIT_MS, `MARU_BENCH: the main thread was blocked for ${longest} ms (limit ${LONG_TASK_LIMIT_MS} ms)`);
    const n = await messageCount();
    assert.ok(n <= MAX_ELEMENTS, `the page should hold at most ${MAX_ELEMENTS} messages after the reply, but holds ${n}`);
  });

  await step('no errors in the page', async () => {
    assert.deepEqual(pageErrors, []);
  });
});
