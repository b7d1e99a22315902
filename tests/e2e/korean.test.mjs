// Browser end-to-end: with the UI in Korean, no English string of the UI's own shows on any main
// screen: the sidebar, a chat with a reply and a failed reply, the context inspector, the files
// panel with a file that could not be read, the memory panel, every settings tab, the shortcuts
// list, a project dialog and error toasts (a duplicate project name, an empty file). Every visible text node
// and every aria-label, title and placeholder is compared with the English dictionary
// (ui/src/lib/i18n/, and the server's reasons in ui/src/lib/reasons.ts): a string that differs
// from its Korean one must not show, whole or as a run of words inside a longer text.
//
// User content is Korean by construction (project, chat, message, fact, reply), and what the
// model or the prompt templates wrote (replies, the system prompt, tool arguments) is not the
// UI's words, so those elements are not read. The brand name Maru is a proper name.
//
// Also: a Korean browser on first run (no language set) gets the Korean UI, and Korean text (a
// long toast, a long message) wraps between words, never inside one ("저장됩니/다").
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MODEL } from './fake-openai.mjs';
import { api, freePort, openBrowser, outDir, repo, setUp, TOKEN } from './harness.mjs';

const KOREAN_REPLY = ['안녕하세요', ', ', '무엇을', ' 도와', '드릴까요', '?'];
const PROJECT = '가족 일정';

/** `key: 'value'` entries of one dictionary object literal in a TS file (single-quoted values). */
function entries(source, start, end) {
  const from = source.indexOf(start);
  assert.ok(from >= 0, `cannot find ${start}`);
  const body = source.slice(from + start.length, source.indexOf(end, from));
  const out = new Map();
  for (const m of body.matchAll(/^\s+'?([\w.-]+)'?: '((?:[^'\\]|\\.)*)',?\s*$/gm)) out.set(m[1], m[2].replace(/\\'/g, "'"));
  return out;
}

/** Reasons: `code: { en: '…', ko: '…' }`. */
function reasonEntries(source) {
  const en = new Map();
  const ko = new Map();
  for (const m of source.matchAll(/^\s+(\w+): \{ en: '((?:[^'\\]|\\.)*)', ko: '((?:[^'\\]|\\.)*)' \}/gm)) {
    en.set(m[1], m[2]);
    ko.set(m[1], m[3]);
  }
  return { en, ko };
}

/**
 * The English phrases to look for: each string whose English differs from its Korean, cut at its
 * placeholders (`{name}`, the forms of a plural), trimmed of punctuation. A phrase of one word is
 * looked for as a whole text only (a word alone is too common to judge inside a longer one).
 */
