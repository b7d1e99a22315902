// At the size of a long-used Maru: 5,000 chats in 21 projects in the sidebar (loaded, paged,
// searched) and a chat of 1,000 messages opened at its first one. What is checked is that it all
// stays right; how long each step took is printed, not asserted (tests/e2e/longchat.test.mjs
// measures the main thread in a real browser).

import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ChatHit, Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { mountSidebar } from '../src/views/sidebar';
import { appInProject, fakeBackend, settingsView } from './fakeBackend';
import { message } from './fixtures';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await sleep(10);
  expect(ok(), what).toBe(true);
}

/** How long `fn` took, printed under `label`. */
async function timed<T>(label: string, fn: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
  return out;
}

const CHATS = 5000;
const PROJECTS = 21;

/** 21 projects (Default first) and 5,000 chats over them, unevenly (the Default holds the most). */
function library() {
  const projects: Project[] = Array.from({ length: PROJECTS }, (_, i) => ({
    id: i + 1, name: i === 0 ? 'Default' : `Project ${i + 1}`, instructions: '', is_default: i === 0, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0,
  }));
  const chats: Session[] = Array.from({ length: CHATS }, (_, i) => {
    const project = i % 3 === 0 ? 1 : 2 + (i % (PROJECTS - 1));
    return { id: i + 1, project_id: project, title: `Chat ${i + 1} about ${['trips', 'taxes', 'code', '서울', 'math'][i % 5]}`, preset: null, model: null, connection_id: null, created_at: i, updated_at: i, imported_at: null, temporary: false };
  });
  for (const p of projects) p.session_count = chats.filter((c) => c.project_id === p.id).length;
  return { projects, chats };
}

describe('5,000 chats in 21 projects', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('lists every project with its count, pages each one newest first to its end, and searches across them', async () => {
    const { projects, chats } = library();
    const hits: ChatHit[] = chats.filter((c) => c.title.endsWith('서울')).slice(0, 30)
      .map((c) => ({ session_id: c.id, project_id: c.project_id, title: c.title, message_id: null, snippet: c.title, highlights: [[c.title.length - 2, c.title.length]], earlier_version: false }));
    const { backend, calls } = fakeBackend({
      listSessions: async (q: { project_id?: number | null; cursor?: string | null; limit?: number | null }) => {
        const mine = chats.filter((c) => c.project_id === q.project_id).sort((a, b) => b.updated_at - a.updated_at);
        const from = Number(q.cursor ?? 0);
        const to = from + (q.limit ?? 30);
        return { sessions: mine.slice(from, to), next_cursor: to < mine.length ? String(to) : null };
      },
      searchChats: async () => hits,
      searchFiles: async () => [],
    });
    const app = new App(backend);
    app.config.settings = settingsView();
    app.sessions.projects = projects.map((project) => ({ project, sessions: [], nextCursor: null, loaded: false, loading: false, expanded: true }));
    const root = document.createElement('aside');
    document.body.append(root);
    const side = await timed('sidebar: mounted with 21 projects', () => mountSidebar(app, root));

    await timed('sidebar: first page of every project loaded and drawn', () => Promise.all(projects.map((p) => app.sessions.loadSessions(p.id))));
    const heads = [...root.querySelectorAll<HTMLElement>('[data-testid=project]')];
    expect(heads.map((h) => h.dataset.projectId), 'every project, in order').toEqual(projects.map((p) => String(p.id)));
    expect(heads.map((h) => h.querySelector('.count')?.textContent), "each project's count of chats").toEqual(projects.map((p) => String(p.session_count)));
    expect(projects.reduce((n, p) => n + p.session_count, 0)).toBe(CHATS);
    expect(root.querySelectorAll('[data-testid=session]').length, 'a first page of 30 per project').toBe(PROJECTS * 30);

    // A project paged to its end (the button asks for 30 more each time): every chat once, newest first.
    const list = () => root.querySelector('[data-testid=project][data-project-id="2"]')!.parentElement!.querySelector('.session-list')!;
    let pages = 0;
    await timed(`sidebar: ${projects[1].name} paged to its end (${projects[1].session_count} chats)`, async () => {
      for (; list().querySelector('.load-more') && pages < 100; pages++) await app.sessions.loadMoreSessions(2);
    });
    const shown = [...list().querySelectorAll<HTMLElement>('[data-testid=session]')].map((el) => Number(el.dataset.sessionId));
    const expected = chats.filter((c) => c.project_id === 2).sort((a, b) => b.updated_at - a.updated_at).map((c) => c.id);
    expect(pages, 'a page of 30 per press of the button').toBe(Math.ceil(expected.length / 30) - 1);
    expect(shown, "the project's chats, each once, newest first").toEqual(expected);
    expect(root.querySelectorAll('[data-testid=session]').length, 'the other projects keep their first page').toBe(expected.length + (PROJECTS - 1) * 30);

    side.focusSearch();
    const input = root.querySelector<HTMLInputElement>('[data-testid=search]')!;
    input.value = '서울';
    await timed('sidebar: a search across 5,000 chats shown', async () => {
      input.dispatchEvent(new Event('input'));
      await until('the results are shown', () => root.querySelectorAll('[data-testid=search-hit]').length === hits.length);
    });
    expect(calls.filter((c) => c.method === 'searchChats').length, 'one request for the query').toBe(1);
    const found = [...root.querySelectorAll('[data-testid=search-hit]')];
    expect(found.map((f) => f.querySelector('.hit-title')?.textContent), 'the hits in the order the server ranked them').toEqual(hits.map((h) => h.title));
    expect(found.map((f) => f.querySelector('.hit-project')?.textContent), "each hit names its project").toEqual(hits.map((h) => projects[h.project_id - 1].name));
  }, 120_000);
});

