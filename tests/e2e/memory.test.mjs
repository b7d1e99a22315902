// Browser end-to-end: long-term memory the model proposes. The fake model server calls `remember`
// when a message holds a marker; with memory in "review first" (the default) the fact waits in the
// memory panel (a count on the Memory buttons), is not in section ⑤ until accepted, links back to
// the chat and message it came from, and once accepted shows in the context inspector's ⑤. Then a
// secret typed by hand is refused with the server's message, "Automatic" saves a proposal at once,
// and "Off" keeps the model from saving anything. Screenshots go to tests/e2e/out/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AFTER_TOOL_TEXT, MODEL, offeredTools, REMEMBER_FACT, REMEMBER_MARKER } from './fake-openai.mjs';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

const DOG_MARKER = '#dog';
const DOG_FACT = 'Has a dog named Bori.';
const CAT_MARKER = '#cat';
const CAT_FACT = 'Has a cat named Nabi.';
const PUPPY_MARKER = '#grown';
const PUPPY_FACT = 'Has a dog named Bori, now grown.';
const SECRET = 'My OpenAI API key is sk-proj-Zq81xK29vLmT4nB7cR0pW6yH3dS5fJ1a';

test('memory: the model proposes, the user reviews, section ⑤ uses what was accepted', { timeout: 180_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'memory', {
    pieceDelayMs: 40,
    toolScripts: [
      { marker: REMEMBER_MARKER, name: 'remember', arguments: { fact: REMEMBER_FACT } },
      { marker: DOG_MARKER, name: 'remember', arguments: { fact: DOG_FACT } },
      { marker: CAT_MARKER, name: 'remember', arguments: { fact: CAT_FACT } },
      { marker: PUPPY_MARKER, name: 'remember', arguments: { fact: PUPPY_FACT } },
    ],
  });

  /** Sends a message in the open chat and waits for the whole turn (tool call, result, answer). */
  const send = async (text) => {
    const composer = page.getByTestId('composer');
    await composer.fill(text);
    await composer.press('Enter');
    await page.getByTestId('message-user').filter({ hasText: text }).waitFor();
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByTestId('send').waitFor();
  };
  const memoryPanel = page.getByTestId('memory-panel');
  const openPanel = async (testId) => {
    const button = page.getByTestId(testId);
    if ((await button.getAttribute('aria-pressed')) !== 'true') await button.click();
  };
  const memorySection = page.locator('[data-testid=context-section][data-section=memory]');
  // The memory mode the server holds once the dialog's save of `mode` (sent as it was chosen) landed.
  const savedMode = async (mode) => {
    let held;
    for (let i = 0; i < 50 && held !== mode; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      held = (await api(maru.base, 'GET', '/api/settings')).memory_mode;
    }
    return held;
  };
  const saveSettings = async (mode) => {
    await page.getByTestId('open-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByRole('tab', { name: 'Memory' }).click();
    await dialog.getByTestId(`memory-mode-${mode}`).check();
    // Saved as it is chosen, with no Save button: Done only closes.
    await dialog.getByTestId('close-settings').click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await savedMode(mode), mode);
  };

  await step('point Maru at the fake model server; memory starts in "review first"', async () => {
    const s = await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
    assert.equal(s.memory_mode, 'review');
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
    assert.equal(await page.getByTestId('memory-pending-count').count(), 0, 'nothing waits for review yet');
  });

  let sessionId;
  await step('the model calls remember: the fact waits for review, counted on the Memory buttons', async () => {
    await send(`From now on, answer me in Korean please. ${REMEMBER_MARKER}`);
    assert.equal(fake.toolCalls.length, 1, 'the model called a tool once');
    assert.equal(fake.toolCalls[0].name, 'remember');
    const asked = fake.requests.at(-1);
    assert.equal(asked.messages.at(-1).role, 'tool', 'the model was asked again with the tool result');
    assert.ok(offeredTools(fake.requests.at(-2)).includes('remember'), 'the remember tool is offered');
    await page.getByTestId('message-assistant').last().getByText(AFTER_TOOL_TEXT).waitFor();
    sessionId = Number(await page.locator('[data-testid=session].active').getAttribute('data-session-id'));
    assert.ok(sessionId > 0);
    await page.getByTestId('open-memory').getByTestId('memory-pending-count').filter({ hasText: /^1$/ }).waitFor();
    await page.getByTestId('sidebar-memory').getByTestId('memory-pending-count').filter({ hasText: /^1$/ }).waitFor();
    const pending = await api(maru.base, 'GET', '/api/memories?status=pending');
    assert.deepEqual(pending.map((m) => [m.content, m.status, m.source_session_id]), [[REMEMBER_FACT, 'pending', sessionId]]);
    assert.deepEqual(await api(maru.base, 'GET', '/api/memories'), [], 'a proposal is not among the accepted facts');
  });

  await step('before it is accepted, section ⑤ does not carry the fact', async () => {
    await openPanel('open-context');
    await memorySection.waitFor();
    assert.ok(!(await memorySection.textContent()).includes(REMEMBER_FACT));
    assert.ok(!(await page.getByTestId('system-prompt').textContent()).includes(REMEMBER_FACT));
  });

  let sourceMessageId = null;
  await step('the memory panel shows the proposal and where it came from', async () => {
    await openPanel('open-memory');
    const proposal = memoryPanel.getByTestId('memory-proposal');
    await proposal.waitFor();
    assert.equal(await proposal.count(), 1);
    assert.equal(await proposal.locator('.memory-text').innerText(), REMEMBER_FACT);
    const source = proposal.getByTestId('memory-source');
    assert.equal(await source.getAttribute('href'), `#/chat/${sessionId}`);
    const title = (await api(maru.base, 'GET', `/api/sessions/${sessionId}`)).title;
    assert.equal(await source.innerText(), `from “${title}”`);
    sourceMessageId = await source.getAttribute('data-message-id');
    if (!sourceMessageId) t.diagnostic('the proposal names no source message: the link opens the chat only');
    assert.equal(await memoryPanel.getByTestId('memory-proposals').locator('h3').textContent(), 'Proposed (1)');
    await page.mouse.move(720, 450);
    await page.screenshot({ path: path.join(outDir, 'memory-proposal.png') });
  });

  await step('its link opens the chat it came from, at the message', async () => {
    await page.getByTestId('new-chat').click();
    await page.locator('.chat-title.draft').waitFor();
    await memoryPanel.getByTestId('memory-source').click();
    await page.waitForURL(new RegExp(`#/chat/${sessionId}$`));
    await page.getByTestId('chat-title').waitFor();
    if (sourceMessageId) await page.locator(`.msg.flash[data-message-id="${sourceMessageId}"]`).waitFor();
  });

  await step('accept it: the count goes, it is a saved fact', async () => {
    await memoryPanel.getByTestId('memory-proposal').getByTestId('memory-accept').click();
    await memoryPanel.getByTestId('memory-proposal').waitFor({ state: 'detached' });
    const fact = memoryPanel.getByTestId('memory').filter({ hasText: REMEMBER_FACT });
    await fact.waitFor();
    // A saved fact still says where it came from.
    assert.equal(await fact.getByTestId('memory-source').getAttribute('href'), `#/chat/${sessionId}`);
    assert.equal(await page.getByTestId('memory-pending-count').count(), 0);
    const accepted = await api(maru.base, 'GET', '/api/memories');
    assert.deepEqual(accepted.map((m) => [m.content, m.status]), [[REMEMBER_FACT, 'accepted']]);
  });

  await step("the context inspector: this chat's ⑤ names the fact it taught as left out, another chat's ⑤ carries it", async () => {
    await openPanel('open-context');
    const taught = memorySection.getByTestId('memory-taught-here');
    await taught.waitFor();
    assert.match(await taught.innerText(), new RegExp(`as this chat taught it[\\s\\S]*${REMEMBER_FACT.replace(/[.]/g, '\\.')}`), 'the user sees where the fact went, and why');
    assert.ok(!(await page.getByTestId('system-prompt').textContent()).includes(REMEMBER_FACT),
      "this chat's prompt stays as the server cached it: the conversation already holds the fact");
    assert.equal(await page.getByTestId('pending-change').count(), 0, "accepting the fact this chat taught does not change this chat's next prompt");
    await memorySection.scrollIntoViewIfNeeded();
    await page.mouse.move(720, 450);
    await page.screenshot({ path: path.join(outDir, 'memory-in-context.png') });
    const other = await api(maru.base, 'POST', '/api/sessions', {});
    await page.goto(`${maru.base}/#/chat/${other.id}`);
    await openPanel('open-context');
    await memorySection.locator('.section-text').waitFor();
    await memorySection.locator('.section-text summary').click();
    await memorySection.locator('.section-text pre', { hasText: REMEMBER_FACT }).waitFor();
    assert.match(await memorySection.getAttribute('class'), /present/);
    assert.ok((await page.getByTestId('system-prompt').textContent()).includes(REMEMBER_FACT), "another chat's full system prompt has it");
    assert.equal(await memorySection.getByTestId('memory-taught-here').count(), 0, 'and says nothing is left out there');
    await page.goto(`${maru.base}/#/chat/${sessionId}`);
    await page.getByTestId('chat-title').waitFor();
  });

  await step("a secret typed by hand is refused with the server's message, and the text stays", async () => {
    // What the server says to the same request.
    const res = await fetch(`${maru.base}/api/memories`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: SECRET }),
    });
    assert.equal(res.status, 400);
    const refusal = await res.json();
    assert.equal(refusal.code, 'secret_refused');
    await openPanel('open-memory');
    const input = memoryPanel.getByTestId('memory-input');
    await input.fill(SECRET);
    await memoryPanel.getByTestId('memory-add').click();
    const toast = page.locator('.toast-error', { hasText: refusal.message });
    await toast.waitFor();
    assert.equal(await input.inputValue(), SECRET);
    assert.equal((await api(maru.base, 'GET', '/api/memories?status=all')).length, 1, 'nothing was saved');
    await toast.locator('.icon-btn').click();
    await input.fill('');
  });

  await step('"Automatic": what the model proposes is saved at once', async () => {
    await saveSettings('auto');
    await send(`We got a puppy! ${DOG_MARKER}`);
    await memoryPanel.getByTestId('memory').filter({ hasText: DOG_FACT }).waitFor();
    assert.equal(await page.getByTestId('memory-pending-count').count(), 0);
    const accepted = await api(maru.base, 'GET', '/api/memories');
    assert.ok(accepted.some((m) => m.content === DOG_FACT && m.status === 'accepted'));
  });

  await step('"Off": the model cannot save a fact', async () => {
    await saveSettings('off');
    await page.getByTestId('memory-mode-line').filter({ hasText: 'Memory is off' }).waitFor();
    const before = fake.requests.length;
    await send(`And a kitten. ${CAT_MARKER}`);
    const offered = offeredTools(fake.requests[before]);
    if (offered.includes('remember')) t.diagnostic('with memory off the remember tool is still offered (its call is refused)');
    const all = await api(maru.base, 'GET', '/api/memories?status=all');
    assert.ok(!all.some((m) => m.content === CAT_FACT), 'nothing was saved with memory off');
    assert.equal(await page.getByTestId('memory-pending-count').count(), 0);
  });

  await step('screenshot: the memory setting', async () => {
    await page.getByTestId('open-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByRole('tab', { name: 'Memory' }).click();
    await dialog.getByTestId('memory-mode-review').check();
    await page.screenshot({ path: path.join(outDir, 'memory-settings.png') });
    await dialog.getByTestId('close-settings').click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await savedMode('review'), 'review');
  });

  await step('"Review first": a change to a saved fact waits beside it as a diff; dismissing keeps the fact', async () => {
    await openPanel('open-memory');
    await send(`Bori is all grown up. ${PUPPY_MARKER}`);
    const change = memoryPanel.getByTestId('memory-proposal');
    await change.getByTestId('memory-diff').waitFor();
    const added = (await change.getByTestId('memory-diff-added').allInnerTexts()).join(' ');
    assert.ok(added.includes('grown'), `the new words are marked: ${added}`);
    const accepted = await api(maru.base, 'GET', '/api/memories');
    assert.ok(accepted.some((m) => m.content === DOG_FACT && m.status === 'accepted'), 'the saved fact still reads as it did');
    await page.mouse.move(720, 450);
    await page.screenshot({ path: path.join(outDir, 'memory-change.png') });
    await change.getByTestId('memory-dismiss').click();
    await change.waitFor({ state: 'detached' });
    await memoryPanel.getByTestId('memory').filter({ hasText: DOG_FACT }).waitFor();
  });

  await step('no errors in the page', async () => {
    assert.deepEqual(pageErrors, []);
  });
});
