// Browser end-to-end: a backup restored from Settings → Data. A project made before the backup
// comes back, one made after it is gone from the sidebar, and the data that was replaced is kept
// whole beside the data folder (inside the test's temporary folder). `maru serve` restarts in
// place on the restored data (same address, same token), and the page reloads by itself once it
// answers. The success message is photographed in English and Korean.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

test('restore: a backup chosen in Settings → Data replaces the data, keeps the old one, and the page reloads on it', { timeout: 180_000 }, async (t) => {
  const { tmp, maru, page, pageErrors, step } = await setUp(t, 'restore', null);
  const backup = path.join(tmp, 'maru-backup.zip');
  const dialog = page.locator('dialog[open]');
  const sidebarProjects = () => page.getByTestId('project').locator('.project-name').allTextContents();

  /** Chooses the backup in Settings → Data, accepts the confirm dialog, and returns the success
   *  message (the page reloads by itself a moment later). */
  async function restoreThroughTheUi({ tab, confirm }) {
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: tab }).click();
    await dialog.getByTestId('restore-file').setInputFiles(backup);
    const confirmation = page.locator('dialog.dialog-confirm[open]');
    await confirmation.getByRole('button', { name: confirm, exact: true }).click();
    const restored = page.locator('dialog.dialog-restored[open]');
    await restored.getByTestId('restored-what').waitFor({ timeout: 30_000 });
    return restored;
  }

  /** Resolves on the page's next load (the reload after Maru answered again). */
  const nextLoad = () => page.waitForEvent('load', { timeout: 45_000 });

  await step('a project before the backup, the backup, a project after it', async () => {
    await api(maru.base, 'POST', '/api/projects', { name: 'Before the backup' });
    const res = await fetch(`${maru.base}/api/backup`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200, 'the backup downloads');
    fs.writeFileSync(backup, Buffer.from(await res.arrayBuffer()));
    await api(maru.base, 'POST', '/api/projects', { name: 'After the backup' });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('project').filter({ hasText: 'After the backup' }).waitFor();
  });

  await step('a file that is not a backup is refused under the button, and nothing changes', async () => {
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: 'Data' }).click();
    // A mark on this page: gone if the page reloads.
    await page.evaluate(() => (window.sameRestorePage = true));
    await dialog.getByTestId('restore-file').setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip at all') });
    const confirmation = page.locator('dialog.dialog-confirm[open]');
    assert.match(await confirmation.innerText(), /kept whole in a folder beside it/, 'the user is told the data they have now is kept');
    await page.screenshot({ path: path.join(outDir, 'restore-confirm-en.png') });
    await confirmation.getByRole('button', { name: 'Restore', exact: true }).click();
    const refusal = dialog.getByTestId('restore-error');
    await refusal.waitFor();
    assert.ok((await refusal.innerText()).trim().length > 10, 'the refusal says why');
    assert.equal(await dialog.getByTestId('restore-backup').isEnabled(), true, 'another file can be chosen at once');
    await page.screenshot({ path: path.join(outDir, 'restore-refused-en.png') });
    await page.keyboard.press('Escape');
    assert.deepEqual(await sidebarProjects(), ['Default', 'After the backup', 'Before the backup'], 'nothing changed');
    assert.equal(await page.evaluate(() => window.sameRestorePage), true, 'the page was not reloaded');
  });

  await step('the restore says what came back and where the old data is kept, then the page reloads on the backup', async () => {
    const reloaded = nextLoad();
    const restored = await restoreThroughTheUi({ tab: 'Data', confirm: 'Restore' });
    assert.match(await restored.getByTestId('restored-what').innerText(), /^Back as it was on .*: 2 projects, 0 chats, 0 messages, 0 files\.$/,
      'the user sees the backup they chose: Default and “Before the backup”');
    const keptAs = await restored.getByTestId('restored-kept-as').innerText();
    assert.equal(path.dirname(keptAs), tmp, 'the replaced data is kept beside the data folder, inside the test’s folder');
    assert.match(path.basename(keptAs), /^data-before-restore-/, 'named after the data folder it was');
    assert.equal(await restored.getByTestId('restart-status').innerText(), 'Maru is restarting…');
    await page.screenshot({ path: path.join(outDir, 'restore-en.png') });

    await reloaded;
    await page.getByTestId('project').filter({ hasText: 'Before the backup' }).waitFor();
    // Moved aside as Maru restarted, after the message.
    assert.ok(fs.existsSync(path.join(keptAs, 'maru.db')), 'nothing was deleted: the replaced database is in the kept folder');
    assert.deepEqual(await sidebarProjects(), ['Default', 'Before the backup'],
      'the sidebar shows the backup’s projects: the one made after the backup is gone');
    const names = (await api(maru.base, 'GET', '/api/projects')).map((p) => p.name);
    assert.ok(!names.includes('After the backup'), `the server too is on the restored data (${names.join(', ')})`);
    assert.equal(await page.locator('dialog[open]').count(), 0, 'the reloaded page starts clean, without the message');
  });

  await step('in Korean', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.getByTestId('project').filter({ hasText: 'Before the backup' }).waitFor();
    const reloaded = nextLoad();
    const restored = await restoreThroughTheUi({ tab: '데이터', confirm: '복원' });
    assert.match(await restored.getByTestId('restored-what').innerText(), /의 상태로 돌아왔습니다: 프로젝트 2개, 대화 0개, 메시지 0개, 파일 0개\.$/);
    assert.equal(await restored.getByTestId('restart-status').innerText(), '마루가 다시 시작하는 중…');
    await page.screenshot({ path: path.join(outDir, 'restore-ko.png') });
    await reloaded;
    await page.getByTestId('project').filter({ hasText: 'Before the backup' }).waitFor();
    const kept = fs.readdirSync(tmp).filter((f) => f.startsWith('data-before-restore-'));
    assert.equal(kept.length, 2, `each restore kept the data it replaced (${kept.join(', ')})`);
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
