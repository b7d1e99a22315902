// Browser end-to-end: the chat header fits the window from 600 px up, in English and in Korean.
// At 600, 700, 1024 and 1280 px nothing in the header reaches past the window or is cut off by
// it, the ⋯ menu (rename, move, export, delete) opens with every item in view, the chat's title
// keeps enough room to be read, and the one preset and model control opens and changes both.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL } from './fake-openai.mjs';
import { api, outDir, setUp, sleep, TOKEN } from './harness.mjs';

const WIDTHS = [1280, 1024, 700, 600];
const CHATS = {
  en: { project: 'Family plans', title: 'Planning the spring trip to Jeju with the kids', preset: 'Base prompt', menu: ['Rename', 'New title from the model', 'Move to project…', 'Export as Markdown', 'Export as JSON', 'Delete'] },
  ko: { project: '가족 일정', title: '아이들과 함께 가는 봄 제주도 여행 계획 세우기', preset: '기본 프롬프트', menu: ['이름 바꾸기', '모델에게 새 제목 받기', '프로젝트로 이동…', '마크다운으로 내보내기', 'JSON으로 내보내기', '삭제'] },
};

/** Waits up to 5 s for `ok()` to be true; fails with `why`. */
async function until(ok, why) {
  for (let i = 0; i < 50; i++) {
    if (await ok()) return;
    await sleep(100);
  }
  assert.fail(why);
}

/** Opens chat `id` from the sidebar, its project `project` unfolded first. */
async function openChat(page, project, id) {
  const head = page.locator('[data-testid=project]', { hasText: project });
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
  await page.locator(`[data-testid=session][data-session-id="${id}"]`).click();
}

/** What the header shows, measured in the page: its controls' boxes and how much of each text shows. */
function measureHeader(page) {
  return page.evaluate(() => {
    const head = document.querySelector('.chat-head');
    const hb = head.getBoundingClientRect();
    const view = document.documentElement.clientWidth;
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, width: r.width };
    };
    const shown = (el) => !!el && el.checkVisibility() && el.getBoundingClientRect().width > 0;
    const controls = [...head.querySelectorAll('button, [data-testid=chat-project]')].filter(shown)
      .map((el) => ({ name: el.dataset.testid || el.getAttribute('aria-label') || el.className, ...box(el) }));
    /** A text cut with an ellipsis: about how many of its characters show. */
    const text = (sel) => {
      const el = head.querySelector(sel);
      if (!shown(el)) return null;
      const all = el.textContent.trim();
      const cut = el.scrollWidth > el.clientWidth + 1;
      return { text: all, cut, chars: cut ? Math.floor(all.length * el.clientWidth / el.scrollWidth) : all.length, width: el.clientWidth };
    };
    return {
      view,
      head: { left: hb.left, right: hb.right, scrollWidth: head.scrollWidth, clientWidth: head.clientWidth },
      controls,
      project: text('[data-testid=chat-project] > span'),
      title: text('[data-testid=chat-title]'),
      preset: text('[data-testid=chat-preset]'),
      model: text('[data-testid=chat-model]'),
    };
  });
}

