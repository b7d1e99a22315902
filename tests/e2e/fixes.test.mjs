// Browser end-to-end: smaller things a user notices. A project's chat count follows new chats
// without a reload (and its delete dialog says how many move); sending with no model server
// keeps the chat and the message, says what is wrong and offers the settings; the chat menu
// stays inside a narrow window; a title the model could not write is asked for again from it.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL } from './fake-openai.mjs';
import { api, freePort, outDir, setUp, sleep, TOKEN } from './harness.mjs';

test('project counts, sending with no model server, the chat menu in a narrow window', { timeout: 120_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'fixes', { pieceDelayMs: 20 });

  await step('sending with no model server: the chat and the message stay, the error says what to do and offers the settings', async () => {
    const closed = await freePort();
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: `http://127.0.0.1:${closed}/v1` });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
    // The banner offered at start is dismissed: the chat itself must say what is wrong.
    await page.getByTestId('server-banner').waitFor();
    await page.getByTestId('server-banner').getByRole('button', { name: 'Close' }).click();
    const composer = page.getByTestId('composer');
    await composer.fill('Is anyone there?');
    await composer.press('Enter');
    const reply = page.getByTestId('message-assistant').last();
    await reply.locator('.msg-error').waitFor({ timeout: 30_000 });
    assert.match(await reply.locator('.msg-error').innerText(), new RegExp(`127\\.0\\.0\\.1:${closed}`), 'the error names the address that does not answer');
    await page.getByTestId('message-user').filter({ hasText: 'Is anyone there?' }).waitFor();
    const active = page.locator('[data-testid=session].active');
    await active.filter({ hasText: 'Is anyone there?' }).waitFor();
    const sessions = await api(maru.base, 'GET', '/api/sessions');
    assert.equal(sessions.sessions.length, 1, 'one chat, the one sent from');
    assert.equal(sessions.sessions[0].title, 'Is anyone there?', 'the chat is named by its message, not by the error');
    await page.screenshot({ path: path.join(outDir, 'no-model-server-reply.png') });
    // The way out: the server settings, from the failed reply.
    await reply.getByTestId('reply-server-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByTestId('servers').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  });

  await step('a project counts its new chats at once, and its delete dialog says how many move', async () => {
    await page.getByTestId('new-project').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('input[name=name]').fill('Temp');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog.waitFor({ state: 'detached' });
    const head = page.locator('[data-testid=project]', { hasText: 'Temp' });
    await head.waitFor();
    for (const text of ['First chat in Temp', 'Second chat in Temp']) {
      await head.hover();
      await head.getByRole('button', { name: 'New chat in Temp' }).click();
      await page.getByTestId('chat-project').filter({ hasText: 'Temp' }).waitFor();
      const composer = page.getByTestId('composer');
      await composer.fill(text);
      await composer.press('Enter');
      await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    }
    await head.locator('.count').filter({ hasText: /^2$/ }).waitFor({ timeout: 5000 }).catch(async () => {
      assert.fail(`the sidebar should count 2 chats in Temp without a reload, but says ${await head.locator('.count').innerText()}`);
    });
    await head.hover();
    await head.getByTestId('project-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.locator('dialog[open]');
    await confirm.getByText('Its 2 chats move to the Default project').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
  });

  await step('a title the model could not write is asked for again from the chat menu, and Undo takes it back', async () => {
    const chat = page.locator('[data-testid=session].active');
    const before = await page.getByTestId('chat-title').innerText();
    // Each of Temp's two chats asked for its title after its first exchange (answered empty).
    for (let i = 0; fake.titles.length < 2; i++) {
      assert.ok(i < 100, `the two chats' own title requests come within 10 s (${fake.titles.length} came)`);
      await sleep(100);
    }
    const asked = fake.titles.length;
    fake.titleAnswers.push('"Second chat, renamed by the model."');
    await page.getByTestId('chat-menu').click();
    await page.getByRole('menuitem', { name: 'New title from the model' }).click();
    await page.getByTestId('chat-title').filter({ hasText: 'Second chat, renamed by the model' }).waitFor();
    await chat.filter({ hasText: 'Second chat, renamed by the model' }).waitFor();
    assert.equal(fake.titles.length, asked + 1, 'the model was asked once');
    assert.match(JSON.stringify(fake.titles.at(-1).messages), /Second chat in Temp/, 'the model read the conversation to name it');
    await page.locator('.toast', { hasText: 'New title: Second chat, renamed by the model' }).getByRole('button', { name: 'Undo' }).click();
    await page.getByTestId('chat-title').filter({ hasText: before }).waitFor();
    // An answer that is no title says so and changes nothing.
    await page.getByTestId('chat-menu').click();
    await page.getByRole('menuitem', { name: 'New title from the model' }).click();
    await page.locator('.toast', { hasText: 'which is no title' }).waitFor();
    assert.equal(await page.getByTestId('chat-title').innerText(), before, 'the title is unchanged');
  });

  await step('the chat menu stays inside a narrow window', async () => {
    await page.setViewportSize({ width: 480, height: 760 });
    // The sidebar slides away as the window narrows.
    await sleep(400);
    await page.getByTestId('chat-menu').click();
    const menu = page.locator('.menu');
    await menu.waitFor();
    const box = await menu.boundingBox();
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 480 && box.y + box.height <= 760,
      `the menu should be inside the 480×760 window, but spans x ${Math.round(box.x)}–${Math.round(box.x + box.width)}, y ${Math.round(box.y)}–${Math.round(box.y + box.height)}`);
    for (const item of await menu.getByRole('menuitem').all()) assert.ok(await item.isVisible(), `menu item "${await item.innerText()}" is visible`);
    await page.screenshot({ path: path.join(outDir, 'chat-menu-narrow.png') });
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await step('no errors in the page', async () => {
    assert.deepEqual(pageErrors, []);
  });
});
