// The real Maru window (Tauri, WebKitGTK) driven through tauri-driver: it opens with the UI built
// into the binary, lists Default, streams a reply from the fake model server over IPC, stops one
// mid-stream, moves the chat to another project, keeps links out of the window, saves an export
// in Downloads, asks before a call of the user's MCP tool server runs (Allow once, Deny), takes a
// reply from a second model server added in Settings and picked in the chat header, hands a
// second launch on the same data folder over to the first window (instead of opening the database
// twice), comes back at the size it was left, and opens when launched while the last window on
// the folder is still closing.
//
// Env: MARU_DESKTOP_BIN (the desktop build of maru), TAURI_DRIVER_URL (a running tauri-driver),
// both set by run.sh. Screenshots land in out/.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import dbus from 'dbus-next';

import { AFTER_TOOL_TEXT, DEFAULT_TOOL_SCRIPTS, MODEL, REPLY_TEXT, SLOW_MARKER, startFakeOpenAi } from '../e2e/fake-openai.mjs';
import { WebDriver, sleep } from './webdriver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'out');
const BIN = process.env.MARU_DESKTOP_BIN;
const DRIVER = process.env.TAURI_DRIVER_URL;
/** The tiny stdio MCP server of the fast tier (one tool, `echo`), and the Python that runs it. */
const MINI = path.join(here, '../mcp/mini_server.py');
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim();
/** A marker in the user's message, and what the model then asks `mini__echo` to say. */
const CALLS = { allow: 'said from the window', deny: 'a call the window refuses' };

/** How many distinct colours a PNG has: text drawn on a background has dozens (antialiasing). */
function colours(png, name) {
  const file = path.join(out, name);
  fs.writeFileSync(file, png);
  return Number(execFileSync('identify', ['-format', '%k', file]).toString());
}

/**
 * The distinct colours of `el` as drawn, shot again for up to 3 s while they are too few to be
 * text: under Xvfb, WebKit's compositor now and then hands the first shot over before it painted
 * (an all-black frame), while the page itself is complete.
 */
async function drawnColours(wd, el, name) {
  let n = 0;
  for (let i = 0; i < 15 && n <= 16; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 200));
    n = colours(await wd.shot(el), name);
  }
  return n;
}

/**
 * A window on `dataDir` that is closing: it holds the folder's single-instance name on the
 * session bus, takes a launch's hand-over (`called`) and never answers until it `quit`s.
 */
async function closingWindow(dataDir) {
  const hash = createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, 16);
  const name = `app.maru.desktop.d${hash}.SingleInstance`;
  const bus = dbus.sessionBus();
  // The window before it may still be on its way out.
  let owned;
  for (let i = 0; i < 100 && owned !== dbus.RequestNameReply.PRIMARY_OWNER; i++) {
    if (i > 0) await sleep(100);
    owned = await bus.requestName(name, dbus.NameFlag.DO_NOT_QUEUE);
  }
  if (owned !== dbus.RequestNameReply.PRIMARY_OWNER) bus.disconnect();
  assert.equal(owned, dbus.RequestNameReply.PRIMARY_OWNER, `the closing window holds ${name} once the last window let go`);
  let handedOver;
  const called = new Promise((resolve) => (handedOver = resolve));
  bus.addMethodHandler((msg) => {
    if (msg.member !== 'ExecuteCallback') return false;
    handedOver();
    return true; // taken, never answered
  });
  return { called, quit: () => bus.disconnect() };
}

