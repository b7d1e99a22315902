// Browser end-to-end: skills. A skill written in the settings' Skills tab (from the SKILL.md it
// starts with) is listed under Global with its sizes; a skill folder picked from disk is imported
// into a project as its SKILL.md and its text files (a picture and the .git folder left out, and
// said so); a global skill can be turned off in one project. In a chat, the prompt lists the skill
// by name and description, the model loads it (the fake model calls load_skill) and gets its
// procedure, and the inspector shows the skill as loaded in this chat, in English and in Korean.
// Screenshots go to tests/e2e/out/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { AFTER_TOOL_TEXT, MODEL } from './fake-openai.mjs';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

const SKILL_MARKER = '#skill';
const TRIP_MD = [
  '---',
  'name: trip-checklist',
  'description: Plan a trip step by step: bookings, packing, documents.',
  '---',
  '# Trip checklist',
  '',
  '1. Ask where and when the trip is.',
  '2. List what to book: travel, a place to stay.',
  '3. Write the packing list, then the documents (passport, visa).',
  '',
].join('\n');
const PDF_MD = '---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\nRead reference/fields.md, then fill each field.\n';

test('skills: written and imported in settings, loaded by the model in a chat, shown loaded in the inspector', { timeout: 180_000 }, async (t) => {
  const { tmp, fake, maru, page, pageErrors, step } = await setUp(t, 'skills', {
    pieceDelayMs: 20,
    toolScripts: [{ marker: SKILL_MARKER, name: 'load_skill', arguments: { name: 'trip-checklist' } }],
  });
  const dialog = page.locator('dialog[open]');
  const pane = dialog.getByTestId('skills-pane');
  let work;

  await step('point Maru at the fake model server, with a second project', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
    work = await api(maru.base, 'POST', '/api/projects', { name: 'Work' });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Work' }).waitFor();
  });

  await step('a new skill starts from a SKILL.md to fill in and is listed under Global with its sizes', async () => {
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: 'Skills' }).click();
    await pane.getByTestId('no-skills').waitFor();
    await pane.getByTestId('new-skill').click();
    const text = pane.getByTestId('skill-text');
    assert.match(await text.inputValue(), /^---\nname: my-skill\ndescription: /, 'the template opens with the front matter Maru reads');
    assert.equal(await pane.getByTestId('skill-where').locator('option:checked').innerText(), 'Every project (global)');
    await text.fill(TRIP_MD);
    await pane.getByTestId('skill-save').click();
    const item = pane.getByTestId('skills-global').locator('[data-testid=skill][data-name=trip-checklist]');
    await item.waitFor();
    assert.match(await item.innerText(), /Plan a trip step by step: bookings, packing, documents\./);
    assert.equal(await item.getByTestId('skill-sizes').innerText(), 'Listed: 73 chars · Procedure: 163 chars · no reference files');
    const [saved] = await api(maru.base, 'GET', '/api/skills');
    assert.equal(saved.text, TRIP_MD, 'Maru has the SKILL.md as written');
    assert.equal(saved.project_id, null, 'a global skill');
  });

  await step('a skill folder from disk is imported into a project: its text files, not its picture or .git', async () => {
    const folder = path.join(tmp, 'pdf-forms');
    fs.mkdirSync(path.join(folder, 'reference'), { recursive: true });
    fs.mkdirSync(path.join(folder, '.git'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'SKILL.md'), PDF_MD);
    fs.writeFileSync(path.join(folder, 'reference', 'fields.md'), '# Fields\n\nText boxes, checkboxes and radio buttons.\n');
    fs.writeFileSync(path.join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
    fs.writeFileSync(path.join(folder, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await pane.getByTestId('skill-folder-input').setInputFiles(folder);
    const preview = pane.getByTestId('skill-import-form');
    await preview.waitFor();
    assert.equal(await preview.getByTestId('skill-import-files').innerText(), 'SKILL.md and 1 reference file: reference/fields.md');
    assert.equal(await preview.getByTestId('skill-import-skipped').innerText(), 'Left out: .git (hidden), logo.png (not text)');
    await preview.getByTestId('skill-import-where').selectOption(String(work.id));
    await page.screenshot({ path: path.join(outDir, 'skills-import.png') });
    await preview.getByTestId('skill-import').click();
    const group = pane.locator(`[data-testid=skills-project][data-project-id="${work.id}"]`);
    await group.locator('[data-testid=skill][data-name=pdf-forms]').waitFor();
    await preview.waitFor({ state: 'detached' });
    const pdf = (await api(maru.base, 'GET', '/api/skills')).find((s) => s.name === 'pdf-forms');
    assert.equal(pdf.project_id, work.id, 'in the project chosen');
    assert.deepEqual(pdf.files.map((f) => f.path), ['reference/fields.md'], 'its text file, by its path inside the folder');
  });

  await step('a global skill turned off in one project is off there only', async () => {
    const item = pane.locator('[data-testid=skill][data-name=trip-checklist]');
    const inWork = item.locator(`[data-testid=skill-projects] input[data-project-id="${work.id}"]`);
    await inWork.uncheck();
    await page.waitForFunction(async ({ token, id }) => {
      const res = await fetch('/api/skills', { headers: { Authorization: `Bearer ${token}` } });
      return (await res.json()).find((s) => s.name === 'trip-checklist')?.off_in.includes(id);
    }, { token: TOKEN, id: work.id });
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'skills-tab.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  let sessionId;
  await step('in a chat of Default the prompt lists the skill; the model loads it and gets its procedure', async () => {
    await page.getByTestId('new-chat').click();
    const composer = page.getByTestId('composer');
    await composer.fill(`Help me plan the trip to Busan ${SKILL_MARKER}`);
    await composer.press('Enter');
    const reply = page.getByTestId('message-assistant').last();
    await reply.getByText(AFTER_TOOL_TEXT).waitFor({ timeout: 30_000 });
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    sessionId = Number(await page.locator('[data-testid=session].active').getAttribute('data-session-id'));
    const [first, second] = fake.requests;
    const system = first.messages[0].content;
    assert.match(system, /- trip-checklist: Plan a trip step by step: bookings, packing, documents\./, 'the prompt lists the skill by name and description');
    assert.ok(!system.includes('Write the packing list'), 'but not its procedure');
    assert.ok(!system.includes('pdf-forms'), 'nor the other project’s skill');
    assert.ok(first.tools.some((x) => x.function.name === 'load_skill'), 'load_skill is offered');
    const result = second.messages.at(-1);
    assert.equal(result.role, 'tool');
    assert.match(result.content, /3\. Write the packing list, then the documents \(passport, visa\)\./, 'loading it brings the procedure in');
    const chip = reply.getByTestId('tool-chip');
    assert.equal(await chip.getAttribute('data-tool'), 'load_skill');
    assert.equal(await chip.getByTestId('tool-short').innerText(), 'trip-checklist');
    await chip.locator('summary').click();
    const shown = await chip.getByTestId('tool-result').innerText();
    assert.match(shown, /3\. Write the packing list/, 'opened, the chip shows the procedure the model loaded');
    assert.ok(!shown.includes('[Skill'), 'not the lines meant for the model');
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'skills-chat-chip.png') });
  });

  await step('the inspector shows the skill offered, its sizes, and that this chat loaded it', async () => {
    await page.getByTestId('open-context').click();
    const card = page.getByTestId('context-skills');
    const row = card.locator('[data-testid=context-skill][data-skill=trip-checklist]');
    await row.waitFor();
    assert.equal(await card.getByTestId('context-skill').count(), 1, 'only the skill this chat’s project offers');
    assert.equal(await row.getAttribute('data-loaded'), 'true');
    assert.equal(await row.getByTestId('skill-loaded').innerText(), 'loaded');
    assert.equal(await row.getByTestId('skill-offered-sizes').innerText(), '73 chars listed · 163 chars when loaded', 'the same sizes as the Skills tab');
    const context = await api(maru.base, 'GET', `/api/sessions/${sessionId}/context`);
    assert.deepEqual(context.skills.map((s) => [s.name, s.loaded]), [['trip-checklist', true]]);
    await card.scrollIntoViewIfNeeded();
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'skills-inspector.png') });
  });

  await step('in Korean: the inspector’s badge and the Skills tab', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.getByTestId('open-context').click();
    const card = page.getByTestId('context-skills');
    await card.locator('h3', { hasText: '제공되는 스킬' }).waitFor();
    const row = card.locator('[data-testid=context-skill][data-skill=trip-checklist]');
    assert.equal(await row.getByTestId('skill-loaded').innerText(), '불러옴');
    assert.equal(await row.getByTestId('skill-offered-sizes').innerText(), '목록 73자 · 불러오면 163자');
    await card.scrollIntoViewIfNeeded();
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'skills-inspector-ko.png') });
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: '스킬' }).click();
    await pane.locator('[data-testid=skill][data-name=pdf-forms]').waitFor();
    assert.equal(await pane.getByTestId('skills-global').locator('.skill-group-title').innerText(), '전체');
    assert.equal(await pane.locator('[data-testid=skill][data-name=trip-checklist]').getByTestId('skill-sizes').innerText(), '목록: 73자 · 절차: 163자 · 참조 파일 없음');
    await page.mouse.move(10, 890);
    await page.screenshot({ path: path.join(outDir, 'skills-tab-ko.png') });
  });

  assert.deepEqual(pageErrors, []);
});
