// Browser end-to-end: finding things where people look, in English and Korean. The chat header
// has a model picker of its own beside the preset (server and model, searchable, the server
// named among several); `/` in the composer lists the skills and loads the one chosen with the message (its
// procedure reaches the model in the same request); the sidebar collapses with its button and
// Ctrl+Shift+S, and stays so after a reload; at 900 px an open side panel leaves every header
// control in reach.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL } from './fake-openai.mjs';
import { api, outDir, setUp, sleep, TOKEN } from './harness.mjs';

const SKILL = '---\nname: trip-checklist\ndescription: Plan a trip step by step: bookings, packing, documents.\n---\nFirst list the bookings, then the packing (the TRIP-PROCEDURE).\n';

/** Which header controls something else covers at their centre (an open panel, say). */
function coveredControls(page) {
  return page.evaluate(() => [...document.querySelectorAll('.chat-head button')]
    .filter((b) => b.checkVisibility() && b.getBoundingClientRect().width > 0)
    .filter((b) => {
      const r = b.getBoundingClientRect();
      const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !top || !b.contains(top);
    })
    .map((b) => b.dataset.testid || b.getAttribute('aria-label')));
}

test('the model picker, the / menu, the sidebar that collapses, a panel at 900 px', async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'finding', { pieceDelayMs: 5 });
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  await api(maru.base, 'POST', '/api/skills', { text: SKILL });
  const project = await api(maru.base, 'POST', '/api/projects', { name: 'Travel', instructions: '' });
  const session = await api(maru.base, 'POST', '/api/sessions', { project_id: project.id, title: 'Spring trip' });

  await step('open the chat', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Travel' }).click();
    await page.locator(`[data-testid=session][data-session-id="${session.id}"]`).click();
    await page.getByTestId('chat-title').filter({ hasText: 'Spring trip' }).waitFor();
  });

  await step('the header’s model picker names the model and its server, and is searched', async () => {
    const picker = page.getByTestId('chat-model-picker');
    assert.equal(await picker.getByTestId('chat-model').innerText(), MODEL, 'the model, in full words');
    // With one server there is nothing to tell apart (servers.test.mjs names the server among several).
    assert.equal(await picker.getByTestId('chat-server').count(), 0, 'one server: its name is in the menu, not repeated in the header');
    const preset = await page.getByTestId('chat-setup').boundingBox();
    const box = await picker.boundingBox();
    assert.ok(box.x > preset.x && box.x - (preset.x + preset.width) < 24, 'beside the preset');
    await picker.click();
    const menu = page.locator('.menu');
    await menu.getByTestId('menu-search').fill('fake');
    await menu.getByRole('menuitem', { name: MODEL, exact: true }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'finding-model-picker-en.png') });
    await menu.getByRole('menuitem', { name: MODEL, exact: true }).click();
    await menu.waitFor({ state: 'detached' });
    assert.equal((await api(maru.base, 'GET', `/api/sessions/${session.id}`)).model, MODEL, 'the chosen model is the chat’s');
  });

  await step('`/` lists the skills; the one chosen goes with the message, and the model has its procedure', async () => {
    const composer = page.getByTestId('composer');
    await composer.click();
    await composer.pressSequentially('/tri');
    const menu = page.getByTestId('slash-menu');
    await menu.getByTestId('slash-item').filter({ hasText: '/trip-checklist' }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'finding-slash-en.png') });
    await composer.press('Enter');
    assert.equal(await composer.inputValue(), '/trip-checklist ', 'Enter puts the skill in the message, and sends nothing');
    await composer.pressSequentially('for Jeju in April');
    const before = fake.requests.length;
    await composer.press('Enter');
    await page.getByTestId('send').waitFor({ timeout: 30_000 });
    await page.getByTestId('message-assistant').last().waitFor();
    const sent = fake.requests.slice(before).find((r) => Array.isArray(r.messages) && r.messages.some((m) => m.role === 'tool'));
    assert.ok(sent, 'the turn’s request carries a tool result');
    const tool = sent.messages.filter((m) => m.role === 'tool').at(-1);
    assert.match(tool.content, /TRIP-PROCEDURE/, 'the skill’s procedure reached the model with the message');
    await page.screenshot({ path: path.join(outDir, 'finding-slash-sent-en.png') });
  });

  await step('the sidebar collapses with its button, stays so after a reload, and comes back with Ctrl+Shift+S', async () => {
    await page.getByTestId('collapse-sidebar').click();
    await page.locator('aside.sidebar').waitFor({ state: 'hidden' });
    await page.getByTestId('show-sidebar').waitFor();
    await page.screenshot({ path: path.join(outDir, 'finding-collapsed-en.png') });
    await page.reload();
    await page.getByTestId('chat-title').waitFor();
    assert.equal(await page.locator('aside.sidebar').isVisible(), false, 'still collapsed after a reload');
    await page.keyboard.press('Control+Shift+S');
    await page.locator('aside.sidebar').waitFor({ state: 'visible' });
  });

  await step('at 900 px an open panel leaves the header’s controls in reach, with the sidebar shown or not', async () => {
    await page.setViewportSize({ width: 900, height: 760 });
    await sleep(300);
    await page.getByTestId('open-context').click();
    await page.getByTestId('context-panel').waitFor();
    await sleep(300);
    assert.deepEqual(await coveredControls(page), [], 'no header control is under the panel');
    await page.screenshot({ path: path.join(outDir, 'finding-900-panel-en.png') });
    await page.keyboard.press('Control+Shift+S');
    await page.locator('aside.sidebar').waitFor({ state: 'hidden' });
    await sleep(300);
    assert.deepEqual(await coveredControls(page), [], 'collapsed, the chat and the panel share the window');
    await page.screenshot({ path: path.join(outDir, 'finding-900-collapsed-en.png') });
    await page.keyboard.press('Control+Shift+S');
    await page.getByTestId('open-context').click();
  });

  await step('Korean: the picker, the / menu and the sidebar’s buttons', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.reload();
    await page.getByTestId('chat-title').waitFor();
    assert.equal(await page.getByTestId('collapse-sidebar').getAttribute('aria-label'), '사이드바 숨기기');
    assert.match(await page.getByTestId('chat-model-picker').getAttribute('title'), /^모델: /);
    const composer = page.getByTestId('composer');
    await composer.click();
    await composer.pressSequentially('/');
    const menu = page.getByTestId('slash-menu');
    await menu.getByTestId('slash-item').first().waitFor();
    assert.match(await menu.innerText(), /스킬: 메시지와 함께 불러오기/);
    await page.screenshot({ path: path.join(outDir, 'finding-slash-ko.png') });
    await composer.press('Escape');
    await composer.fill('');
    await page.getByTestId('chat-model-picker').click();
    await page.locator('.menu').getByTestId('menu-search').waitFor();
    assert.equal(await page.locator('.menu').getByTestId('menu-search').getAttribute('placeholder'), '모델 검색');
    await page.screenshot({ path: path.join(outDir, 'finding-model-picker-ko.png') });
    await page.keyboard.press('Escape');
  });

  assert.deepEqual(pageErrors, [], 'no errors in the page');
});
