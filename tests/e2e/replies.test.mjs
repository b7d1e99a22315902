// Browser end-to-end: what a reply and a message show of what happened. A reply whose model called
// a tool is one reply (not one per round) with a chip per call; opened, a chip says what the call
// did for the user (the fact proposed, the passages found), never the words meant for the model,
// and a proposal's chip opens its review in the memory panel. A message shows the image (as a
// thumbnail that opens large) and the file it was sent with, and the file's size reads the same in
// the files panel, on the message and in the system prompt. Deleting a chat or a fact can be
// undone for a few seconds, and the notice offering it never covers the composer or Send, in a
// wide window or a narrow one. Screenshots go to tests/e2e/out/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AFTER_TOOL_TEXT, MODEL, REMEMBER_FACT, REMEMBER_MARKER } from './fake-openai.mjs';
import { api, outDir, setUp, sleep, TOKEN } from './harness.mjs';

const SEARCH_MARKER = '#search';
const NOTES = 'trip-notes.md';
/** About 1.5 KB: the prompt names it "2 KB" (kilobytes rounded up), so must everything else. */
const NOTES_TEXT = '# Spring trip\n\nWe fly to Busan on May 3 and stay near Haeundae beach.\n\n'
  + Array.from({ length: 24 }, (_, i) => `- packing item ${i + 1}: sunscreen, hats and a spare charger`).join('\n') + '\n';
const IMAGE = 'beach.png';
const UNDO_WAIT_MS = 9000;

/** Whether two boxes overlap (touching edges do not). */
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const box = (b) => `x ${Math.round(b.x)}–${Math.round(b.x + b.width)}, y ${Math.round(b.y)}–${Math.round(b.y + b.height)}`;

