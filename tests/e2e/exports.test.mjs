// Browser end-to-end: getting data out and back in. A chat's menu saves it as Markdown (the
// download happens, named after the chat, with its messages), the settings' Data tab saves a
// backup zip and shows how to restore it, and a chat exported as JSON imports through the file
// picker as a new chat.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

/** A chat as Maru exports it to JSON (format version 1). */
function exportedChat(title) {
  const at = Date.UTC(2026, 10, 1, 9, 0);
  const message = (role, content, extra = {}) => ({ role, content, status: 'complete', created_at: at, ...extra });
  return {
    format: 'maru-chat',
    version: 1,
    exported_at: at,
    session: { title, preset: null, created_at: at, updated_at: at },
    project: { name: 'Default', instructions: '', is_default: true },
    messages: [
      message('user', 'What is on the calendar this week? 이번 주 일정은?'),
      message('assistant', 'Swimming on **Tuesday**.', { model: 'fake-model', completion_tokens: 5 }),
    ],
  };
}

test('a chat exports as Markdown from its menu; backup and import from the Data tab', { timeout: 120_000 }, async (t) => {
  const { tmp, maru, page, pageErrors, step } = await setUp(t, 'exports', null);
  const chat = await api(maru.base, 'POST', '/api/import', exportedChat('Week plans: Q4'));

  await step('the chat menu saves the chat as Markdown', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    const session = page.locator(`[data-testid=session][data-session-id="${chat.id}"]`);
    await session.waitFor();
    await session.hover();
    await session.getByTestId('session-menu').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export as Markdown' }).click()]);
    assert.equal(download.suggestedFilename(), 'Week plans Q4.md', 'named after the chat, without characters a file name cannot hold');
    const file = path.join(tmp, download.suggestedFilename());
    await download.saveAs(file);
    const md = fs.readFileSync(file, 'utf8');
    assert.match(md, /^# Week plans: Q4\n/, 'the title heads the file');
    assert.ok(md.indexOf('## You') < md.indexOf('이번 주 일정은?'), 'the question under its heading');
    assert.ok(md.indexOf('## Assistant (fake-model)') < md.indexOf('Swimming on **Tuesday**.'), 'the reply under its heading, as written');
    await page.getByText('Saved Week plans Q4.md').waitFor();
  });

  await step('the Data tab saves a backup and shows how to restore it', async () => {
    await page.getByTestId('open-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByRole('tab', { name: 'Data' }).click();
    assert.match(await dialog.getByTestId('restore-command').innerText(), /^maru restore .*--data-dir/, 'the restore command is spelled out');
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('backup-all').click()]);
    assert.match(download.suggestedFilename(), /^maru-backup-\d{8}-\d{6}\.zip$/);
    const file = path.join(tmp, 'backup.zip');
    await download.saveAs(file);
    const bytes = fs.readFileSync(file);
    assert.equal(bytes.subarray(0, 2).toString(), 'PK', 'the backup is a zip');
    await page.screenshot({ path: path.join(outDir, 'settings-data.png') });
  });

  await step('a chat exported as JSON imports from the Data tab and opens', async () => {
    const dialog = page.locator('dialog[open]');
    const file = path.join(tmp, 'chat.json');
    fs.writeFileSync(file, JSON.stringify(exportedChat('Imported plans')));
    await dialog.getByTestId('import-file').setInputFiles(file);
    await page.getByTestId('message-assistant').filter({ hasText: 'Swimming on Tuesday.' }).waitFor();
    await page.locator('[data-testid=session].active', { hasText: 'Imported plans' }).waitFor();
    const sessions = await api(maru.base, 'GET', '/api/sessions');
    assert.equal(sessions.sessions.length, 2, 'the import is a new chat beside the first');
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
