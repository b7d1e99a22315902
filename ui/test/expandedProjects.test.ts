// The sidebar remembers which projects are expanded: a reload (a new App reading the same
// localStorage) opens the same ones, and the open chat's project is always open.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app';
import type { Project, Session } from '../src/backend/types';
import { rememberedExpanded } from '../src/lib/expandedProjects';
import { setLanguage } from '../src/lib/i18n';
import { mountSidebar } from '../src/views/sidebar';
import { fakeBackend, settingsView } from './fakeBackend';

const KEY = 'maru.expandedProjects';
const project = (id: number, name: string, is_default = false): Project =>
  ({ id, name, instructions: '', is_default, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 });
const DEFAULT = project(1, 'Default', true);
const WORK = project(2, 'Work');
const TRIPS = project(3, 'Trips');
const chat = (id: number, project_id: number): Session =>
  ({ id, project_id, title: `Chat ${id}`, preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false });
const CHATS = [chat(10, 1), chat(20, 2), chat(30, 3)];

/** Maru started (or reloaded) on a server with `projects`, its sidebar drawn. */
async function start(projects: Project[] = [DEFAULT, WORK, TRIPS]) {
  const fake = fakeBackend({
    health: async () => ({ status: 'ok', version: '0.1.0', schema_version: 19 }),
    getSettings: async () => settingsView(),
    listPresets: async () => [],
    listProjects: async () => projects,
    listSessions: async (q: { project_id?: number | null }) => ({ sessions: CHATS.filter((s) => s.project_id === q.project_id), next_cursor: null }),
    getSession: async (id: number) => CHATS.find((s) => s.id === id)!,
    listMessages: async () => ({ messages: [], next_before: null }),
    listAttachments: async () => [],
    listMemories: async () => [],
  });
  const app = new App(fake.backend);
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  mountSidebar(app, root);
  await app.reload(true);
  return { app, root };
}

const head = (root: HTMLElement, id: number) => root.querySelector<HTMLElement>(`[data-testid=project][data-project-id="${id}"]`)!;
/** The projects drawn open, by name. */
const expanded = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('[data-testid=project][aria-expanded=true] .project-name')].map((el) => el.textContent);
const shownChats = (root: HTMLElement) => [...root.querySelectorAll('[data-testid=session] .session-title')].map((el) => el.textContent);

describe('the projects the sidebar shows expanded', () => {
  beforeEach(() => {
    setLanguage('en');
    localStorage.clear();
    history.replaceState(null, '', '/');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    localStorage.clear();
    history.replaceState(null, '', '/');
    document.body.replaceChildren();
  });

  it('are the ones expanded before a reload, with their chats listed', async () => {
    const first = await start();
    expect(expanded(first.root), 'a first run opens the Default project').toEqual(['Default']);
    head(first.root, 2).click();
    head(first.root, 1).click();
    await vi.waitFor(() => expect(shownChats(first.root)).toEqual(['Chat 20']));

    const again = await start();
    expect(expanded(again.root), 'the user finds the sidebar as they left it').toEqual(['Work']);
    expect(shownChats(again.root), 'and the chats of the project they opened').toEqual(['Chat 20']);
  });

  it('include the open chat’s project after a reload, even if it was collapsed', async () => {
    localStorage.setItem(KEY, JSON.stringify([1]));
    history.replaceState(null, '', '/#/chat/30');
    const { root } = await start();
    expect(expanded(root), 'the chat on screen is never hidden in a collapsed project').toEqual(['Default', 'Trips']);
    await vi.waitFor(() => expect(shownChats(root), 'its row is listed, marked as the open one').toContain('Chat 30'));
    expect(rememberedExpanded(), 'and it stays open on the next reload').toEqual(new Set([1, 3]));
  });

  it('stay collapsed when the user collapsed them all', async () => {
    const first = await start();
    head(first.root, 1).click();
    const again = await start();
    expect(expanded(again.root), 'collapsing everything is a choice, not a first run').toEqual([]);
  });

  it('forget projects that no longer exist', async () => {
    localStorage.setItem(KEY, JSON.stringify([2, 3]));
    const { root } = await start([DEFAULT, WORK]);
    expect(expanded(root)).toEqual(['Work']);
    expect(rememberedExpanded(), 'a deleted project does not linger in storage').toEqual(new Set([2]));
  });

  it('fall back to a first run when storage holds something unreadable, and keep what is readable', async () => {
    for (const junk of ['not json', '{"2":true}', '"2"', 'null']) {
      localStorage.setItem(KEY, junk);
      expect(expanded((await start()).root), `stored ${junk}: the sidebar still opens, as on a first run`).toEqual(['Default']);
    }
    localStorage.setItem(KEY, JSON.stringify([3, 'x', null, 2.5]));
    expect(expanded((await start()).root), 'the valid ids of a damaged list are kept').toEqual(['Trips']);
  });

  it('still expand and collapse when storage is off', async () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    const { root } = await start();
    expect(expanded(root), 'the sidebar opens as on a first run').toEqual(['Default']);
    head(root, 2).click();
    expect(expanded(root), 'a click still expands, for this page').toEqual(['Default', 'Work']);
  });
});