test('replies: one reply per turn with a chip per tool call; attachments on their message; undo', { timeout: 240_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'replies', {
    pieceDelayMs: 30,
    toolScripts: [
      { marker: REMEMBER_MARKER, name: 'remember', arguments: { fact: REMEMBER_FACT } },
      { marker: SEARCH_MARKER, name: 'search_attachment', arguments: { query: 'Busan' } },
    ],
  });

  const send = async (text) => {
    const composer = page.getByTestId('composer');
    await composer.fill(text);
    await composer.press('Enter');
    await page.getByTestId('message-user').filter({ hasText: text }).waitFor();
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByTestId('send').waitFor();
  };

  await step('point Maru at the fake model server', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
  });

  let sessionId;
  await step('attach a notes file and a photo in the composer; both get ready', async () => {
    // A small picture drawn in the page, so the thumbnail shows something.
    const png = await page.evaluate(() => {
      const c = document.createElement('canvas');
      c.width = 320;
      c.height = 200;
      const g = c.getContext('2d');
      const sky = g.createLinearGradient(0, 0, 0, 200);
      sky.addColorStop(0, '#7cc4f0');
      sky.addColorStop(0.6, '#d9f0fb');
      g.fillStyle = sky;
      g.fillRect(0, 0, 320, 200);
      g.fillStyle = '#2f7fb5';
      g.fillRect(0, 120, 320, 30);
      g.fillStyle = '#f1d9a4';
      g.fillRect(0, 150, 320, 50);
      g.fillStyle = '#ffcf3f';
      g.beginPath();
      g.arc(250, 50, 24, 0, Math.PI * 2);
      g.fill();
      return c.toDataURL('image/png').split(',')[1];
    });
    await page.getByTestId('attach-input').setInputFiles([
      { name: NOTES, mimeType: 'text/markdown', buffer: Buffer.from(NOTES_TEXT) },
      { name: IMAGE, mimeType: 'image/png', buffer: Buffer.from(png, 'base64') },
    ]);
    for (const name of [NOTES, IMAGE]) {
      await page.getByTestId('upload-chip').filter({ hasText: name }).and(page.locator('[data-status=ready]')).waitFor({ timeout: 30_000 });
    }
    sessionId = Number(await page.locator('[data-testid=session].active').getAttribute('data-session-id'));
    assert.ok(sessionId > 0);
  });

  await step('the message shows the photo it was sent with and the file, not a count; the chips leave the composer', async () => {
    await send(`Where do we go on the trip? ${SEARCH_MARKER}`);
    const user = page.getByTestId('message-user').last();
    const thumb = user.getByTestId('message-image');
    await thumb.waitFor();
    // The thumbnail is the image itself (its pixels loaded), not a placeholder.
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid=message-image] img');
      return img && img.complete && img.naturalWidth === 320;
    });
    assert.equal(await thumb.getAttribute('aria-label'), `View ${IMAGE}`);
    const chip = user.getByTestId('message-file');
    assert.match(await chip.innerText(), new RegExp(`^${NOTES.replace('.', '\\.')}\\s*2 KB$`), 'the file, with its size as the prompt names it');
    assert.ok(!(await user.innerText()).includes('sent with this message'), 'no longer only "1 image sent with this message"');
    assert.equal(await page.getByTestId('upload-chip').count(), 0, 'what was sent shows on the message, not also in the composer');
    const files = await api(maru.base, 'GET', `/api/attachments?session_id=${sessionId}`);
    const messages = (await api(maru.base, 'GET', `/api/sessions/${sessionId}/messages`)).messages;
    const sent = messages.find((m) => m.role === 'user');
    assert.deepEqual(sent.images, [files.find((f) => f.name === IMAGE).id], 'the server has the photo with the message');
  });

  await step('the file search is one reply with one chip: the tool, its query, what it found', async () => {
    const replies = page.getByTestId('message-assistant');
    assert.equal(await replies.count(), 1, 'the call, its result and the answer are one reply, not three');
    const reply = replies.first();
    await reply.getByText(AFTER_TOOL_TEXT).waitFor();
    assert.equal(await reply.getByTestId('figures').count(), 1, 'one line of figures for the reply');
    const chip = reply.getByTestId('tool-chip');
    assert.equal(await chip.count(), 1);
    assert.equal(await chip.getAttribute('data-tool'), 'search_attachment');
    assert.equal(await chip.getByTestId('tool-short').innerText(), '“Busan”');
    const found = Number((await chip.getByTestId('tool-status').innerText()).match(/^(\d+) found$/)?.[1]);
    assert.ok(found >= 1, 'the chip says how many passages were found');
    await chip.locator('summary').click();
    const result = chip.getByTestId('tool-result');
    await result.waitFor();
    assert.match(await result.innerText(), new RegExp(`From ${NOTES.replace('.', '\\.')}: ${found} passages?`));
    assert.equal(await chip.getByTestId('tool-passage').count(), found, 'each passage found is shown');
    assert.match(await chip.getByTestId('tool-passage').first().innerText(), /We fly to Busan on May 3/);
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'replies-search-chip.png') });
  });

  await step('a click on the thumbnail shows the photo large', async () => {
    await page.getByTestId('message-image').click();
    const large = page.locator('dialog[open] [data-testid=image-large]');
    await large.waitFor();
    const size = await large.boundingBox();
    assert.ok(size.width > 200, `the photo is shown large (${Math.round(size.width)} px wide)`);
    await page.screenshot({ path: path.join(outDir, 'replies-image-large.png') });
    await page.keyboard.press('Escape');
    await large.waitFor({ state: 'detached' });
  });

  await step('the files panel, the message and the system prompt name the same size', async () => {
    await page.getByTestId('open-files').click();
    const row = page.getByTestId('files-panel').getByTestId('file').filter({ hasText: NOTES });
    await row.waitFor();
    assert.match(await row.innerText(), /Markdown · 2 KB/);
    await page.getByTestId('open-files').click();
    // The system prompt the model gets lists the chat's files with their sizes.
    const prompt = (await api(maru.base, 'GET', `/api/sessions/${sessionId}/context`)).system_prompt;
    const line = prompt.split('\n').find((l) => l.includes(NOTES)) ?? '';
    assert.match(line, /\(.*\b2 KB\b.*\)/, `the prompt lists the file as 2 KB too: ${line}`);
  });

  await step('remember: one reply, its chip says what was proposed and opens the review', async () => {
    await send(`From now on, answer me in Korean please. ${REMEMBER_MARKER}`);
    const replies = page.getByTestId('message-assistant');
    assert.equal(await replies.count(), 2, 'two turns, two replies: no extra reply per tool round');
    const reply = replies.last();
    await reply.getByText(AFTER_TOOL_TEXT).waitFor();
    const chip = reply.getByTestId('tool-chip');
    assert.equal(await chip.getByTestId('tool-status').innerText(), 'proposed');
    assert.equal(await chip.getByTestId('tool-short').innerText(), REMEMBER_FACT);
    await chip.locator('summary').click();
    const result = chip.getByTestId('tool-result');
    assert.equal(await result.getByTestId('tool-fact').innerText(), REMEMBER_FACT);
    assert.ok(!/do not repeat|The user reviews/.test(await result.innerText()), 'no words meant for the model');
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'replies-remember-chip.png') });
    await result.getByTestId('tool-open-memory').click();
    const proposal = page.getByTestId('memory-panel').getByTestId('memory-proposal').filter({ hasText: REMEMBER_FACT });
    await proposal.waitFor();
    await page.locator('[data-testid=memory-proposal].flash').waitFor();
    await page.screenshot({ path: path.join(outDir, 'replies-review-from-chip.png') });
  });

  await step('a dismissed proposal comes back with Undo; the server never lost it', async () => {
    const proposal = page.getByTestId('memory-panel').getByTestId('memory-proposal').filter({ hasText: REMEMBER_FACT });
    await proposal.getByTestId('memory-dismiss').click();
    await proposal.waitFor({ state: 'detached' });
    const toast = page.getByTestId('toast').filter({ hasText: 'Dismissed the proposal' });
    await toast.getByTestId('toast-action').click();
    await proposal.waitFor();
    await sleep(UNDO_WAIT_MS);
    const pending = await api(maru.base, 'GET', '/api/memories?status=pending');
    assert.deepEqual(pending.map((m) => m.content), [REMEMBER_FACT], 'undone: still proposed on the server');
    await page.getByTestId('open-memory').click();
  });

  /** The notice offering Undo, and the composer and Send: they must not overlap. */
  const checkToastClear = async (label) => {
    const toast = page.getByTestId('toast').filter({ has: page.getByTestId('toast-action') }).last();
    await toast.waitFor();
    const [t1, c1, s1] = [await toast.boundingBox(), await page.locator('.composer').boundingBox(), await page.getByTestId('send').boundingBox()];
    assert.ok(!overlaps(t1, c1), `${label}: the notice (${box(t1)}) must not cover the composer (${box(c1)})`);
    assert.ok(!overlaps(t1, s1), `${label}: the notice (${box(t1)}) must not cover Send (${box(s1)})`);
    const vp = page.viewportSize();
    assert.ok(t1.x >= 0 && t1.x + t1.width <= vp.width && t1.y >= 0, `${label}: the notice is inside the window (${box(t1)})`);
    assert.ok(t1.height <= 90 && t1.width >= Math.min(300, vp.width - 40), `${label}: the notice has room for its words, not squeezed to a column (${box(t1)})`);
  };

  await step('delete the chat: it goes at once, Undo brings it back (wide window); the notice keeps clear of the composer', async () => {
    const session = page.locator(`[data-testid=session][data-session-id="${sessionId}"]`);
    await session.hover();
    await session.getByTestId('session-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete' }).click();
    await session.waitFor({ state: 'detached' });
    await page.locator('.chat-title.draft').waitFor();
    await checkToastClear('1440×900');
    // Typing several lines grows the composer: the notice moves up with it.
    await page.getByTestId('composer').fill('one\ntwo\nthree\nfour\nfive');
    await sleep(100);
    await checkToastClear('1440×900, a taller composer');
    await page.screenshot({ path: path.join(outDir, 'replies-undo-wide.png') });
    await page.getByTestId('composer').fill('');
    await page.getByTestId('toast-action').click();
    await session.waitFor();
    await page.getByTestId('chat-title').waitFor();
    assert.equal(await page.getByTestId('message-assistant').count(), 2, 'the chat is back, open, with its replies');
    await sleep(UNDO_WAIT_MS);
    const s = await api(maru.base, 'GET', `/api/sessions/${sessionId}`);
    assert.equal(s.id, sessionId, 'undone: the server still has the chat');
  });

  await step('in a narrow window the notice keeps clear of the composer too; without Undo the chat is deleted', async () => {
    await page.setViewportSize({ width: 400, height: 760 });
    await sleep(400);
    await page.getByTestId('chat-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete' }).click();
    await page.locator('.chat-title.draft').waitFor();
    await checkToastClear('400×760');
    await page.screenshot({ path: path.join(outDir, 'replies-undo-narrow.png') });
    await sleep(UNDO_WAIT_MS);
    const res = await fetch(`${maru.base}/api/sessions/${sessionId}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404, 'once Undo has gone, the chat is deleted');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await step('no errors in the page', async () => {
    assert.deepEqual(pageErrors, []);
  });
});