describe('a chat of 1,000 messages', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('opens at its end, then goes up to its first message, with at most 200 in the page and every reply rendered', async () => {
    const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
    const SESSION: Session = { id: 5, project_id: 1, title: 'Long', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
    // Replies with math, code or plain Markdown, as a long chat has them.
    const reply = (id: number) => [`The sum is $\\sum_{i=1}^{${id}} i$.`, `In code:\n\n\`\`\`python\nprint(${id})\n\`\`\``, `Plain **${id}**.`][id % 3];
    const stored: Message[] = Array.from({ length: 1000 }, (_, i) => {
      const id = i + 1;
      return message({ id, session_id: 5, role: id % 2 ? 'user' : 'assistant', content: id % 2 ? `Question ${id}` : reply(id), parent_id: id > 1 ? id - 1 : null, created_at: id, updated_at: id });
    });
    const { app, calls } = appInProject({
      getSession: async () => SESSION,
      listAttachments: async () => [],
      listMessages: async (_id: number, q?: { before?: number | null; limit?: number | null }) => {
        const older = stored.filter((m) => q?.before == null || m.id < q.before);
        const page = older.slice(-(q?.limit ?? 50));
        return { messages: page.slice().reverse(), next_before: older.length > page.length ? page[0].id : null };
      },
    }, PROJECT, { sessions: [SESSION] });
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});
    const drawn = () => [...root.querySelectorAll<HTMLElement>('.messages .msg')];

    await timed('chat: 1,000 messages, opened at the end', () => app.chat.openSession(5, false));
    expect(drawn().at(-1)?.dataset.messageId, 'the newest message is drawn last').toBe('1000');

    await timed('chat: every older page loaded', async () => {
      while (app.chat.olderBefore !== null) await app.chat.loadOlder();
    });
    expect(app.chat.messages.length, 'every page was loaded').toBe(1000);
    expect(calls.filter((c) => c.method === 'listMessages').length, '20 pages of 50, and no page twice').toBe(20);
    await timed('chat: the window moved up to the first message, 25 at a time', async () => {
      const older = root.querySelector<HTMLButtonElement>('[data-testid=older] button')!;
      for (let i = 0; i < 60 && !drawn().some((el) => el.dataset.messageId === '1'); i++) {
        older.click();
        await sleep(5);
      }
    });
    const els = drawn();
    expect(els.length, 'a bounded window of messages in the page').toBeLessThanOrEqual(200);
    expect(els[0].dataset.messageId, 'the window starts at the first message').toBe('1');
    const ids = els.map((el) => Number(el.dataset.messageId));
    expect(ids, 'in order, without a gap').toEqual(ids.map((_, i) => ids[0] + i));
    const replies = els.filter((el) => el.dataset.role === 'assistant');
    expect(replies.filter((el) => el.querySelector('.katex')).length, 'every reply with math shows it rendered').toBe(replies.filter((el) => Number(el.dataset.messageId) % 3 === 0).length);
    expect(replies.filter((el) => el.querySelector('.hljs-built_in, .hljs-number')).length, 'every reply with code shows it highlighted').toBe(replies.filter((el) => Number(el.dataset.messageId) % 3 === 1).length);
    expect(root.querySelector('.md .pending-text'), 'no reply shown as its raw text').toBeNull();
  }, 120_000);
});
