// Browser end-to-end: two model servers. The second is added in Settings (its models checked at
// once, its key never shown again), its model is picked in a chat's header among the models
// grouped by server, and the next reply comes from it, not from the default server; the header
// and the inspector name it. Screenshots in English and Korean at 1280 px.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL, startFakeOpenAi } from './fake-openai.mjs';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

const SECOND_MODEL = 'laptop-llama-3b';
const SECOND_PIECES = ['Answered', ' by', ' the', ' laptop', '.'];
const SECOND_TEXT = SECOND_PIECES.join('');
const KEY = 'sk-e2e-laptop-secret';

test('two model servers: add one in Settings, pick its model in a chat, the reply comes from it', { timeout: 150_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'servers', { pieceDelayMs: 5 });
  const second = await startFakeOpenAi({ model: SECOND_MODEL, pieceDelayMs: 5, replyPieces: SECOND_PIECES });
  t.after(() => second.close());
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  await page.setViewportSize({ width: 1280, height: 860 });
  const dialog = page.locator('dialog[open]');
  const laptopRow = dialog.locator('[data-testid=server][data-name="Laptop"]');
  let laptopId;

  await step('add the second server in Settings: its models are checked at once, its key is never shown', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('open-settings').click();
    await dialog.getByTestId('server').first().getByTestId('server-status').filter({ hasText: '1 model' }).waitFor();
    await dialog.getByTestId('add-server').click();
    const form = dialog.getByTestId('server-form');
    await form.getByTestId('server-address').fill(second.baseUrl);
    await form.getByTestId('server-name').fill('Laptop');
    await form.getByTestId('server-key').fill(KEY);
    await form.getByTestId('server-save').click();
    await laptopRow.getByTestId('server-status').filter({ hasText: '1 model' }).waitFor({ timeout: 5000 });
    assert.equal(await laptopRow.getByTestId('server-models').innerText(), SECOND_MODEL, 'the new server lists its model');
    assert.equal(await laptopRow.getByTestId('server-key-set').innerText(), 'Key', 'a saved key shows as a badge');
    assert.ok(!(await page.content()).includes(KEY), 'the key is nowhere in the page once saved');
    const servers = await api(maru.base, 'GET', '/api/connections');
    assert.deepEqual(servers.map((c) => [c.name, c.is_default, c.api_key_set]), [[servers[0].name, true, false], ['Laptop', false, true]]);
    laptopId = servers[1].id;
    await page.screenshot({ path: path.join(outDir, 'servers-settings-en.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await step('a first message goes to the default server', async () => {
    const composer = page.getByTestId('composer');
    await composer.fill('Hello there');
    await composer.press('Enter');
    await page.getByTestId('message-assistant').last().getByText('Hello from the fake model.', { exact: false }).waitFor({ timeout: 30_000 });
    await page.getByTestId('send').waitFor();
    assert.equal(fake.requests.length, 1, 'the default server answered');
    assert.equal(second.requests.length, 0);
  });

  await step('the header’s picker groups the models by server; picking the laptop’s sets the chat’s server and model', async () => {
    await page.getByTestId('chat-model-picker').click();
    const menu = page.locator('.menu');
    await menu.getByRole('menuitem', { name: SECOND_MODEL, exact: true }).waitFor();
    const headings = await menu.locator('.menu-heading').allInnerTexts();
    assert.ok(headings.map((s) => s.toLowerCase()).includes('laptop'), `the laptop's models are under its name (${headings.join(', ')})`);
    await page.screenshot({ path: path.join(outDir, 'servers-picker-en.png') });
    await menu.getByRole('menuitem', { name: SECOND_MODEL, exact: true }).click();
    await page.getByTestId('chat-server').filter({ hasText: 'Laptop' }).waitFor();
    assert.equal(await page.getByTestId('chat-model').innerText(), SECOND_MODEL);
    const id = Number(await page.locator('[data-testid=session].active').getAttribute('data-session-id'));
    const s = await api(maru.base, 'GET', `/api/sessions/${id}`);
    assert.deepEqual([s.connection_id, s.model], [laptopId, SECOND_MODEL], 'the chat asks the laptop for its model now');
  });

  await step('the next reply comes from the second server, and the inspector names it', async () => {
    const composer = page.getByTestId('composer');
    await composer.fill('Which server are you?');
    await composer.press('Enter');
    await page.getByTestId('message-assistant').last().getByText(SECOND_TEXT).waitFor({ timeout: 30_000 });
    await page.getByTestId('send').waitFor();
    assert.equal(second.requests.length, 1, 'the laptop got the request');
    assert.equal(second.requests[0].model, SECOND_MODEL, 'asking for its own model');
    assert.equal(fake.requests.length, 1, 'the default server got nothing more');
    await page.getByTestId('open-context').click();
    const server = page.getByTestId('context-server');
    await server.filter({ hasText: 'Laptop' }).waitFor();
    assert.match(await server.innerText(), new RegExp(second.baseUrl.replace(/[.]/g, '\\.')), 'with its address');
    await page.screenshot({ path: path.join(outDir, 'servers-chat-en.png') });
  });

  await step('at 600 px the header still fits, and names the server', async () => {
    await page.getByTestId('open-context').click();
    await page.getByTestId('context-panel').waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 600, height: 800 });
    await page.waitForTimeout(400);
    const m = await page.evaluate(() => {
      const head = document.querySelector('.chat-head');
      const setup = document.querySelector('[data-testid=chat-model-picker]').getBoundingClientRect();
      const server = document.querySelector('[data-testid=chat-server]');
      return { scroll: head.scrollWidth, client: head.clientWidth, right: setup.right, view: document.documentElement.clientWidth, server: server.getBoundingClientRect().width };
    });
    await page.screenshot({ path: path.join(outDir, 'servers-header-600.png') });
    assert.ok(m.scroll <= m.client + 1, `nothing is pushed out of the header (${m.scroll} px in ${m.client})`);
    assert.ok(m.right <= m.view, 'the picker is whole inside the window');
    assert.ok(m.server > 15, `some of the server's name shows (${m.server} px)`);
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.waitForTimeout(400);
  });

  await step('in Korean: the header, the picker and the Servers tab', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.getByTestId('chat-server').filter({ hasText: 'Laptop' }).waitFor();
    await page.getByTestId('open-context').click();
    await page.getByTestId('context-server').filter({ hasText: 'Laptop' }).waitFor();
    await page.getByTestId('chat-model-picker').click();
    const menu = page.locator('.menu');
    await menu.getByRole('menuitem', { name: SECOND_MODEL, exact: true }).waitFor();
    await menu.getByRole('menuitem', { name: '서버 관리…' }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'servers-picker-ko.png') });
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await page.getByTestId('open-settings').click();
    assert.equal(await dialog.locator('[role=tab][aria-selected=true]').innerText(), '서버');
    await laptopRow.getByTestId('server-status').filter({ hasText: '모델 1개' }).waitFor();
    assert.equal(await laptopRow.getByTestId('server-key-set').innerText(), '키');
    await page.screenshot({ path: path.join(outDir, 'servers-settings-ko.png') });
    const wordBreak = await laptopRow.evaluate((el) => getComputedStyle(el).wordBreak);
    assert.equal(wordBreak, 'keep-all', 'Korean breaks between words');
    await page.keyboard.press('Escape');
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