test('the chat header fits from 600 px up, in English and Korean', { timeout: 180_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'header', { pieceDelayMs: 5 });
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  const ids = {};
  for (const [lang, c] of Object.entries(CHATS)) {
    const project = await api(maru.base, 'POST', '/api/projects', { name: c.project, instructions: '' });
    const session = await api(maru.base, 'POST', '/api/sessions', { project_id: project.id });
    await api(maru.base, 'PATCH', `/api/sessions/${session.id}`, { title: c.title });
    ids[lang] = session.id;
  }

  for (const [lang, c] of Object.entries(CHATS)) {
    await step(`${lang}: open the chat`, async () => {
      await api(maru.base, 'PATCH', '/api/settings', { language: lang });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${maru.base}/#token=${TOKEN}`);
      // A new hash alone does not load the page again; the language is read at load.
      await page.reload();
      await openChat(page, c.project, ids[lang]);
      await page.getByTestId('chat-title').filter({ hasText: c.title }).waitFor();
      await page.getByTestId('chat-project').filter({ hasText: c.project }).waitFor();
    });

    for (const width of WIDTHS) {
      await step(`${lang} at ${width} px: nothing in the header is past the window or cut by it`, async () => {
        await page.setViewportSize({ width, height: 800 });
        // The sidebar slides away below 760 px.
        await sleep(400);
        const m = await measureHeader(page);
        await page.screenshot({ path: path.join(outDir, `header-${lang}-${width}.png`) });
        assert.ok(m.head.right <= m.view + 0.5, `the header ends at ${Math.round(m.head.right)} px, past the ${m.view} px window`);
        assert.ok(m.head.scrollWidth <= m.head.clientWidth + 1, `the header's content is ${m.head.scrollWidth} px wide in ${m.head.clientWidth} px: something is pushed out of it`);
        const names = m.controls.map((x) => x.name);
        for (const want of ['chat-title', 'chat-setup', 'chat-model-picker', 'open-files', 'open-context', 'open-memory', 'chat-menu']) {
          assert.ok(names.includes(want), `${want} shows in the header (shown: ${names.join(', ')})`);
        }
        for (const x of m.controls) {
          assert.ok(x.left >= m.head.left - 0.5 && x.right <= Math.min(m.view, m.head.right) + 0.5,
            `${x.name} spans ${Math.round(x.left)}–${Math.round(x.right)} px: it must be whole inside the header (${Math.round(m.head.left)}–${Math.round(m.head.right)}) and the window (${m.view})`);
        }
        // The title keeps room to be read: most of it on a wide window, a good part on a narrow one.
        const least = width >= 1024 ? 20 : 10;
        assert.ok(m.title.chars >= Math.min(least, m.title.text.length), `the title shows about ${m.title.chars} of its ${m.title.text.length} characters (${m.title.width} px); at ${width} px at least ${least} must show`);
        // A narrow chat column shows the preset as its icon, named on hover: the model keeps its name.
        if (width >= 700) assert.ok(m.preset && m.preset.chars >= 2, 'the preset is named on the control');
        else assert.match(await page.getByTestId('chat-setup').getAttribute('aria-label'), new RegExp(c.preset), 'the preset is named on the control, to hover and to screen readers');
        // Beside the sidebar on a 1024 px window the project is the sidebar's highlighted one, and
        // the header gives its room to the title, the preset and the model.
        if (width >= 1280) assert.ok(m.project && !m.project.cut, `the project's name shows whole at ${width} px, not cut to ~${m.project?.chars} characters`);
        if (width >= 1024) {
          assert.ok(!m.preset.cut && !m.model.cut, `the preset (${m.preset.text}) and the model (${m.model.text}) show whole at ${width} px`);
        }
        if (width >= 700) assert.ok(m.model && m.model.text === MODEL, `the control names the chat's model (${m.model?.text})`);
      });

      await step(`${lang} at ${width} px: the ⋯ menu opens with every item in view`, async () => {
        await page.getByTestId('chat-menu').click();
        const menu = page.locator('.menu');
        await menu.waitFor();
        const box = await menu.boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= width && box.y + box.height <= 800, `the menu spans x ${Math.round(box.x)}–${Math.round(box.x + box.width)} in a ${width} px window`);
        const items = await menu.getByRole('menuitem').allInnerTexts();
        assert.deepEqual(items.map((s) => s.trim()), c.menu, 'rename, move, both exports and delete are offered');
        for (const item of await menu.getByRole('menuitem').all()) {
          const b = await item.boundingBox();
          assert.ok(await item.isVisible() && b.x >= 0 && b.x + b.width <= width, `menu item "${await item.innerText()}" is visible inside the window`);
        }
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'detached' });
      });
    }
  }

  await step('the preset and model control chooses the chat\'s preset and model (600 px, English)', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'en' });
    await page.setViewportSize({ width: 600, height: 800 });
    await page.reload();
    // The drawer opens from the header's menu button on a narrow window.
    await page.locator('.sidebar-toggle').click();
    await openChat(page, CHATS.en.project, ids.en);
    await page.getByTestId('chat-title').filter({ hasText: CHATS.en.title }).waitFor();
    const control = page.getByTestId('chat-setup');
    const picker = page.getByTestId('chat-model-picker');
    assert.equal(await control.getAttribute('title'), 'Preset: Base prompt', 'the preset control says it in full on hover');
    assert.equal(await picker.getAttribute('title'), `Model: ${MODEL}`, 'and the model picker its model');
    await control.click();
    const menu = page.locator('.menu');
    await menu.waitFor();
    for (const item of await menu.getByRole('menuitem').all()) assert.ok(await item.isVisible(), `"${await item.innerText()}" shows`);
    await page.screenshot({ path: path.join(outDir, 'header-setup-menu-600.png') });
    await menu.getByRole('menuitem', { name: 'Code reviewer' }).click();
    await page.getByTestId('chat-preset').filter({ hasText: 'Code reviewer' }).waitFor({ state: 'attached' });
    assert.equal((await api(maru.base, 'GET', `/api/sessions/${ids.en}`)).preset, 'code-reviewer', 'the chosen preset is the chat\'s');
    await picker.click();
    await menu.getByTestId('menu-search').fill(MODEL.slice(0, 4));
    await menu.getByRole('menuitem', { name: MODEL, exact: true }).click();
    await page.getByTestId('chat-model').waitFor();
    await until(async () => (await api(maru.base, 'GET', `/api/sessions/${ids.en}`)).model === MODEL, 'the chosen model is the chat\'s own');
    await picker.click();
    await menu.getByRole('menuitem', { name: `Default model (${MODEL})` }).click();
    await until(async () => (await api(maru.base, 'GET', `/api/sessions/${ids.en}`)).model === null, 'back to the default model');
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
