// A chat's menu asks the model for a new title (one that did not come out well, or no longer
// fits): the sidebar shows it at once, Undo brings the old one back, and a refusal is said in the
// UI's language while the title stays.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { ApiError } from '../src/backend/backend';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountSidebar, sessionMenu } from '../src/views/sidebar';
import '../src/views/toast';
import { fakeBackend, settingsView } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const CHAT: Session = { id: 5, project_id: 1, title: 'How do I bake sourdough bread at home?', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

function setup(answer: () => Promise<Session>) {
  let chat = CHAT;
  const { backend, calls } = fakeBackend({
    regenerateTitle: async () => (chat = await answer()),
    updateSession: async (_id, patch) => (chat = { ...chat, ...(patch as Partial<Session>) }),
    listProjects: async () => [DEFAULT],
    listSessions: async () => ({ sessions: [chat], next_cursor: null }),
    listAttachments: async () => [],
  });
  const app = new App(backend);
  app.config.settings = settingsView();
  app.sessions.projects = [{ project: DEFAULT, sessions: [chat], nextCursor: null, loaded: true, loading: false, expanded: true }];
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  mountSidebar(app, root);
  return { app, root, calls };
}

async function chooseNewTitle(root: HTMLElement) {
  root.querySelector<HTMLElement>('[data-testid=session-menu]')!.click();
  const item = [...document.querySelectorAll<HTMLElement>('[role=menuitem]')].find((e) => /New title from the model|모델에게 새 제목 받기/.test(e.textContent ?? ''));
  expect(item, 'the chat’s menu offers a new title from the model').toBeTruthy();
  item!.click();
  await sleep(20);
}

const notices = () => [...document.querySelectorAll('[data-testid=toast] .toast-text')].map((el) => el.textContent);
const title = (root: HTMLElement) => root.querySelector('[data-testid=session]')?.textContent ?? '';

describe('a new title from the model', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => document.body.replaceChildren());

  it('shows the new title at once, and Undo brings the old one back', async () => {
    const { root, calls } = setup(async () => ({ ...CHAT, title: 'Sourdough at home' }));
    await chooseNewTitle(root);
    expect(calls.filter((c) => c.method === 'regenerateTitle').map((c) => c.args), 'the server is asked for this chat’s title').toEqual([[5]]);
    expect(title(root), 'the sidebar shows the new title').toContain('Sourdough at home');
    expect(notices(), 'the user is told what the new title is, and not still told it is being asked').toEqual(['New title: Sourdough at home']);
    [...document.querySelectorAll<HTMLButtonElement>('[data-testid=toast] button')].find((b) => b.textContent === 'Undo')!.click();
    await sleep(20);
    expect(calls.filter((c) => c.method === 'updateSession').map((c) => c.args), 'Undo renames the chat back').toEqual([[5, { title: CHAT.title }]]);
    expect(title(root)).toContain(CHAT.title);
  });

  it('says in Korean why there is no new title, and keeps the old one', async () => {
    setLanguage('ko');
    const { root } = setup(async () => {
      throw new ApiError('title_unusable', 'the model answered "", which is no title; try again, or rename the chat', 409);
    });
    await chooseNewTitle(root);
    expect(notices().join(' '), 'the refusal, in Korean').toContain('모델의 답이 제목이 아니었습니다');
    expect(title(root), 'the title is unchanged').toContain(CHAT.title);
  });

  it('is not offered for a temporary chat, which is never titled', () => {
    const { app } = setup(async () => CHAT);
    const labels = (s: Session) => sessionMenu(app, s, document.body).map((i) => i.label);
    expect(labels(CHAT), 'a kept chat offers it').toContain('New title from the model');
    expect(labels({ ...CHAT, temporary: true }), 'a temporary chat does not').not.toContain('New title from the model');
  });
});
