// The live sidebar: what another tab or the API changes shows here without a reload, as the
// server's change feed (`GET /api/events`) tells it. The feed is driven by the test (`changeFeed`);
// the rest of the server is a small in-memory one below.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { ApiError, type TurnSink } from '../src/backend/backend';
import { httpBackend } from '../src/backend/http';
import type { Change, Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { mountSidebar } from '../src/views/sidebar';
import { changeFeed, fakeBackend, settingsView } from './fakeBackend';
import { message } from './fixtures';

const project = (id: number, name: string, is_default = false): Project =>
  ({ id, name, instructions: '', is_default, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 });
const chat = (id: number, project_id: number, title: string, updated_at = id): Session =>
  ({ id, project_id, title, preset: null, model: null, connection_id: null, created_at: 0, updated_at, imported_at: null, temporary: false });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to 2 s) for `ok`; fails saying what did not happen. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await sleep(10);
  expect(ok(), what).toBe(true);
}

/** A turn the test drives: started (another tab sent a message), tokens pushed, ended. */
function controlledTurn() {
  let sink: TurnSink = () => {};
  let end: () => void = () => {};
  return {
    run: (s: TurnSink) => {
      sink = s;
      return new Promise<void>((resolve) => (end = resolve));
    },
    token: (text: string) => sink({ type: 'token', text }),
    end: (reply: Message) => {
      sink({ type: 'done', message: reply } as never);
      end();
    },
  };
}

/**
 * Maru open in this tab on a server another tab shares: projects Default (chats 5 and 6) and
 * Work (chat 7), both expanded, chat 5 open, the change feed connected.
 */
async function live() {
  const server: {
    projects: Project[];
    chats: Session[];
    messages: Map<number, Message[]>;
    /** Holds the answer of a project's list until `until` settles (a slow read). */
    hold?: { project: number; until: Promise<void> };
  } = {
    projects: [project(1, 'Default', true), project(2, 'Work')],
    chats: [chat(5, 1, 'Groceries', 50), chat(6, 1, 'Taxes', 40), chat(7, 2, 'Roadmap', 30)],
    messages: new Map<number, Message[]>([[5, [message({ id: 1, session_id: 5, content: 'Milk?' }), message({ id: 2, session_id: 5, role: 'assistant', content: 'Yes, milk.', parent_id: 1 })]]]),
  };
  const feed = changeFeed();
  const attachTurn = controlledTurn();
  const sendTurn = controlledTurn();
  // A regenerate the server fails before the reply's first word.
  let failRegenerate = () => {};
  const fake = fakeBackend({
    ...feed.methods,
    health: async () => ({ status: 'ok', version: '0.1.0', schema_version: 19 }),
    getSettings: async () => settingsView(),
    listPresets: async () => [],
    listProjects: async () => server.projects.map((p) => ({ ...p, session_count: server.chats.filter((c) => c.project_id === p.id).length })),
    listSessions: async (q: { project_id?: number | null }) => {
      const sessions = server.chats.filter((c) => c.project_id === q.project_id).sort((a, b) => b.updated_at - a.updated_at).map((c) => ({ ...c }));
      const hold = server.hold;
      if (hold && hold.project === q.project_id) await hold.until;
      return { sessions, next_cursor: null };
    },
    getSession: async (id: number) => {
      const c = server.chats.find((x) => x.id === id);
      if (!c) throw new ApiError('not_found', `chat ${id} not found`, 404);
      return { ...c };
    },
    listMessages: async (id: number) => ({ messages: (server.messages.get(id) ?? []).slice().reverse(), next_before: null }),
    listAttachments: async () => [],
    listMemories: async () => [],
    deleteSession: async (id: number) => {
      server.chats = server.chats.filter((c) => c.id !== id);
    },
    attach: (_id: number, sink: TurnSink) => attachTurn.run(sink),
    sendMessage: (_id: number, _content: string, sink: TurnSink) => sendTurn.run(sink),
    regenerate: () => new Promise<void>((_, reject) => (failRegenerate = () => reject(new ApiError('model_server.unreachable', 'cannot reach the model server', 502)))),
  });
  const app = new App(fake.backend);
  const sidebar = document.createElement('aside');
  const main = document.createElement('main');
  document.body.replaceChildren(sidebar, main);
  mountSidebar(app, sidebar);
  mountChat(app, main, () => {});
  await app.reload(true);
  app.sessions.toggleProject(2);
  await app.chat.openSession(5, false);
  app.changes.start({ backoffMs: [20] });
  await feed.opened();
  await sleep(10);
  fake.calls.length = 0;
  return { app, server, feed, calls: fake.calls, sidebar, main, attachTurn, sendTurn, regenerateTurn: { fail: () => failRegenerate() } };
}

