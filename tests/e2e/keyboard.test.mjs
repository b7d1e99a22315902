// Browser end-to-end: the keyboard shortcuts. Ctrl+/ lists them all (in English and in Korean),
// Ctrl+Shift+O starts a new chat, Ctrl+K goes to the search box, and Esc stops a reply, also
// one followed after a reload.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL, SLOW_MARKER } from './fake-openai.mjs';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

test('keyboard shortcuts: the list, new chat, search, and Esc to stop a reply', { timeout: 120_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'keyboard');
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });

  await step('Ctrl+/ lists every shortcut; pressed again, the list closes', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
    await page.keyboard.press('Control+/');
    const list = page.locator('dialog[open] [data-testid=shortcuts]');
    await list.waitFor();
    const rows = await list.getByTestId('shortcut').allInnerTexts();
    const flat = rows.map((r) => r.replace(/\s+/g, ' ').trim());
    for (const [keys, what] of [['Ctrl+K', 'Search every chat'], ['Ctrl+Shift+O', 'New chat'], ['Ctrl+/', 'Show keyboard shortcuts'], ['Esc', 'Stop the reply being written']]) {
      assert.ok(flat.some((r) => r.includes(keys) && r.includes(what)), `the list should show ${keys} for "${what}", but shows: ${flat.join(' | ')}`);
    }
    await page.screenshot({ path: path.join(outDir, 'shortcuts.png') });
    await page.keyboard.press('Control+/');
    await list.waitFor({ state: 'detached' });
    // Also from the sidebar, for whoever does not know the keys yet.
    await page.getByTestId('open-shortcuts').click();
    await list.waitFor();
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'detached' });
  });

  await step('in Korean, the list is in Korean', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.locator('[data-testid=project]', { hasText: '기본' }).waitFor();
    await page.keyboard.press('Control+/');
    const dialog = page.locator('dialog[open]');
    await dialog.getByRole('heading', { name: '키보드 단축키' }).waitFor();
    const text = await dialog.innerText();
    for (const words of ['모든 대화 검색', '새 대화', '쓰고 있는 답 멈추기']) assert.ok(text.includes(words), `the Korean list should say "${words}"`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await api(maru.base, 'PATCH', '/api/settings', { language: 'en' });
    await page.reload();
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
  });

  let chatId;
  await step('Ctrl+Shift+O leaves a chat for a new one', async () => {
    const composer = page.getByTestId('composer');
    await composer.fill('A first question');
    await composer.press('Enter');
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    await page.waitForURL(/#\/chat\/\d+$/);
    chatId = Number(/#\/chat\/(\d+)$/.exec(page.url())[1]);
    await page.keyboard.press('Control+Shift+O');
    await page.locator('.chat-title.draft').waitFor();
    assert.ok(!/#\/chat\//.test(page.url()), `a new chat has no address yet, but the page is at ${page.url()}`);
    assert.equal(await page.getByTestId('message-user').count(), 0, 'the new chat is empty');
  });

  await step('Ctrl+K goes to the search box', async () => {
    await page.keyboard.press('Control+K');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'search');
    await page.keyboard.press('Escape');
  });

  await step('Esc stops a reply followed after a reload', async () => {
    await page.locator(`[data-testid=session][data-session-id="${chatId}"] .session-link`).click();
    await page.waitForURL(new RegExp(`#/chat/${chatId}$`));
    const composer = page.getByTestId('composer');
    await composer.fill(`Take your time ${SLOW_MARKER}`);
    await composer.press('Enter');
    await page.getByTestId('message-live').getByText('Hello', { exact: false }).waitFor();
    await page.reload();
    const live = page.getByTestId('message-live');
    await live.getByText('Hello from', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await live.waitFor({ state: 'detached', timeout: 30_000 });
    const last = page.getByTestId('message-assistant').last();
    await last.getByTestId('status-badge').filter({ hasText: 'Stopped' }).waitFor();
    assert.ok(!(await last.innerText()).includes('- two'), 'the reply stopped before its end');
  });

  await step('no errors in the page', async () => {
    assert.deepEqual(pageErrors, []);
  });
});
