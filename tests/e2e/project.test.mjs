// Browser end-to-end: a project's settings as a new user meets them, in English and Korean. The
// New project dialog links a folder on disk; the project's settings show the folder, the
// instructions files it gives the model (sent, and left out with why), and its files as a folder
// tree with a filter (empty files skipped in grey, not failed); Unlink asks first, saying how many
// mirrored files go and that the folder is not touched, and Cancel there cancels.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, outDir, setUp, sleep, TOKEN } from './harness.mjs';

/** A small repository: instructions files, 3 folders of sources, docs, and an empty file. */
function makeFolder(root) {
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  fs.mkdirSync(path.join(root, '.git'), { recursive: true });
  write('AGENTS.md', 'Answer in short sentences.\n');
  write('CLAUDE.md', '@AGENTS.md\n@docs/missing.md\n');
  for (const pkg of ['api', 'web', 'worker']) {
    for (let i = 0; i < 20; i++) write(`src/${pkg}/module${i}.ts`, `export const ${pkg}${i} = ${i};\n`);
  }
  write('src/web/main.ts', 'console.log("main");\n');
  write('docs/guide.md', '# Guide\n\nHow to run it.\n');
  write('docs/empty.md', '');
  // The sources, main.ts and guide.md are kept; empty.md is skipped; the instructions files are
  // the project's instructions, not its files.
  return { kept: 62, listed: 63 };
}

async function projectByName(base, name) {
  return (await api(base, 'GET', '/api/projects')).find((p) => p.name === name);
}