const projectNode = (root: HTMLElement, id: number) => root.querySelector(`[data-testid=project][data-project-id="${id}"]`)!.closest('.project')!;
/** The chats listed under a project, by title, in order. */
const titles = (root: HTMLElement, projectId: number) =>
  [...projectNode(root, projectId).querySelectorAll('[data-testid=session] .session-title')].map((el) => el.textContent);
const countOf = (root: HTMLElement, projectId: number) => projectNode(root, projectId).querySelector('.count')?.textContent;
const sessionItem = (root: HTMLElement, id: number) => root.querySelector<HTMLElement>(`[data-testid=session][data-session-id="${id}"]`);
const toasts = () => [...document.querySelectorAll('[data-testid=toast]')].map((el) => el.textContent ?? '');
const callsOf = (calls: { method: string; args: unknown[] }[], method: string, firstArg?: unknown) =>
  calls.filter((c) => c.method === method && (firstArg === undefined || c.args[0] === firstArg)).length;

describe('the sidebar follows what changes elsewhere', () => {
  let app: App | null = null;
  beforeEach(() => {
    setLanguage('en');
    localStorage.clear();
    history.replaceState(null, '', '/');
  });
  afterEach(() => {
    app?.changes.stop();
    app = null;
    localStorage.clear();
    history.replaceState(null, '', '/');
    document.body.replaceChildren();
  });

  it('shows a chat created in another tab or through the API, with its project counting it', async () => {
    const t = await live();
    app = t.app;
    expect(titles(t.sidebar, 1)).toEqual(['Groceries', 'Taxes']);
    t.server.chats.push(chat(8, 1, 'Trip to Busan', 100));
    t.feed.push({ type: 'session_changed', session_id: 8 });
    await until(() => titles(t.sidebar, 1)[0] === 'Trip to Busan', 'the new chat appears at the top of its project, without a reload');
    await until(() => countOf(t.sidebar, 1) === '3', "its project's count includes it");
    expect(titles(t.sidebar, 1)).toEqual(['Trip to Busan', 'Groceries', 'Taxes']);
  });

  it('shows what a list read brings even when the projects are refreshed while it is under way', async () => {
    const t = await live();
    app = t.app;
    let release: () => void = () => {};
    t.server.hold = { project: 2, until: new Promise<void>((r) => (release = r)) };
    t.server.chats.find((c) => c.id === 6)!.project_id = 2;
    // A read of Work's chats under way (as after moving Taxes there), and meanwhile the change
    // feed says the projects changed, so they are read again.
    const reading = t.app.sessions.loadSessions(2);
    t.feed.push({ type: 'projects_changed' });
    await until(() => callsOf(t.calls, 'listProjects') > 0, 'the projects are read again during the list read');
    await sleep(20);
    t.server.hold = undefined;
    release();
    await reading;
    await until(() => titles(t.sidebar, 2).includes('Taxes'), 'the moved chat shows: the refresh must not orphan the list being read');
  });

  it('shows a rename and a move made elsewhere, in the sidebar and in the open chat’s header', async () => {
    const t = await live();
    app = t.app;
    t.server.chats.find((c) => c.id === 5)!.title = 'Weekly groceries';
    t.server.chats.find((c) => c.id === 6)!.project_id = 2;
    t.feed.push({ type: 'session_changed', session_id: 5 }, { type: 'session_changed', session_id: 6 });
    await until(() => titles(t.sidebar, 1).includes('Weekly groceries'), 'the renamed chat shows its new title');
    expect(t.main.querySelector('[data-testid=chat-title]')?.textContent, 'the open chat’s header shows the new title too').toContain('Weekly groceries');
    await until(() => titles(t.sidebar, 2).includes('Taxes'), 'the moved chat shows in the project it moved to');
    expect(titles(t.sidebar, 1), 'and no longer in the one it left').toEqual(['Weekly groceries']);
    await until(() => countOf(t.sidebar, 1) === '1' && countOf(t.sidebar, 2) === '2', 'both projects count their chats again');
  });

  it('removes a chat deleted elsewhere; the open one gives way to a new chat with a notice, keeping what was typed', async () => {
    const t = await live();
    app = t.app;
    const composer = t.main.querySelector<HTMLTextAreaElement>('[data-testid=composer]')!;
    composer.value = 'half a thought';
    composer.dispatchEvent(new Event('input'));

    t.server.chats = t.server.chats.filter((c) => c.id !== 6);
    t.feed.push({ type: 'session_deleted', session_id: 6 });
    expect(titles(t.sidebar, 1), 'a chat deleted elsewhere goes from the list at once').toEqual(['Groceries']);
    expect(t.app.chat.session?.id, 'deleting another chat leaves the open one open').toBe(5);
    expect(toasts().some((x) => x.includes('deleted elsewhere')), 'no notice for a chat that was not open').toBe(false);

    t.server.chats = t.server.chats.filter((c) => c.id !== 5);
    t.feed.push({ type: 'session_deleted', session_id: 5 });
    expect(titles(t.sidebar, 1), 'the open chat goes from the list').toEqual([]);
    expect(t.app.chat.session, 'a new chat is shown instead, as after deleting it here').toBeNull();
    expect(t.app.chat.draftProjectId, 'in the project the deleted chat was in').toBe(1);
    expect(toasts().some((x) => x.includes('This chat was deleted elsewhere')), 'a notice says why the chat went').toBe(true);
    expect(composer.value, 'what the user was typing is not lost').toBe('half a thought');
  });

  it('keeps a delete waiting for Undo here hidden, lets Undo bring it back, and says nothing when its own delete is heard', async () => {
    const t = await live();
    app = t.app;
    await t.app.sessions.deleteSession(6);
    expect(titles(t.sidebar, 1)).toEqual(['Groceries']);
    // The chat changes meanwhile (a reply ending in it, say): it must not come back while Undo is offered.
    t.feed.push({ type: 'session_changed', session_id: 6 });
    await sleep(300);
    expect(titles(t.sidebar, 1), 'a change to a chat deleted here does not bring it back').toEqual(['Groceries']);

    const undo = [...document.querySelectorAll<HTMLButtonElement>('[data-testid=toast-action]')].at(-1)!;
    undo.click();
    await until(() => titles(t.sidebar, 1).includes('Taxes'), 'Undo brings the chat back');

    await t.app.sessions.deleteSession(6);
    t.app.undo.flush();
    await until(() => callsOf(t.calls, 'deleteSession', 6) === 1, 'the delete is sent once Undo is no longer offered');
    t.feed.push({ type: 'session_deleted', session_id: 6 });
    await sleep(20);
    expect(titles(t.sidebar, 1)).toEqual(['Groceries']);
    expect(toasts().some((x) => x.includes('deleted elsewhere')), 'its own delete is not news to this tab').toBe(false);
  });

  it('reads a chat at most twice for a burst of 10 changes to it', async () => {
    const t = await live();
    app = t.app;
    t.server.chats.find((c) => c.id === 5)!.title = 'Groceries (done)';
    for (let i = 0; i < 10; i++) t.feed.push({ type: 'session_changed', session_id: 5 });
    await sleep(700);
    const reads = callsOf(t.calls, 'getSession', 5);
    const lists = callsOf(t.calls, 'listSessions');
    expect(reads, 'the chat is read again').toBeGreaterThanOrEqual(1);
    expect(reads, 'but not once per change: at most once per 250 ms').toBeLessThanOrEqual(2);
    expect(lists, 'its project’s list likewise').toBeLessThanOrEqual(2);
    expect(titles(t.sidebar, 1)).toContain('Groceries (done)');
  });

  it('reads everything shown again on resync', async () => {
    const t = await live();
    app = t.app;
    t.server.projects.push(project(3, 'Trips'));
    t.server.chats.find((c) => c.id === 7)!.title = 'Roadmap 2027';
    t.server.chats.find((c) => c.id === 5)!.title = 'Groceries and more';
    t.server.messages.get(5)!.push(message({ id: 3, session_id: 5, content: 'And eggs?', parent_id: 2 }));
    t.feed.push({ type: 'resync' });
    await until(() => !!t.sidebar.querySelector('[data-testid=project][data-project-id="3"]'), 'a project the missed changes made is listed');
    await until(() => titles(t.sidebar, 2).includes('Roadmap 2027'), 'an expanded project’s chats are read again');
    await until(() => t.app.chat.messages.some((m) => m.content === 'And eggs?'), 'the open chat’s messages are read again');
    expect(t.main.querySelector('[data-testid=chat-title]')?.textContent, 'and the open chat itself').toContain('Groceries and more');
  });

  it('marks another chat “writing…” from the start of its turn to its end, in English and Korean', async () => {
    const t = await live();
    app = t.app;
    t.feed.push({ type: 'turn_started', session_id: 7 });
    const badge = () => sessionItem(t.sidebar, 7)?.querySelector('[data-testid=session-writing]');
    expect(badge()?.textContent, 'the chat being written in says so').toBe('writing…');
    expect(sessionItem(t.sidebar, 7)?.querySelector('a')?.getAttribute('aria-label'), 'and says it to a screen reader').toBe('Roadmap (a reply is being written)');
    expect(sessionItem(t.sidebar, 6)?.querySelector('[data-testid=session-writing]'), 'other chats are not marked').toBeNull();
    setLanguage('ko');
    t.app.emit('sidebar');
    expect(badge()?.textContent).toBe('작성 중…');
    expect(sessionItem(t.sidebar, 7)?.querySelector('a')?.getAttribute('aria-label')).toBe('Roadmap (답변을 작성하는 중)');
    t.feed.push({ type: 'turn_ended', session_id: 7 });
    expect(badge(), 'the mark goes when the turn ends').toBeFalsy();
    expect(sessionItem(t.sidebar, 7)?.querySelector('a')?.hasAttribute('aria-label')).toBe(false);
  });

  it('follows in the open chat a turn another tab started, and reads the messages when it ends', async () => {
    const t = await live();
    app = t.app;
    const stored = t.server.messages.get(5)!;
    stored.push(message({ id: 3, session_id: 5, content: 'Sent from the other tab', parent_id: 2 }),
      message({ id: 4, session_id: 5, role: 'assistant', content: '', status: 'streaming', parent_id: 3 }));
    t.feed.push({ type: 'turn_started', session_id: 5 });
    await until(() => callsOf(t.calls, 'attach', 5) === 1, 'this tab attaches to the turn');
    expect(t.main.textContent, 'the question sent elsewhere shows').toContain('Sent from the other tab');
    expect(sessionItem(t.sidebar, 5)?.querySelector('[data-testid=session-writing]'), 'the open chat shows its reply, not a mark').toBeNull();
    t.attachTurn.token('Eggs ');
    t.attachTurn.token('too.');
    await until(() => t.main.querySelector('[data-testid=message-live]')?.textContent?.includes('Eggs too.') ?? false, 'the reply streams in here too');

    stored[3] = { ...stored[3], content: 'Eggs too.', status: 'complete' };
    const before = callsOf(t.calls, 'listMessages', 5);
    t.attachTurn.end(stored[3]);
    t.feed.push({ type: 'turn_ended', session_id: 5 });
    await until(() => !t.main.querySelector('[data-testid=message-live]'), 'the live reply gives way to the saved one');
    expect(callsOf(t.calls, 'listMessages', 5), 'the messages are read again when it ends').toBeGreaterThan(before);
    expect(t.main.querySelector('[data-message-id="4"]')?.textContent).toContain('Eggs too.');

    // A turn this tab starts is followed by its own stream, not attached to a second time.
    const sent = t.app.chat.send('Bread?');
    await sleep(10);
    t.feed.push({ type: 'turn_started', session_id: 5 });
    await sleep(20);
    expect(callsOf(t.calls, 'attach', 5), 'its own turn is not attached to again').toBe(1);
    t.sendTurn.end(message({ id: 6, session_id: 5, role: 'assistant', content: 'Yes.' }));
    await sent;
  });

  it('reads a chat it is sending in only once the reply has begun, leaving the model server the machine meanwhile', async () => {
    const t = await live();
    app = t.app;
    t.server.chats.find((c) => c.id === 5)!.updated_at = 99;
    const sent = t.app.chat.send('Bread?');
    await sleep(10);
    // The turn's first transaction changed the chat; the model is reading the prompt.
    t.feed.push({ type: 'turn_started', session_id: 5 }, { type: 'session_changed', session_id: 5 });
    await sleep(300);
    expect(callsOf(t.calls, 'getSession', 5), 'no read of the chat while the model server works out the first word').toBe(0);
    expect(callsOf(t.calls, 'listSessions'), 'nor of its project’s list').toBe(0);
    t.sendTurn.token('Yes');
    await until(() => callsOf(t.calls, 'getSession', 5) === 1, 'the chat is read once the reply has begun: what changed is not lost');
    await until(() => callsOf(t.calls, 'listSessions') === 1, 'and its project’s list');
    // Another chat's changes are not held back by this reply.
    t.feed.push({ type: 'session_changed', session_id: 6 });
    await until(() => callsOf(t.calls, 'getSession', 6) === 1, 'another chat is read at once');
    t.sendTurn.end(message({ id: 6, session_id: 5, role: 'assistant', content: 'Yes.' }));
    await sent;
  });

  it('reads the chat when a reply ends before saying anything', async () => {
    const t = await live();
    app = t.app;
    t.server.chats.find((c) => c.id === 5)!.title = 'Groceries (asked)';
    const sent = t.app.chat.regenerate();
    await sleep(10);
    t.feed.push({ type: 'session_changed', session_id: 5 });
    await sleep(50);
    expect(callsOf(t.calls, 'getSession', 5), 'held while the reply has not begun').toBe(0);
    t.regenerateTurn.fail();
    await sent;
    await until(() => titles(t.sidebar, 1).includes('Groceries (asked)'), 'a reply refused or failed before its first word still lets the change show');
  });

  it('lights a project while a chat is dragged over it, its name and buttons included, and moves the chat on drop', async () => {
    const t = await live();
    app = t.app;
    const work = t.sidebar.querySelector<HTMLElement>('[data-testid=project][data-project-id="2"]')!;
    const name = work.querySelector<HTMLElement>('.project-name')!;
    // What a browser's drag carries (this DOM's DragEvent carries none): filled by the dragstart.
    const store = new Map<string, string>();
    const data = {
      get types() { return [...store.keys()]; },
      setData: (type: string, value: string) => store.set(type, value),
      getData: (type: string) => store.get(type) ?? '',
      dropEffect: 'none',
      effectAllowed: 'all',
    };
    const drag = (type: string, target: HTMLElement, relatedTarget: EventTarget | null = null) => {
      const ev = new MouseEvent(type, { bubbles: true, cancelable: true, relatedTarget });
      Object.defineProperty(ev, 'dataTransfer', { value: data });
      target.dispatchEvent(ev);
    };
    drag('dragstart', sessionItem(t.sidebar, 5)!);
    drag('dragover', work);
    expect(work.classList.contains('drop-target'), 'the project under the dragged chat is lit').toBe(true);
    // Onto the name: the head is left for its child (before any dragover there).
    drag('dragleave', work, name);
    expect(work.classList.contains('drop-target'), "moving onto the project's name does not switch the light off").toBe(true);
    drag('dragleave', work, t.sidebar);
    expect(work.classList.contains('drop-target'), 'leaving the project does').toBe(false);
    let moved: unknown;
    drag('dragover', name);
    drag('drop', name);
    await until(() => (moved = t.calls.find((c) => c.method === 'updateSession')) !== undefined, 'dropping on the name moves the chat');
    expect((moved as { args: unknown[] }).args).toEqual([5, { project_id: 2 }]);
  });

  it('opens the feed again after it drops, and reads everything again since changes were missed', async () => {
    const t = await live();
    app = t.app;
    // The server restarts: the stream ends, the first attempt finds nobody, the next one connects.
    t.feed.refuse(true);
    t.feed.end();
    t.server.chats.push(chat(9, 2, 'Made while the server was away', 200));
    await sleep(60);
    expect(t.feed.connections(), 'not connected while the server is down').toBe(1);
    t.feed.refuse(false);
    await t.feed.opened(2);
    await until(() => titles(t.sidebar, 2).includes('Made while the server was away'), 'after reconnecting, what changed meanwhile shows');
    expect(callsOf(t.calls, 'listProjects'), 'the projects are read again').toBeGreaterThanOrEqual(1);
    // And the new stream is the one listened to.
    t.server.chats.find((c) => c.id === 6)!.title = 'Taxes 2026';
    t.feed.push({ type: 'session_changed', session_id: 6 });
    await until(() => titles(t.sidebar, 1).includes('Taxes 2026'), 'changes on the new stream show');
  });
});

