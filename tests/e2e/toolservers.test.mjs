// Browser end-to-end: the user's MCP tool servers. A real (tiny) stdio server, tests/mcp/mini_server.py
// with one tool, `echo`, is added in Settings → Tools (its secret never shown again) and started to
// list its tools. The fake model server calls `mini__echo`; each call waits for the user with a card
// in the reply being written: Allow once runs it (the chip shows what it said), Deny tells the model
// (the reply still ends with the model's answer), Always allow skips the card from then on (until
// the user takes the tool off the list). A reload while a call waits shows the card again, and a
// second tab sees it too: answering in one turns it into the answer in both. In English and Korean.
// Screenshots go to tests/e2e/out/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AFTER_TOOL_TEXT, MODEL } from './fake-openai.mjs';
import { api, outDir, repo, setUp, TOKEN } from './harness.mjs';

const MINI = path.join(repo, 'tests/mcp/mini_server.py');
const SECRET = 'mini-secret-value-5f3a9c1e77';
/** A marker in the user's message, and what the model then asks `mini__echo` to say. */
const CALLS = {
  allow: 'the first call',
  deny: 'a call to refuse',
  always: 'allowed for good',
  again: 'no question asked',
  reload: 'asked across a reload',
  tabs: 'asked in two tabs',
  elsewhere: 'answered from elsewhere',
  ko: '한국어로 묻기',
};

