// Browser end-to-end: following a reply as it is written. Scrolled up while a reply streams, the
// chat stays where the user put it and offers "Jump to latest"; the button brings the end into
// view and the chat follows the reply again; at the end, or once the reply is done, the button
// goes.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { LONG_END, MODEL, REPLY_TEXT, SLOW_PIECE_MS } from './fake-openai.mjs';
import { api, outDir, setUp, sleep, TOKEN } from './harness.mjs';

/** How far the chat's scroller is from its bottom, in px. */
const fromBottom = (page) => page.evaluate(() => {
  const s = document.querySelector('.scroller');
  return s.scrollHeight - s.scrollTop - s.clientHeight;
});

test('scrolled up while a reply streams: Jump to latest brings the end back and follows it', { timeout: 120_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'follow', { pieceDelayMs: 5, longPieces: 500, longPieceMs: 2 });
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  const jump = page.getByTestId('jump-latest');
  const live = page.getByTestId('message-live');

  await step('a long reply first, so that the chat is taller than the window', async () => {
    await page.setViewportSize({ width: 1100, height: 700 });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    const composer = page.getByTestId('composer');
    await composer.fill('Tell me everything #long');
    await composer.press('Enter');
    await page.getByTestId('message-assistant').filter({ hasText: LONG_END }).waitFor({ timeout: 30_000 });
    await live.waitFor({ state: 'detached' });
    assert.ok(await jump.isHidden(), 'no reply is being written: no button');
  });

  await step('while the next reply streams and the chat follows it, there is no button', async () => {
    const composer = page.getByTestId('composer');
    await composer.fill('And slowly? #slow');
    await composer.press('Enter');
    await live.filter({ hasText: 'Hello' }).waitFor();
    assert.ok(await fromBottom(page) < 2, 'the chat follows the reply at the bottom');
    assert.ok(await jump.isHidden(), 'at the bottom the button is not shown');
  });

  let where = 0;
  await step('scrolled up, the chat stays put and offers Jump to latest', async () => {
    const box = await page.locator('.scroller').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -2500);
    await jump.waitFor({ state: 'visible', timeout: 3000 });
    assert.equal((await jump.innerText()).trim(), 'Jump to latest');
    where = await page.evaluate(() => document.querySelector('.scroller').scrollTop);
    const text = await live.innerText();
    // Two pieces of the reply later, the user's place is where it was.
    await sleep(2 * SLOW_PIECE_MS + 100);
    assert.notEqual(await live.innerText(), text, 'the reply went on meanwhile');
    const now = await page.evaluate(() => document.querySelector('.scroller').scrollTop);
    assert.ok(Math.abs(now - where) <= 2, `the chat must not pull a reader back down (scrolled to ${where} px, now ${now} px)`);
    assert.ok(await fromBottom(page) > 200, 'the end is out of view');
    const jb = await jump.boundingBox();
    const sb = await page.locator('.scroller').boundingBox();
    assert.ok(jb.y > sb.y && jb.y + jb.height <= sb.y + sb.height, 'the button sits over the chat, above the composer');
    await page.screenshot({ path: path.join(outDir, 'jump-to-latest.png') });
  });

  await step('the button brings the end into view, goes, and the chat follows the reply again', async () => {
    await jump.click();
    assert.ok(await fromBottom(page) < 2, 'at the bottom after the jump');
    await jump.waitFor({ state: 'hidden', timeout: 2000 });
    const text = await live.innerText();
    await page.waitForFunction((before) => document.querySelector('[data-testid=message-live]')?.innerText !== before, text, { timeout: 5000 });
    await sleep(100);
    assert.ok(await fromBottom(page) < 2, 'new text of the reply keeps the end in view: following resumed');
  });

  await step('scrolled up again, the button goes once the reply is done', async () => {
    await page.mouse.wheel(0, -2500);
    await jump.waitFor({ state: 'visible', timeout: 3000 });
    await page.getByTestId('message-assistant').filter({ hasText: REPLY_TEXT.split('\n')[0].replace(/\*\*/g, '') }).last().waitFor({ timeout: 20_000 });
    await live.waitFor({ state: 'detached', timeout: 20_000 });
    await jump.waitFor({ state: 'hidden', timeout: 2000 });
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