describe('the change feed over HTTP', () => {
  it('reads GET /api/events with the token, as typed changes, until the stream ends', async () => {
    const seen: Request[] = [];
    const enc = new TextEncoder();
    const chunks = [
      ': keep-alive\n\n',
      'event: session_changed\ndata: {"type":"session_changed","session_id":5}\n\n',
      'event: projects_chan',
      'ged\ndata: {"type":"projects_changed"}\n\nevent: something_new\ndata: {}\n\n',
      'event: resync\ndata: {"type":"resync"}\n\n',
    ];
    const backend = httpBackend({
      baseUrl: 'http://127.0.0.1:9',
      token: 'tok',
      fetch: async (request: Request) => {
        seen.push(request);
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            for (const ch of chunks) c.enqueue(enc.encode(ch));
            c.close();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    const changes: Change[] = [];
    let opened = 0;
    await backend.changes((c) => changes.push(c), () => opened++);
    expect(`${seen[0].method} ${seen[0].url}`).toBe('GET http://127.0.0.1:9/api/events');
    expect(seen[0].headers.get('authorization'), 'the feed needs the token like every /api call').toBe('Bearer tok');
    expect(seen[0].headers.get('accept')).toBe('text/event-stream');
    expect(opened, 'told once the server answered').toBe(1);
    expect(changes, 'each change by its event name; comments and unknown events left out').toEqual([
      { type: 'session_changed', session_id: 5 },
      { type: 'projects_changed' },
      { type: 'resync' },
    ]);
  });

  it('stops reading when aborted', async () => {
    const backend = httpBackend({
      baseUrl: 'http://127.0.0.1:9',
      token: 'tok',
      fetch: async () => new Response(new ReadableStream<Uint8Array>({ start() {} }), { headers: { 'content-type': 'text/event-stream' } }),
    });
    const abort = new AbortController();
    const reading = backend.changes(() => {}, () => abort.abort(), abort.signal);
    await expect(reading, 'an open stream that never ends is let go').resolves.toBeUndefined();
  });
});
