// "Continue in a new chat" on a message: offered on the user's messages and on finished replies,
// it asks the server for a new chat from that message and opens it. In English and Korean.

import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { messageNode } from '../src/views/message';
import { appInProject, fakeBackend } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const FORKED: Session = { ...SESSION, id: 6 };
const ctx = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('continuing in a new chat', () => {
  beforeEach(() => setLanguage('en'));

  it('is offered on a question and a finished reply, not on a reply still being written', () => {
    const app = new App(fakeBackend({}).backend);
    const fork = (node: HTMLElement) => node.querySelector('[data-testid=fork]');
    expect(fork(messageNode(app, message({ id: 1, role: 'user', content: 'q' }), ctx))?.getAttribute('aria-label')).toBe('Continue in a new chat');
    expect(fork(messageNode(app, message({ id: 2, role: 'assistant', content: 'a' }), ctx)), 'a reply can be continued from').not.toBeNull();
    expect(fork(messageNode(app, message({ id: 3, role: 'assistant', content: 'a', status: 'streaming' }), ctx)), 'a reply being written is not whole yet').toBeNull();
    setLanguage('ko');
    expect(fork(messageNode(app, message({ id: 1, role: 'user', content: 'q' }), ctx))?.getAttribute('aria-label')).toBe('새 대화에서 이어 가기');
  });

  it('asks for a new chat from that message and opens it', async () => {
    const { app, calls } = appInProject({
      forkMessage: async () => FORKED,
      listSessions: async () => ({ sessions: [FORKED, SESSION], next_cursor: null }),
      getSession: async (id: number) => (id === 6 ? FORKED : SESSION),
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
    }, PROJECT, { sessions: [SESSION] });
    const node = messageNode(app, message({ id: 2, session_id: 5, role: 'assistant', content: 'a' }), ctx);
    document.body.replaceChildren(node);
    node.querySelector<HTMLButtonElement>('[data-testid=fork]')!.click();
    await sleep(30);
    expect(calls.find((c) => c.method === 'forkMessage')?.args, 'the message clicked is where the new chat ends').toEqual([2]);
    expect(app.chat.session?.id, 'the new chat is open').toBe(6);
    expect(document.querySelector('[data-testid=toasts]')?.textContent).toContain('Continued in a new chat');
  });
});