function englishPhrases() {
  // One file per area of the UI, each with its `en` and `ko` (index.ts merges them).
  const dir = path.join(repo, 'ui/src/lib/i18n');
  const en = new Map();
  const ko = new Map();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && f !== 'words.ts')) {
    const area = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const [k, v] of entries(area, 'const en = {', '} as const;')) en.set(k, v);
    for (const [k, v] of entries(area, 'const ko: Words<typeof en> = {', '\n};')) ko.set(k, v);
  }
  assert.ok(en.size > 300 && ko.size > 300, `the dictionaries were read (${en.size} English, ${ko.size} Korean entries)`);
  const reasons = reasonEntries(fs.readFileSync(path.join(repo, 'ui/src/lib/reasons.ts'), 'utf8'));
  assert.ok(reasons.en.size > 20, 'the reasons were read');
  const phrases = new Map();
  const add = (key, english, korean) => {
    if (english === korean) return;
    const plain = english.replace(/\{\w+, plural,((?:\s*=?\w+ \{[^{}]*\})+)\s*\}/g, (_, forms) => [...forms.matchAll(/\{([^{}]*)\}/g)].map((f) => f[1].replace(/#/g, '{n}')).join('{n}'));
    for (const piece of plain.split(/\{\w+\}|#/)) {
      const phrase = piece.replace(/^[\s.,:;·()“”"'’…→-]+|[\s.,:;·()“”"'’…→-]+$/g, '');
      if (!/[A-Za-z]{2}/.test(phrase) || phrase === 'Maru') continue;
      if (korean.includes(phrase)) continue; // kept as is in Korean too (a key name, a setting's name)
      if (!phrases.has(phrase)) phrases.set(phrase, key);
    }
  };
  for (const [key, english] of en) add(key, english, ko.get(key) ?? '');
  for (const [code, english] of reasons.en) add(`reason ${code}`, english, reasons.ko.get(code) ?? '');
  return [...phrases].map(([phrase, key]) => ({ phrase, key }));
}

/** English words left once addresses and “quoted” names are taken out. */
const englishWords = (text) => text.replace(/https?:\/\/\S+/g, '').replace(/“[^”]*”/g, '').match(/[A-Za-z]{3,}/g) ?? [];

/** In the page: every visible English phrase, with where it was seen. */
async function englishOnScreen(page, phrases, where) {
  return page.evaluate(({ phrases, where }) => {
    // What the user or the model wrote, and the prompt text: not the UI's words.
    const CONTENT = '.md, pre, code, .msg-text, .memory-text, .fact-text, [data-testid=file-name], .chip-name, .session-title, .summary-text, textarea, .reasoning-text';
    const words = (s) => s.split(/[^A-Za-z0-9'’+-]+/).filter(Boolean);
    const compiled = phrases.map(({ phrase, key }) => ({ phrase, key, words: words(phrase) }));
    const found = [];
    const check = (text, what) => {
      const t = text.trim();
      if (!t) return;
      const w = words(t);
      for (const p of compiled) {
        if (p.words.length === 0) continue;
        const whole = t.replace(/^[\s.,:;·()“”"'’…-]+|[\s.,:;·()“”"'’…-]+$/g, '') === p.phrase;
        let inside = false;
        if (!whole && p.words.length > 1 && t.includes(p.words[0])) {
          for (let i = 0; i + p.words.length <= w.length && !inside; i++) inside = p.words.every((x, j) => w[i + j] === x);
        }
        if (whole || inside) found.push(`${where}: ${what} ${JSON.stringify(t.slice(0, 160))} shows “${p.phrase}” (${p.key})`);
      }
    };
    const visible = (el) => el.checkVisibility?.({ checkOpacity: true, checkVisibilityCSS: true }) ?? true;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(CONTENT) || el.closest('script, style') || !visible(el)) continue;
      check(n.textContent, 'text');
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if (el.closest(CONTENT) && !el.matches('textarea') || !visible(el)) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) if (el.hasAttribute(a)) check(el.getAttribute(a), `${a} of <${el.tagName.toLowerCase()}>`);
    }
    return [...new Set(found)];
  }, { phrases, where });
}

test('in Korean, no English string of the UI shows on the main screens', { timeout: 180_000 }, async (t) => {
  const phrases = englishPhrases();
  const { tmp, fake, maru, page, pageErrors, step } = await setUp(t, 'korean', { pieceDelayMs: 10, replyPieces: KOREAN_REPLY });
  const seen = [];
  const scan = async (where) => {
    const found = await englishOnScreen(page, phrases, where);
    seen.push(...found);
    await page.screenshot({ path: path.join(outDir, `korean-${where.replace(/\W+/g, '-')}.png`) });
  };

  await step('first run in a Korean browser: Korean, though the settings hold their default "en"', async () => {
    const settings = await api(maru.base, 'GET', '/api/settings');
    assert.equal(settings.language, 'en', 'no language is set yet');
    const korean = await openBrowser(tmp, { locale: 'ko-KR', profile: 'chromium-profile-ko' });
    try {
      await korean.page.goto(`${maru.base}/#token=${TOKEN}`);
      await korean.page.getByTestId('new-chat').filter({ hasText: '새 대화' }).waitFor();
      assert.deepEqual(await korean.page.evaluate(() => [navigator.language, document.documentElement.lang]), ['ko-KR', 'ko']);
      assert.deepEqual(korean.pageErrors, []);
    } finally {
      await korean.context.close();
    }
    assert.equal((await api(maru.base, 'GET', '/api/settings')).language, 'en', 'following the browser writes nothing to the server');
    // The English browser of the other steps is still English until the language is set.
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('new-chat').filter({ hasText: 'New chat' }).waitFor();
    // There, what users write still keeps Korean words whole (a Korean message in the English UI); the UI's own words break as usual.
    const english = await page.evaluate(() => {
      const probe = Object.assign(document.createElement('div'), { className: 'msg' });
      probe.append(Object.assign(document.createElement('div'), { className: 'user-text' }), document.createElement('pre'));
      document.body.append(probe);
      const out = [document.documentElement, probe.firstChild, probe.lastChild].map((el) => getComputedStyle(el).wordBreak);
      probe.remove();
      return out;
    });
    assert.deepEqual(english, ['normal', 'keep-all', 'normal'], 'English UI: the page, a message, a code block');
    await page.goto('about:blank'); // so that the next step's address loads the page anew
  });

  let sessionId;
  await step('Korean data: a project, a chat with a reply and a failed reply, a file that cannot be read, a fact', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL, language: 'ko' });
    const project = await api(maru.base, 'POST', '/api/projects', { name: PROJECT, instructions: '' });
    await api(maru.base, 'POST', '/api/memories', { content: '한국어 답변을 좋아함.' });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: PROJECT }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ko', 'the UI follows the language setting');
    const head = page.locator('[data-testid=project]', { hasText: PROJECT });
    await head.hover();
    await head.getByRole('button', { name: `${PROJECT}에 새 대화` }).click();
    const composer = page.getByTestId('composer');
    await composer.fill('안녕하세요');
    await composer.press('Enter');
    await page.getByTestId('message-assistant').filter({ hasText: '무엇을 도와드릴까요' }).waitFor({ timeout: 30_000 });
    await page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    const sessions = await api(maru.base, 'GET', `/api/sessions?project_id=${project.id}`);
    sessionId = sessions.sessions[0].id;
    // A failed reply: the model server does not answer for one message.
    const closed = await freePort();
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: `http://127.0.0.1:${closed}/v1` });
    await composer.fill('거기 누구 있나요?');
    await composer.press('Enter');
    await page.getByTestId('message-assistant').last().locator('.msg-error').waitFor({ timeout: 30_000 });
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl });
    // A PDF that cannot be read.
    const form = new FormData();
    form.append('session_id', String(sessionId));
    form.append('file', new Blob([Buffer.from('%PDF-1.7\n')], { type: 'application/pdf' }), '손상된 문서.pdf');
    const res = await fetch(`${maru.base}/api/attachments`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` }, body: form });
    assert.ok(res.ok, `the upload is taken: ${res.status} ${await res.text()}`);
    for (let i = 0; i < 100; i++) {
      const list = await api(maru.base, 'GET', `/api/attachments?session_id=${sessionId}`);
      if (list.every((a) => a.status !== 'indexing')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  await step('the check itself finds an English string when one shows', async () => {
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('p'), { id: 'probe', textContent: 'Load older messages' })));
    const found = await englishOnScreen(page, phrases, 'probe');
    await page.evaluate(() => document.getElementById('probe')?.remove());
    assert.ok(found.some((f) => f.includes('loadOlder')), `a planted English label is reported (${phrases.length} phrases looked for): ${found.join(' | ')}`);
  });

  await step('the reload: the sidebar and the chat, its reply and its failed reply', async () => {
    await page.reload();
    await page.locator('[data-testid=session]', { hasText: '안녕하세요' }).click();
    const failed = page.getByTestId('message-assistant').last().locator('.msg-error');
    await failed.waitFor();
    const text = await failed.innerText();
    assert.match(text, /모델 서버에 연결할 수 없습니다/, 'the stored failure is worded in Korean after a reload, by its stored code');
    assert.deepEqual(englishWords(text.replace(/모델 서버 설정$/, '')), [], `only the address is left of the server's English: ${text}`);
    await scan('chat');
  });

  await step('Korean text breaks between words, not inside them: messages, toasts, dialogs, buttons', async () => {
    const styles = await page.evaluate(() => {
      const style = (sel) => {
        const el = document.querySelector(sel);
        return el ? [getComputedStyle(el).wordBreak, getComputedStyle(el).overflowWrap] : null;
      };
      return {
        html: style('html'), user: style('.user-text'), reply: style('[data-testid=message-assistant] .md'), error: style('.msg-error'),
        session: style('[data-testid=session]'), button: style('[data-testid=new-chat]'),
      };
    });
    assert.deepEqual(styles.html, ['keep-all', 'break-word'], 'the Korean UI keeps words whole and still wraps a long token');
    for (const what of ['user', 'reply', 'error', 'session', 'button']) assert.equal(styles[what]?.[0], 'keep-all', `${what}: ${JSON.stringify(styles[what])}`);
    assert.equal(styles.user[1], 'anywhere', 'a long token in a message still wraps');

    // Lines of a long Korean text in a message and in a toast start only after a space.
    const LONG = '설정을 저장했습니다. 모델 서버의 주소와 키를 확인한 다음 다시 시도하면 답을 받을 수 있습니다. '.repeat(6).trim();
    await page.evaluate((text) => window.maru.fail(new Error(text)), LONG);
    await page.locator('.toast-text').filter({ hasText: '설정을 저장했습니다' }).waitFor();
    const breaks = await page.evaluate((text) => {
      /** Where lines of `el`'s text start (but the first): the characters before and after. */
      const lineStarts = (el) => {
        const node = el.firstChild;
        const range = document.createRange();
        const out = [];
        let top = null;
        for (let i = 0; i < node.data.length; i++) {
          if (/\s/.test(node.data[i])) continue;
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const r = range.getClientRects()[0];
          if (!r) continue;
          if (top !== null && r.top > top + 2) out.push(node.data.slice(Math.max(0, i - 3), i) + '|' + node.data.slice(i, i + 3));
          top = r.top;
        }
        return out;
      };
      const midWord = (starts) => starts.filter((s) => !/\s\|/.test(s));
      const toast = [...document.querySelectorAll('.toast-text')].find((el) => el.textContent === text);
      const user = document.querySelector('.user-text');
      const kept = user.textContent;
      user.textContent = text;
      const result = { toast: lineStarts(toast), user: lineStarts(user) };
      // The check itself: without keep-all, the same text breaks inside words.
      user.style.wordBreak = 'normal';
      result.probe = midWord(lineStarts(user));
      user.style.wordBreak = '';
      user.textContent = kept;
      toast.closest('.toast')?.remove();
      return { ...result, toastMid: midWord(result.toast), userMid: midWord(result.user) };
    }, LONG);
    assert.ok(breaks.toast.length >= 1 && breaks.user.length >= 1, `the texts are long enough to wrap: ${JSON.stringify(breaks)}`);
    assert.ok(breaks.probe.length >= 1, `without keep-all the check sees a break inside a word: ${JSON.stringify(breaks.probe)}`);
    assert.deepEqual(breaks.toastMid, [], `a toast's lines start at a word: ${JSON.stringify(breaks.toast)}`);
    assert.deepEqual(breaks.userMid, [], `a message's lines start at a word: ${JSON.stringify(breaks.user)}`);
  });

  await step('the context inspector', async () => {
    await page.getByTestId('open-context').click();
    await page.getByTestId('context-sections').waitFor();
    const reasons = await page.locator('.absent-reason').allInnerTexts();
    assert.ok(reasons.length > 0 && reasons.every((r) => /[가-힣]/.test(r)), `why a section is left out is in Korean: ${JSON.stringify(reasons)}`);
    await scan('context inspector');
  });

  await step('the files panel with a file that could not be read', async () => {
    await page.getByTestId('open-files').click();
    const row = page.getByTestId('file').filter({ hasText: '손상된 문서.pdf' });
    await row.waitFor();
    await row.locator('.file-note').waitFor();
    assert.match(await row.locator('.file-note').innerText(), /[가-힣]/, 'why the file failed is in Korean');
    await scan('files panel');
  });

  await step('the memory panel', async () => {
    await page.getByTestId('sidebar-memory').click();
    await page.getByTestId('memory-panel').waitFor();
    await page.getByTestId('memory-facts').filter({ hasText: '한국어 답변을 좋아함.' }).waitFor();
    await scan('memory panel');
  });

  await step('every settings tab', async () => {
    await page.getByTestId('open-settings').click();
    const dialog = page.locator('dialog[open]');
    const tabs = dialog.getByRole('tab');
    await tabs.first().waitFor();
    const n = await tabs.count();
    for (let i = 0; i < n; i++) {
      await tabs.nth(i).click();
      await scan(`settings tab ${await tabs.nth(i).innerText()}`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await step('the shortcuts list', async () => {
    await page.getByTestId('open-shortcuts').click();
    await page.getByTestId('shortcuts').waitFor();
    await scan('shortcuts');
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcuts').waitFor({ state: 'detached' });
  });

  await step('a project dialog and the toast for a name already taken', async () => {
    await page.getByTestId('new-project').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('input[name=name]').waitFor();
    await scan('project dialog');
    await dialog.locator('input[name=name]').fill(PROJECT);
    await dialog.getByRole('button', { name: '프로젝트 만들기' }).click();
    const toast = page.locator('.toast-error');
    await toast.waitFor();
    const text = await toast.innerText();
    assert.match(text, new RegExp(`“${PROJECT}” 이름이 이미 있습니다`), 'the duplicate name is refused in Korean, naming it');
    assert.deepEqual(englishWords(text), [], `without the server's English: ${text}`);
    await scan('duplicate name toast');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await step('the toast for an empty file names the file, in Korean', async () => {
    await page.locator('.toast-error').waitFor({ state: 'detached', timeout: 15_000 }).catch(() => {});
    await page.getByTestId('attach-input').setInputFiles({ name: '빈 메모.md', mimeType: 'text/markdown', buffer: Buffer.alloc(0) });
    const toast = page.locator('.toast-error').filter({ hasText: '빈 메모.md' });
    await toast.waitFor();
    const text = await toast.innerText();
    assert.match(text, /빈 메모\.md 파일이 비어 있습니다/, `the file's name in a Korean sentence: ${text}`);
    assert.deepEqual(englishWords(text), [], `without the server's English: ${text}`);
    await scan('empty file toast');
  });

  if (seen.length) console.log(`English on Korean screens:\n  ${seen.join('\n  ')}`);
  assert.deepEqual(seen, [], 'every string the UI shows in Korean is Korean (see the list above)');
});