test('tool servers: added in settings, every call asks first, in one tab or two', { timeout: 300_000 }, async (t) => {
  const { fake, maru, context, page, pageErrors, step } = await setUp(t, 'toolservers', {
    pieceDelayMs: 30,
    toolScripts: Object.entries(CALLS).map(([marker, message]) => ({ marker: `#${marker}-call`, name: 'mini__echo', arguments: { message } })),
  });
  const dialog = page.locator('dialog[open]');
  const live = page.getByTestId('message-live');
  const lastReply = page.getByTestId('message-assistant').last();

  /** Sends a message; the reply stays being written while its call waits. */
  const ask = async (p, marker) => {
    const text = `Say it back, please. #${marker}-call`;
    const composer = p.getByTestId('composer');
    await composer.fill(text);
    await composer.press('Enter');
    await p.getByTestId('message-user').filter({ hasText: text }).waitFor();
  };
  /** The reply is done: the live one gone, the model's answer after the call stored. */
  const finished = async (p) => {
    await p.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });
    await p.getByTestId('send').waitFor();
    await p.getByTestId('message-assistant').last().getByText(AFTER_TOOL_TEXT).waitFor();
  };
  /** The stored reply's chip for the call, opened. */
  const openChip = async (p) => {
    const chip = p.getByTestId('message-assistant').last().getByTestId('tool-chip').last();
    await chip.locator('summary').click();
    return chip;
  };
  const openTools = async () => {
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: 'Tools', exact: true }).click();
    await dialog.getByTestId('tools-pane').waitFor();
  };
  const closeDialog = async () => {
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  };
  const mini = dialog.locator('[data-testid=tool-server][data-name=mini]');
  /** What the model was last told by a tool (the request that follows a call). */
  const lastToolResult = () => fake.requests.filter((r) => r.messages?.at(-1)?.role === 'tool').at(-1).messages.at(-1);
  // Every page of the test counts the cards that show up and notes how each was answered: a card
  // turns into its answer only until the reply ends, too briefly to wait for.
  await context.addInitScript(() => {
    window.seen = { cards: 0, decided: [] };
    const note = (n) => {
      if (!(n instanceof Element)) return;
      if (n.matches('[data-testid=approval]') || n.querySelector('[data-testid=approval]')) window.seen.cards++;
      for (const d of [n, ...n.querySelectorAll('[data-testid=approval-decided]')]) {
        if (d.matches('[data-testid=approval-decided]')) window.seen.decided.push(d.querySelector('.approval-decision')?.textContent);
      }
    };
    document.addEventListener('DOMContentLoaded', () => new MutationObserver((records) => {
      for (const r of records) r.addedNodes.forEach(note);
    }).observe(document.body, { childList: true, subtree: true }));
  });
  /** How the cards shown since the last call were answered (and how many showed). */
  const seen = async (p = page) => p.evaluate(() => {
    const now = { ...window.seen, decided: [...new Set(window.seen.decided)] };
    window.seen = { cards: 0, decided: [] };
    return now;
  });

  await step('point Maru at the fake model server', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.locator('[data-testid=project]', { hasText: 'Default' }).waitFor();
  });

  await step('Settings → Tools: add the mini server with a secret variable; the secret is never shown again', async () => {
    await openTools();
    await dialog.getByTestId('no-tool-servers').waitFor();
    await dialog.getByTestId('add-tool-server').click();
    const form = dialog.getByTestId('tool-server-form');
    await form.getByTestId('tool-server-name').fill('mini');
    await form.getByTestId('tool-server-command').fill('python3');
    await form.getByTestId('tool-server-args').fill(MINI);
    await form.getByTestId('tool-server-env').fill(`MINI_TOKEN=${SECRET}`);
    await dialog.screenshot({ path: path.join(outDir, 'tool-server-add.png') });
    await form.getByTestId('tool-server-save').click();
    await mini.waitFor();
    assert.equal(await mini.getByTestId('tool-server-secrets').innerText(), 'Variables: MINI_TOKEN (values hidden)');
    assert.equal(await mini.getByTestId('tool-server-status').innerText(), 'Not started', 'a server starts when first needed, not when added');
    const [view] = await api(maru.base, 'GET', '/api/tool-servers');
    assert.deepEqual([view.name, view.command, view.args, view.env_keys], ['mini', 'python3', [MINI], ['MINI_TOKEN']]);
    assert.ok(!(await page.content()).includes(SECRET), 'the secret is not in the page once added');
    await mini.getByTestId('tool-server-edit').click();
    assert.equal(await mini.getByTestId('tool-server-env').inputValue(), 'MINI_TOKEN=', 'editing names the variable without its value');
    await dialog.screenshot({ path: path.join(outDir, 'tool-server-edit.png') });
    await mini.getByRole('button', { name: 'Cancel' }).click();
  });

  await step('start it and list its tools: echo, with its description', async () => {
    await mini.getByTestId('tool-server-load').click();
    const tool = mini.locator('[data-testid=server-tool][data-tool=echo]');
    await tool.waitFor();
    assert.equal(await tool.locator('.server-tool-description').innerText(), 'Says the message back.');
    assert.equal(await mini.getByTestId('tool-server-status').innerText(), 'Running');
    await page.mouse.move(5, 5);
    await dialog.screenshot({ path: path.join(outDir, 'tool-servers-settings.png') });
    await closeDialog();
  });

  let sessionId;
  await step('the model calls mini__echo: a card asks first; Allow once runs it and the chip shows what it said', async () => {
    await ask(page, 'allow');
    const card = live.getByTestId('approval');
    await card.waitFor();
    assert.equal(await card.getByTestId('approval-title').innerText(), 'Allow mini to run echo?');
    assert.deepEqual(JSON.parse(await card.getByTestId('approval-args').innerText()), { message: CALLS.allow });
    assert.equal(await live.getByTestId('tool-chip').getByTestId('tool-status').innerText(), 'waiting for you');
    assert.equal(await live.getByTestId('live-status').innerText(), 'Waiting for you');
    assert.equal(fake.requests.length, 1, 'the model is not asked again while the call waits');
    await page.mouse.move(5, 5);
    await page.screenshot({ path: path.join(outDir, 'tool-approval.png') });
    await card.getByTestId('approve-once').click();
    await finished(page);
    sessionId = Number(await page.locator('[data-testid=session].active').getAttribute('data-session-id'));
    const chip = await openChip(page);
    assert.equal(await chip.locator('.tool-name').innerText(), 'mini · echo');
    assert.equal(await chip.getByTestId('tool-status').innerText(), 'done');
    assert.equal(await chip.getByTestId('tool-result').innerText(), `Echo: ${CALLS.allow}`);
    const result = lastToolResult();
    assert.ok(result.content.includes(`Echo: ${CALLS.allow}`), `the model got what the tool said: ${result.content}`);
    await page.screenshot({ path: path.join(outDir, 'tool-approval-done.png') });
  });

  await step('Deny: the call does not run, the model is told, and the reply still ends with its answer', async () => {
    await ask(page, 'deny');
    const card = live.getByTestId('approval');
    await card.waitFor();
    await seen();
    await card.getByTestId('approve-deny').click();
    await finished(page);
    assert.deepEqual((await seen()).decided, ['Denied: the model is told it did not run'], 'the card said it was denied');
    const told = lastToolResult();
    assert.match(told.content, /did not allow this call of echo/, 'the model hears it was not allowed');
    const chip = await openChip(page);
    assert.equal(await chip.getByTestId('tool-status').innerText(), 'not allowed');
    assert.ok(!(await chip.innerText()).includes('Do not call it again'), 'the chip says it in the user’s words, not the model’s');
  });

  await step('Always allow this tool: it runs, and the next call asks nothing', async () => {
    await ask(page, 'always');
    await live.getByTestId('approval').getByTestId('approve-always').click();
    await finished(page);
    assert.deepEqual((await api(maru.base, 'GET', '/api/tool-servers'))[0].always_allowed, ['echo']);
    assert.deepEqual((await seen()).decided, ['Allowed, and from now on this tool runs without asking']);
    const calls = fake.toolCalls.length;
    await ask(page, 'again');
    await finished(page);
    assert.equal(fake.toolCalls.length, calls + 1, 'the model called the tool');
    assert.equal((await seen()).cards, 0, 'no card asked about an always-allowed tool');
    const chip = await openChip(page);
    assert.equal(await chip.getByTestId('tool-result').innerText(), `Echo: ${CALLS.again}`);
  });

  await step('Settings: take echo off the always-allowed list: it asks again', async () => {
    await openTools();
    const entry = mini.locator('.allowed-tool[data-tool=echo]');
    await entry.waitFor();
    await entry.getByTestId('always-allowed-remove').click();
    await entry.waitFor({ state: 'detached' });
    assert.deepEqual((await api(maru.base, 'GET', '/api/tool-servers'))[0].always_allowed, []);
    await closeDialog();
  });

  await step('a reload while the call waits: the card shows again, and answering it works', async () => {
    const replies = await page.getByTestId('message-assistant').count();
    await ask(page, 'reload');
    await live.getByTestId('approval').waitFor();
    await page.reload();
    const card = live.getByTestId('approval');
    await card.waitFor();
    assert.deepEqual(JSON.parse(await card.getByTestId('approval-args').innerText()), { message: CALLS.reload });
    assert.equal(await page.getByTestId('message-assistant').count(), replies, 'the waiting reply shows once, as the one being written');
    await page.screenshot({ path: path.join(outDir, 'tool-approval-reloaded.png') });
    await card.getByTestId('approve-once').click();
    await finished(page);
    assert.equal(await (await openChip(page)).getByTestId('tool-result').innerText(), `Echo: ${CALLS.reload}`);
  });

  await step('two tabs: both show the card; Deny in the second turns it into the answer in both', async () => {
    await ask(page, 'tabs');
    await live.getByTestId('approval').waitFor();
    const second = await context.newPage();
    t.after(() => second.close().catch(() => {}));
    second.on('pageerror', (e) => pageErrors.push(`second tab: ${e}`));
    await second.goto(`${maru.base}/#token=${TOKEN}`);
    await second.locator(`[data-testid=session][data-session-id="${sessionId}"]`).click();
    const there = second.getByTestId('message-live').getByTestId('approval');
    await there.waitFor();
    assert.deepEqual(JSON.parse(await there.getByTestId('approval-args').innerText()), { message: CALLS.tabs });
    await seen();
    await seen(second);
    await there.getByTestId('approve-deny').click();
    await finished(page);
    await finished(second);
    for (const p of [page, second]) {
      assert.deepEqual((await seen(p)).decided, ['Denied: the model is told it did not run'], 'the question turned into the answer in both tabs');
      const chip = await openChip(p);
      assert.equal(await chip.getByTestId('tool-status').innerText(), 'not allowed');
    }
    await second.close();
  });

  await step('an answer from another window shows in this one while the reply goes on', async () => {
    await ask(page, 'elsewhere');
    const card = live.getByTestId('approval');
    await card.waitFor();
    const approval = await card.getAttribute('data-approval');
    await seen();
    // Another window answers (as the second tab did above), through the API.
    await api(maru.base, 'POST', `/api/tool-calls/${encodeURIComponent(approval)}/approve`, {});
    await finished(page);
    assert.deepEqual((await seen()).decided, ['Allowed once']);
    assert.equal(await (await openChip(page)).getByTestId('tool-status').innerText(), 'done');
  });

  await step('Korean: the Tools tab and the card', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: '도구', exact: true }).click();
    await mini.waitFor();
    await mini.getByTestId('tool-server-load').click();
    // Listed again once it answers (it was running already).
    await mini.getByTestId('tool-server-status').filter({ hasText: /^실행 중$/ }).waitFor();
    await mini.locator('[data-testid=server-tool][data-tool=echo]').waitFor();
    assert.equal(await mini.getByTestId('tool-server-secrets').innerText(), '환경 변수: MINI_TOKEN (값은 숨김)');
    await page.mouse.move(5, 5);
    await dialog.screenshot({ path: path.join(outDir, 'tool-servers-settings-ko.png') });
    await closeDialog();
    await ask(page, 'ko');
    const card = live.getByTestId('approval');
    await card.waitFor();
    assert.equal(await card.getByTestId('approval-title').innerText(), 'mini의 echo 도구를 실행할까요?');
    assert.equal(await card.getByTestId('approve-once').innerText(), '이번만 허용');
    await page.screenshot({ path: path.join(outDir, 'tool-approval-ko.png') });
    await card.getByTestId('approve-once').click();
    await finished(page);
    assert.equal(await (await openChip(page)).getByTestId('tool-result').innerText(), `Echo: ${CALLS.ko}`);
  });

  assert.deepEqual(pageErrors, [], 'no errors in the page');
});
