// Temporary chats in the window: a new chat made temporary is created so, stays out of the
// sidebar, is marked while open with "Keep this chat", and is deleted when the user leaves it.
// In English and Korean.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { appInProject } from './fakeBackend';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const TEMP: Session = { id: 9, project_id: 1, title: '', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup() {
  const fake = appInProject({
    createSession: async () => TEMP,
    keepSession: async () => ({ ...TEMP, temporary: false }),
    deleteSession: async () => undefined,
    listSessions: async () => ({ sessions: [{ ...TEMP, temporary: false }], next_cursor: null }),
    listProjects: async () => [PROJECT],
    listAttachments: async () => [],
  }, PROJECT);
  const root = document.createElement('main');
  document.body.replaceChildren(root);
  mountChat(fake.app, root, () => {});
  fake.app.chat.newChat(1, false);
  return { ...fake, root };
}

describe('a temporary chat', () => {
  beforeEach(() => setLanguage('en'));

  it('is chosen before the first message, marked while open, and kept on request', async () => {
    const { app, root, calls } = setup();
    const toggle = root.querySelector<HTMLButtonElement>('[data-testid=temporary-toggle]')!;
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    toggle.click();
    expect(root.querySelector('[data-testid=temporary-toggle]')?.getAttribute('aria-pressed'), 'the draft says it will be temporary').toBe('true');
    await app.chat.ensureSession();
    expect(calls.find((c) => c.method === 'createSession')?.args[0], 'the chat is created temporary').toMatchObject({ temporary: true });
    expect(app.sessions.projects[0].sessions, 'it is not listed in the sidebar').toEqual([]);
    app.emit('chat');
    const mark = root.querySelector('[data-testid=temporary-mark]');
    expect(mark?.textContent, 'while open, the chat says it is temporary').toContain('Temporary chat');
    root.querySelector<HTMLButtonElement>('[data-testid=keep-chat]')!.click();
    await sleep(20);
    expect(calls.some((c) => c.method === 'keepSession' && c.args[0] === 9)).toBe(true);
    expect(app.sessions.projects[0].sessions.map((s) => s.id), 'kept, it joins its project').toEqual([9]);
    expect(root.querySelector('[data-testid=temporary-mark]'), 'and is no longer marked').toBeNull();
    expect(calls.some((c) => c.method === 'deleteSession'), 'a kept chat is never deleted on leaving').toBe(false);
  });

  it('is deleted when the user leaves it', async () => {
    setLanguage('ko');
    const { app, root, calls } = setup();
    root.querySelector<HTMLButtonElement>('[data-testid=temporary-toggle]')!.click();
    await app.chat.ensureSession();
    app.emit('chat');
    expect(root.querySelector('[data-testid=temporary-mark]')?.textContent).toContain('임시 대화');
    app.chat.newChat(1, false);
    await sleep(10);
    expect(calls.filter((c) => c.method === 'deleteSession').map((c) => c.args[0]), 'leaving it deletes it').toEqual([9]);
    expect(root.querySelector<HTMLButtonElement>('[data-testid=temporary-toggle]')?.getAttribute('aria-pressed'), 'a new chat is not temporary unless asked').toBe('false');
  });
});