test('the desktop window: Default listed, a streamed reply, stop, move, tool calls ask first, one instance per folder', { timeout: 300_000 }, async (t) => {
  assert.ok(BIN && DRIVER, 'run through tests/desktop/run.sh, which builds the window and starts tauri-driver');
  fs.mkdirSync(out, { recursive: true });
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'maru-window-'));
  const fake = await startFakeOpenAi({
    pieceDelayMs: 60,
    toolScripts: [...DEFAULT_TOOL_SCRIPTS, ...Object.entries(CALLS).map(([marker, message]) => ({ marker: `#${marker}-call`, name: 'mini__echo', arguments: { message } }))],
  });
  const wd = new WebDriver(DRIVER);
  t.after(async () => {
    await wd.quit();
    await fake.close?.();
    fs.rmSync(data, { recursive: true, force: true });
  });

  await wd.start(BIN, ['--data-dir', data]);

  // The page's own backend, for set-up only; what is tested goes through the window's controls.
  const backend = (call) => wd.exec(`return window.maru.backend.${call}.then((v) => JSON.parse(JSON.stringify(v ?? null)))`);

  await t.test('the window opens on the UI inside the binary and lists Default', async () => {
    await wd.waitFor('[data-testid=project]', { text: 'Default', why: 'the sidebar lists the Default project' });
    const origin = await wd.exec('return location.origin');
    assert.match(origin, /^(tauri:\/\/localhost|http:\/\/tauri\.localhost)$/, 'the page is the one built into the binary, not a local web server');
    const health = await backend('health()');
    assert.equal(health.status, 'ok', 'the page reaches the core over IPC');
  });

  await t.test('a message gets a streamed reply from the model server', async () => {
    await backend(`updateSettings({ endpoint_url: ${JSON.stringify(fake.baseUrl)}, model: ${JSON.stringify(MODEL)} })`);
    await wd.exec('location.reload()');
    await wd.waitFor('[data-testid=project]', { text: 'Default' });
    const composer = await wd.waitFor('[data-testid=composer]');
    await wd.type(composer, 'Hello from the window');
    await wd.click(await wd.waitFor('[data-testid=send]'));
    // While it streams, the reply is drawn live, a piece at a time.
    const live = await wd.waitFor('[data-testid=message-live]', { why: 'the reply shows while it is written' });
    const partial = await wd.text(live).catch(() => '');
    await wd.waitFor('[data-testid=message-assistant]', { text: 'Hello from the fake model.', why: 'the whole reply arrives' });
    assert.ok(partial.length < REPLY_TEXT.length, `the reply was shown before it was complete (saw ${partial.length} characters first)`);
    const sidebar = await wd.waitFor('.sidebar, [data-testid=sidebar]');
    const reply = await wd.waitFor('[data-testid=message-assistant]', { text: 'Hello from the fake model.' });
    fs.writeFileSync(path.join(out, 'window.png'), await wd.windowShot());
    assert.ok((await drawnColours(wd, sidebar, 'sidebar.png')) > 16, 'the sidebar is drawn with its text (see out/sidebar.png)');
    assert.ok((await drawnColours(wd, reply, 'reply.png')) > 16, 'the reply is drawn with its text (see out/reply.png)');
    const [s, r] = [await wd.rect(sidebar), await wd.rect(reply)];
    assert.ok(s.width > 150 && s.height > 300, `the sidebar is on screen: ${JSON.stringify(s)}`);
    assert.ok(r.x >= s.x + s.width - 1 && r.width > 100, `the reply is beside the sidebar: ${JSON.stringify(r)}`);
  });

  await t.test('stop ends a reply mid-stream and keeps its text', async () => {
    const composer = await wd.waitFor('[data-testid=composer]');
    await wd.type(composer, `Tell me a long story ${SLOW_MARKER}`);
    await wd.click(await wd.waitFor('[data-testid=send]'));
    const live = await wd.waitFor('[data-testid=message-live]', { text: 'Hello', timeout: 20_000, why: 'the slow reply starts' });
    assert.ok(live);
    await wd.click(await wd.waitFor('[data-testid=stop]'));
    await wd.waitFor('[data-testid=status-badge]', { text: 'Stopped', why: 'the reply is marked stopped' });
    const sessionId = await wd.exec('return window.maru.chat.session.id');
    const page = await backend(`listMessages(${sessionId})`);
    const last = page.messages[0]; // newest first
    assert.equal(last.status, 'stopped', 'the core stored the reply as stopped');
    assert.ok(last.content.startsWith('Hello') && last.content.length < REPLY_TEXT.length, `the text so far is kept: ${JSON.stringify(last.content)}`);
  });

  await t.test('the chat moves to another project from its menu', async () => {
    await backend('createProject({ name: "Trips" })');
    await wd.exec('return window.maru.sessions.refreshProjects()');
    const sessionId = await wd.exec('return window.maru.chat.session.id');
    const menu = await wd.waitFor(`[data-testid=session][data-session-id="${sessionId}"] [data-testid=session-menu]`);
    // The menu button shows on hover; a click through the page is what a pointer does.
    await wd.exec('arguments[0].click()', [wd.ref(menu)]);
    await wd.click(await wd.waitFor('[role=menuitem]', { text: 'Move to project' }));
    await wd.click(await wd.waitFor('[role=menuitem]', { text: 'Trips' }));
    await wd.waitFor('[data-testid=chat-project]', { text: 'Trips', why: 'the chat header names its new project' });
    const session = await backend(`getSession(${sessionId})`);
    const projects = await backend('listProjects()');
    assert.equal(projects.find((p) => p.id === session.project_id)?.name, 'Trips', 'the core has the chat in Trips');
  });

  await t.test('links leave for the system browser: the window only ever shows Maru', async () => {
    const before = await wd.cmd('GET', wd.s('/window/handles'));
    // A link in a reply opens a new window (target=_blank); a script may also try to navigate.
    await wd.exec(`const a = document.createElement('a'); a.href = 'https://example.com/'; a.target = '_blank'; a.rel = 'noopener';
      document.body.append(a); a.click(); a.remove();`);
    await wd.exec("location.href = 'https://example.com/'");
    await sleep(1000);
    assert.deepEqual(await wd.cmd('GET', wd.s('/window/handles')), before, 'no second window opened inside Maru');
    assert.match(await wd.exec('return location.origin'), /^(tauri:\/\/localhost|http:\/\/tauri\.localhost)$/, 'the window still shows Maru');
    await wd.waitFor('[data-testid=project]', { text: 'Default', why: 'the app is still there, not a web page' });
  });

  await t.test('a file the page saves (an export, a backup) lands in the Downloads folder', async () => {
    const downloads = process.env.MARU_TEST_DOWNLOADS;
    assert.ok(downloads, 'run.sh names the Downloads folder');
    const session = await wd.exec('return window.maru.chat.session.id');
    const menu = await wd.waitFor(`[data-testid=session][data-session-id="${session}"] [data-testid=session-menu]`);
    await wd.exec('arguments[0].click()', [wd.ref(menu)]);
    await wd.click(await wd.waitFor('[role=menuitem]', { text: 'Export as Markdown' }));
    let saved = [];
    for (let i = 0; i < 50 && saved.length === 0; i++) {
      await sleep(100);
      saved = fs.readdirSync(downloads).filter((f) => f.endsWith('.md'));
    }
    assert.equal(saved.length, 1, `the export is saved in Downloads (found ${JSON.stringify(fs.readdirSync(downloads))})`);
    assert.match(fs.readFileSync(path.join(downloads, saved[0]), 'utf8'), /Hello from the window/, 'the file is the chat, as exported');
    await wd.waitFor('.toast', { text: saved[0], why: 'the window says where the file went' });
  });

  /** Waits until nothing matches `css` (a reply being written has ended). */
  const gone = async (css, { timeout = 30_000, why = '' } = {}) => {
    const until = Date.now() + timeout;
    while (Date.now() < until) {
      if ((await wd.find(css)).length === 0) return;
      await sleep(100);
    }
    throw new Error(`${css} still there after ${timeout} ms (${why})`);
  };
  /**
   * Clicks the element matching `css`, found again if a redraw replaced it between finding and
   * clicking (the reply being written is redrawn on every streamed event).
   */
  const clickFresh = async (css, why) => {
    for (let i = 0; ; i++) {
      try {
        return await wd.click(await wd.waitFor(css, { why }));
      } catch (e) {
        if (i >= 4 || !/stale element/.test(String(e))) throw e;
      }
    }
  };
  /** Asks for a scripted call; the reply stays being written while the call waits for an answer. */
  const askForCall = async (marker) => {
    const text = `Say it back, please. #${marker}-call`;
    await wd.type(await wd.waitFor('[data-testid=composer]'), text);
    await clickFresh('[data-testid=send]', 'the send button');
    await wd.waitFor('[data-testid=message-user]', { text, why: 'the message is in the chat' });
    return wd.waitFor('[data-testid=message-live] [data-testid=approval]', { timeout: 20_000, why: 'the call waits for the user with a card in the reply' });
  };
  /** The reply is done: the live one gone, the send button back, the model's answer after the call shown. */
  const finished = async (why) => {
    await gone('[data-testid=message-live]', { why });
    await wd.waitFor('[data-testid=send]', { why: 'the composer can send again' });
    const replies = await wd.find('[data-testid=message-assistant]');
    const last = replies.at(-1);
    assert.ok((await wd.text(last)).includes(AFTER_TOOL_TEXT), `${why}: the reply ends with the model's answer after the call`);
    return last;
  };
  /** What the model was last told by a tool (the request that follows a call). */
  const lastToolResult = () => fake.requests.filter((r) => r.messages?.at(-1)?.role === 'tool').at(-1)?.messages.at(-1);

  await t.test("a call of the user's MCP tool server waits in the window; Allow once runs it, Deny tells the model", async () => {
    const server = await backend(`createToolServer({ name: 'mini', transport: 'stdio', command: ${JSON.stringify(PYTHON)}, args: [${JSON.stringify(MINI)}] })`);
    assert.equal(server.name, 'mini', 'the tool server is added');

    // Allow once: the card names the server, the tool and what it would be asked.
    const asked = fake.requests.length;
    const card = await askForCall('allow');
    const title = await wd.text(await wd.waitFor('[data-testid=message-live] [data-testid=approval-title]'));
    assert.equal(title, 'Allow mini to run echo?', 'the card says which server wants to run which tool, so the user knows what they allow');
    const args = await wd.text(await wd.waitFor('[data-testid=message-live] [data-testid=approval-args]'));
    assert.deepEqual(JSON.parse(args), { message: CALLS.allow }, 'the card shows what the tool would be asked, before the user allows it');
    assert.equal(await wd.text(await wd.waitFor('[data-testid=message-live] [data-testid=live-status]')), 'Waiting for you',
      'the reply says it waits for the user, not that it is still being written');
    assert.equal(fake.requests.length, asked + 1, 'nothing runs and the model is not asked again while the call waits for the user');
    assert.equal(fake.toolCalls.at(-1)?.name, 'mini__echo', 'the model was offered the tool as <server>__<tool> and called it');
    fs.writeFileSync(path.join(out, 'tool-approval-window.png'), await wd.windowShot());
    assert.ok((await drawnColours(wd, card, 'tool-approval.png')) > 16, 'the approval card is drawn with its text (see out/tool-approval.png)');
    const [c, s] = [await wd.rect(card), await wd.rect(await wd.waitFor('.sidebar, [data-testid=sidebar]'))];
    assert.ok(c.x >= s.x + s.width - 1 && c.width > 200 && c.height > 60, `the card is on screen in the chat, big enough to read: ${JSON.stringify(c)}`);

    await clickFresh('[data-testid=message-live] [data-testid=approval] [data-testid=approve-once]', 'Allow once');
    const reply = await finished('allowed once');
    const result = lastToolResult();
    assert.ok(result?.content.includes(`Echo: ${CALLS.allow}`), `the model got what the tool really said: ${JSON.stringify(result?.content)}`);
    assert.equal(fake.requests.at(-1).messages.at(-1), result, 'the request after Allow once is the one carrying the result');
    assert.equal(await wd.exec('return [...arguments[0].querySelectorAll("[data-testid=tool-result]")].at(-1)?.textContent', [wd.ref(reply)]),
      `Echo: ${CALLS.allow}`, "the reply's chip shows the user what the tool said");

    // Deny: the call does not run, the model hears so, the turn still ends.
    const before = (await wd.find('[data-testid=message-assistant]')).length;
    await askForCall('deny');
    assert.deepEqual(JSON.parse(await wd.text(await wd.waitFor('[data-testid=message-live] [data-testid=approval-args]'))), { message: CALLS.deny },
      'the second card asks about the second call');
    await clickFresh('[data-testid=message-live] [data-testid=approval] [data-testid=approve-deny]', 'Deny');
    const denied = await finished('denied');
    assert.equal((await wd.find('[data-testid=message-assistant]')).length, before + 1, 'the denied turn ends as one more reply');
    const told = lastToolResult();
    assert.match(told?.content ?? '', /did not allow this call of echo/, 'the model is told the user did not allow the call, so it does not claim a result');
    assert.ok(!told.content.includes(`Echo: ${CALLS.deny}`), 'the denied call did not run');
    assert.equal(await wd.exec('return [...arguments[0].querySelectorAll("[data-testid=tool-status]")].at(-1)?.textContent', [wd.ref(denied)]),
      'not allowed', "the reply's chip says the call was not allowed");
  });

  await t.test('a second model server added in Settings answers the chat once its model is picked in the header', async (t) => {
    const SECOND_MODEL = 'second-model';
    const SECOND_TEXT = 'Answered by the second server.';
    const second = await startFakeOpenAi({ model: SECOND_MODEL, pieceDelayMs: 20, replyPieces: ['Answered', ' by', ' the', ' second', ' server.'] });
    t.after(() => second.close?.());

    // Settings → Servers → Add server, as a user does it.
    await clickFresh('[data-testid=open-settings]', 'the Settings button');
    await clickFresh('dialog[open] [role=tab][data-tab=server]', 'the Servers tab');
    await clickFresh('dialog[open] [data-testid=add-server]', 'Add server');
    await wd.type(await wd.waitFor('dialog[open] [data-testid=server-form] [data-testid=server-address]'), second.baseUrl);
    await wd.type(await wd.waitFor('dialog[open] [data-testid=server-form] [data-testid=server-name]'), 'Second');
    await clickFresh('dialog[open] [data-testid=server-form] [data-testid=server-save]', 'the save button of the server form');
    const row = 'dialog[open] [data-testid=server][data-name="Second"]';
    await wd.waitFor(`${row} [data-testid=server-status]`, { text: '1 model', why: 'the new server is checked at once and lists its one model' });
    assert.equal(await wd.text(await wd.waitFor(`${row} [data-testid=server-models]`)), SECOND_MODEL, 'the user sees which models the new server offers');
    const servers = await backend('listConnections()');
    assert.deepEqual(servers.map((c) => [c.name, c.base_url]).filter(([n]) => n === 'Second'), [['Second', second.baseUrl]], 'the core keeps the server the user added');
    await clickFresh('dialog[open] .dialog-head .icon-btn', 'the close button of Settings');
    await gone('dialog[open]', { timeout: 5000, why: 'Settings closes' });

    // The header's picker lists the second server's model under its name.
    const firstAsked = fake.requests.length;
    await clickFresh('[data-testid=chat-model-picker]', "the chat header's model picker");
    const item = await wd.waitFor('.menu [role=menuitem]', { text: SECOND_MODEL, why: "the picker offers the new server's model" });
    const headings = await wd.exec('return [...document.querySelectorAll(".menu .menu-heading")].map((e) => e.textContent.trim().toLowerCase())');
    assert.ok(headings.includes('second'), `the model is listed under its server's name, so the user knows where it runs (${headings.join(', ')})`);
    fs.writeFileSync(path.join(out, 'servers-picker-window.png'), await wd.windowShot());
    // The menu is redrawn as each server answers: the item is found again if it was replaced.
    for (let i = 0; ; i++) {
      try {
        await wd.click(i === 0 ? item : await wd.waitFor('.menu [role=menuitem]', { text: SECOND_MODEL }));
        break;
      } catch (e) {
        if (i >= 4 || !/stale element/.test(String(e))) throw e;
      }
    }
    await wd.waitFor('[data-testid=chat-server]', { text: 'Second', why: 'the header names the server the chat now uses' });
    assert.equal(await wd.text(await wd.waitFor('[data-testid=chat-model]')), SECOND_MODEL, 'the header shows the model the user picked');

    // The next reply comes from the second server, not the first.
    await wd.type(await wd.waitFor('[data-testid=composer]'), 'Which server are you?');
    await clickFresh('[data-testid=send]', 'the send button');
    await wd.waitFor('[data-testid=message-assistant]', { text: SECOND_TEXT, timeout: 30_000, why: 'the reply of the second server arrives in the window' });
    await gone('[data-testid=message-live]', { why: 'the reply ends' });
    assert.equal(second.requests.length, 1, 'the picked server got the message, so the user talks to the model they chose');
    assert.equal(second.requests[0].model, SECOND_MODEL, 'the second server is asked for its own model');
    assert.equal(fake.requests.length, firstAsked, 'the first server got nothing more: the chat does not silently stay on it');
    assert.equal(await wd.text(await wd.waitFor('[data-testid=chat-server]')), 'Second', 'after the reply the header still names the server that answered');
  });

  await t.test("a project's settings in the window: the system's folder picker offered, a folder linked, its files as a tree, paths left out", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'maru-window-folder-'));
    const write = (rel, text) => {
      fs.mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
      fs.writeFileSync(path.join(folder, rel), text);
    };
    write('AGENTS.md', 'Answer in short sentences.\n');
    for (let i = 0; i < 5; i++) write(`src/module${i}.ts`, `export const m${i} = ${i};\n`);
    for (let i = 0; i < 3; i++) write(`vendor/lib${i}.js`, `var v${i} = ${i};\n`);
    try {
      // The project's menu button shows on hover; a click through the page is what a pointer does.
      await wd.exec(`[...document.querySelectorAll('[data-testid=project]')].find((e) => e.textContent.includes('Trips'))
        .querySelector('[data-testid=project-menu]').click()`);
      await wd.click(await wd.waitFor('[role=menuitem]', { text: 'Settings…', why: "the project's menu offers its settings" }));
      await wd.waitFor('dialog[open] [data-testid=project-settings]', { why: "the project's settings open" });
      await wd.waitFor('dialog[open] [data-testid=folder-choose]', { text: 'Choose', why: "the window offers the system's folder picker, which a browser has not" });
      await wd.type(await wd.waitFor('dialog[open] [data-testid=folder-input]'), folder);
      await clickFresh('dialog[open] [data-testid=folder-link]', 'Link');
      await wd.waitFor('dialog[open] [data-testid=folder-current]', { text: folder, why: 'the folder is linked' });
      await wd.waitFor('dialog[open] [data-testid=folder-sync][data-state=done]', { timeout: 30_000, why: 'the sync says when it is done' });
      await wd.waitFor('dialog[open] [data-testid=tree-summary]', { text: '8 files', why: 'the tree counts the folder\'s files (AGENTS.md is the instructions, not a file)' });
      await wd.waitFor('dialog[open] [data-testid=instruction-sent]', { why: "the folder's AGENTS.md is listed as sent to the model" });
      await wd.type(await wd.waitFor('dialog[open] [data-testid=folder-exclude]'), 'vendor/');
      await wd.waitFor('dialog[open] [data-testid=folder-exclude-said]', { text: '1 pattern', why: 'the pattern saves itself after a pause' });
      await wd.waitFor('dialog[open] [data-testid=tree-summary]', { text: '5 files', timeout: 30_000, why: 'the vendored files leave the project' });
      const trips = (await backend('listProjects()')).find((p) => p.name === 'Trips');
      assert.deepEqual([trips.folder, trips.exclude], [fs.realpathSync(folder), ['vendor/']], 'the core keeps the folder and the pattern');
      fs.writeFileSync(path.join(out, 'project-settings-window.png'), await wd.windowShot());
      await clickFresh('dialog[open] [data-testid=project-done]', 'Done');
      await gone('dialog[open]', { timeout: 5000, why: 'the settings close' });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  await t.test('a second launch on the same data folder hands over to the open window', async () => {
    const second = spawn(BIN, ['--data-dir', data], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let err = '';
    second.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => second.on('exit', resolve));
    // With a session bus the first window is focused and the second exits quietly; without one,
    // the data folder's lock refuses it and says which process has the folder.
    if (code !== 0) assert.match(err, /in use by another Maru/, `the second launch (exit ${code}) explains itself: ${err}`);
    assert.equal((await backend('health()')).status, 'ok', 'the first window goes on working');
  });

  await t.test('the window comes back at the size and place it was left', async () => {
    await wd.cmd('POST', wd.s('/window/rect'), { x: 40, y: 30, width: 900, height: 650 });
    await sleep(1500);
    // WebDriver ends the app without a clean quit, as a logout would: the place is kept anyway.
    await wd.quit();
    await wd.start(BIN, ['--data-dir', data]);
    await wd.waitFor('[data-testid=project]', { text: 'Default' });
    const rect = await wd.cmd('GET', wd.s('/window/rect'));
    assert.deepEqual([rect.width, rect.height], [900, 650], `the size is remembered: ${JSON.stringify(rect)}`);
  });

  await t.test('a launch while the last window on the folder is still closing opens once that window lets go', async () => {
    await wd.quit();
    const closing = await closingWindow(data);
    try {
      const started = wd.start(BIN, ['--data-dir', data]);
      const asked = await Promise.race([closing.called.then(() => true), sleep(30_000).then(() => false)]);
      assert.ok(asked, 'the launch asks the window that holds its folder to take over first');
      await sleep(500);
      closing.quit();
      await started;
    } finally {
      closing.quit();
    }
    await wd.waitFor('[data-testid=project]', { text: 'Default', why: 'a quick relaunch opens its window, not "cannot open the window"' });
  });
});