test('a project’s settings: folder, instructions files, files as a tree, unlink that asks', async (t) => {
  const { tmp, maru, page, pageErrors, step } = await setUp(t, 'project', null);
  const folder = path.join(tmp, 'site');
  const { kept, listed } = makeFolder(folder);
  const dialog = page.locator('dialog[open]').first();

  await step('open the UI', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
  });

  await step('the New project dialog links a folder too', async () => {
    await page.getByTestId('new-project').click();
    await dialog.locator('input[name=name]').fill('Site');
    await dialog.getByTestId('folder-input').fill(folder);
    await page.screenshot({ path: path.join(outDir, 'project-new-en.png') });
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.locator('.toast', { hasText: `Linked to ${folder}` }).waitFor();
    const p = await projectByName(maru.base, 'Site');
    assert.equal(p.folder, folder, 'the project follows the folder given when it was made');
  });

  await step('its settings show the folder, the instructions files, and the files as a tree once synced', async () => {
    const head = page.locator('[data-testid=project]', { hasText: 'Site' });
    await head.hover();
    await head.getByTestId('project-menu').click();
    await page.getByRole('menuitem', { name: 'Settings…' }).click();
    await dialog.getByTestId('project-settings').waitFor();
    assert.equal(await dialog.getByTestId('folder-current').innerText(), folder, 'the folder is a first-class part of the settings');
    const sent = dialog.getByTestId('instruction-sent');
    await sent.first().waitFor();
    assert.deepEqual(await sent.evaluateAll((els) => els.map((e) => e.dataset.path)), [path.join(folder, 'AGENTS.md')], 'AGENTS.md is sent');
    const skipped = dialog.getByTestId('instruction-skipped');
    const whys = await skipped.evaluateAll((els) => els.map((e) => [e.dataset.path.split('/').pop(), e.dataset.why]));
    assert.ok(whys.some(([name, why]) => name === 'missing.md' && why === 'missing'), `an import that is not there is named, with why: ${JSON.stringify(whys)}`);
    await dialog.locator('[data-testid=folder-sync][data-state=done]').waitFor({ timeout: 30_000 });
    await dialog.getByTestId('tree-summary').filter({ hasText: `${listed} files` }).waitFor({ timeout: 10_000 }).catch(async () => {
      assert.fail(`the tree counts the ${kept} files kept and the one skipped, but says ${await dialog.getByTestId('tree-summary').innerText()}`);
    });
    assert.equal(await dialog.locator('[data-testid=file]').count(), 0, 'closed folders draw no rows');
    assert.deepEqual(await dialog.locator('[data-testid=tree-folder]').evaluateAll((els) => els.map((e) => e.dataset.path)), ['docs', 'src'], 'the top folders are the rows');
    await dialog.locator('[data-testid=tree-folder][data-path=docs] > button').click();
    const empty = dialog.locator('[data-testid=tree-skipped][data-path="docs/empty.md"]');
    assert.match(await empty.innerText(), /skipped: empty/, 'an empty file is skipped in grey with why, not failed');
    await page.screenshot({ path: path.join(outDir, 'project-settings-en.png') });
  });

  await step('the filter finds a file among the folders', async () => {
    await dialog.getByTestId('tree-filter').fill('web main');
    await dialog.getByTestId('tree-summary').filter({ hasText: 'match' }).waitFor();
    const names = await dialog.locator('[data-testid=file] [data-testid=file-name]').allInnerTexts();
    assert.deepEqual(names, ['main.ts'], 'two words find src/web/main.ts alone, its folders opened');
    await dialog.getByTestId('project-files-section').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(outDir, 'project-filter-en.png') });
    await dialog.getByTestId('tree-filter').fill('');
  });

  await step('a pattern in the settings leaves a folder out, and taking it away brings it back', async () => {
    const field = dialog.getByTestId('folder-exclude');
    await field.fill('src/worker/\n*.md');
    await dialog.getByTestId('folder-exclude-said').filter({ hasText: 'Saved: 2 patterns leave paths out' }).waitFor();
    const p = await projectByName(maru.base, 'Site');
    assert.deepEqual(p.exclude, ['src/worker/', '*.md'], 'the patterns are saved with the project as typed, without a Save button');
    // 20 modules of worker, guide.md and empty.md go: 63 - 22 = 41.
    await dialog.getByTestId('tree-summary').filter({ hasText: `${listed - 22} files` }).waitFor({ timeout: 30_000 }).catch(async () => {
      assert.fail(`the tree loses the 22 paths left out, but says ${await dialog.getByTestId('tree-summary').innerText()}`);
    });
    assert.ok(fs.existsSync(path.join(folder, 'src/worker/module0.ts')) && !fs.existsSync(path.join(folder, '.maruignore')), 'the folder on disk is not touched');
    await field.fill('src/worker/\nsrc/{a,b');
    await field.blur();
    await dialog.getByTestId('folder-exclude-error').filter({ hasText: 'src/{a,b' }).waitFor();
    assert.deepEqual((await projectByName(maru.base, 'Site')).exclude, ['src/worker/', '*.md'], 'a refused line saves nothing');
    await page.screenshot({ path: path.join(outDir, 'project-exclude-en.png') });
    await field.fill('');
    await dialog.getByTestId('folder-exclude-said').filter({ hasText: 'nothing is left out' }).waitFor();
    await dialog.getByTestId('tree-summary').filter({ hasText: `${listed} files` }).waitFor({ timeout: 30_000 });
  });

  await step('Unlink asks first, says what goes, and Cancel cancels', async () => {
    await dialog.getByTestId('folder-unlink').click();
    const confirm = page.locator('dialog.dialog-confirm[open]');
    const text = await confirm.innerText();
    assert.match(text, new RegExp(`Unlinking removes the ${kept} files mirrored from this folder from the project`), `the question says how many files go: ${text}`);
    assert.match(text, /the folder itself is not touched/, 'and that the folder on disk is safe');
    await page.screenshot({ path: path.join(outDir, 'project-unlink-en.png') });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal((await projectByName(maru.base, 'Site')).folder, folder, 'Cancel left the folder linked');
    await dialog.getByTestId('folder-unlink').click();
    await confirm.getByRole('button', { name: 'Unlink' }).click();
    await dialog.getByTestId('folder-said').filter({ hasText: `The ${kept} files mirrored from it were removed` }).waitFor();
    assert.equal((await projectByName(maru.base, 'Site')).folder, null, 'Unlink, confirmed, unlinked');
    assert.ok(fs.existsSync(path.join(folder, 'AGENTS.md')), 'the folder on disk is untouched');
    await dialog.getByTestId('project-done').click();
    await dialog.waitFor({ state: 'detached' });
  });

  await step('Korean: the same settings, every word in Korean', async () => {
    const p = await projectByName(maru.base, 'Site');
    await api(maru.base, 'PATCH', `/api/projects/${p.id}`, { folder });
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    const head = page.locator('[data-testid=project]', { hasText: 'Site' });
    await head.waitFor();
    await head.hover();
    await head.getByTestId('project-menu').click();
    await page.getByRole('menuitem', { name: '폴더…' }).click();
    await dialog.getByTestId('project-settings').waitFor();
    await dialog.locator('[data-testid=folder-sync][data-state=done]').waitFor({ timeout: 30_000 });
    await dialog.getByTestId('tree-summary').filter({ hasText: `파일 ${listed}개` }).waitFor();
    await dialog.locator('[data-testid=tree-folder][data-path=docs] > button').click();
    assert.match(await dialog.locator('[data-testid=tree-skipped]').innerText(), /건너뜀: 빈 파일/, 'skipped, in Korean');
    assert.match(await dialog.getByTestId('project-instructions').innerText(), /폴더의 지침 파일/, 'the instructions files, in Korean');
    await sleep(200);
    await page.screenshot({ path: path.join(outDir, 'project-settings-ko.png') });
    await dialog.getByTestId('folder-unlink').click();
    const confirm = page.locator('dialog.dialog-confirm[open]');
    assert.match(await confirm.innerText(), new RegExp(`이 폴더에서 가져온 파일 ${kept}개가 프로젝트에서 빠집니다`), 'the question in Korean, with the count');
    await page.screenshot({ path: path.join(outDir, 'project-unlink-ko.png') });
    await confirm.getByRole('button', { name: '취소' }).click();
  });

  assert.deepEqual(pageErrors, [], 'no errors in the page');
});
