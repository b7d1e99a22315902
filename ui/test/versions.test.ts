import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Backend, TurnSink } from '../src/backend/backend';
import type { Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { messageNode } from '../src/views/message';
import { appInProject, fakeBackend } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 1, title: 'Versions', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const ctx = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const msg = (over: Partial<Message>) => message({ session_id: 5, ...over });

const appWith = (methods: Partial<Backend>) => appInProject(methods, PROJECT, { sessions: [SESSION] });

/** The stored chat, which the fake server pages newest first. */
function pages(shown: () => Message[]) {
  return { listMessages: async () => ({ messages: shown().slice().reverse(), next_before: null }) };
}

describe('the version switcher', () => {
  beforeEach(() => setLanguage('en'));

  it('says which version is shown and offers the ones before and after it', () => {
    const app = new App(fakeBackend({}).backend);
    const node = messageNode(app, msg({ id: 7, role: 'assistant', content: 'b', versions: [3, 7, 9] }), ctx);
    expect(node.querySelector('[data-testid=version-at]')?.textContent).toBe('2 / 3');
    const [prev, next] = node.querySelectorAll<HTMLButtonElement>('.version-step');
    expect([prev.disabled, next.disabled]).toEqual([false, false]);
    expect(prev.getAttribute('aria-label')).toBe('Previous version');

    const first = messageNode(app, msg({ id: 3, role: 'user', content: 'q', versions: [3, 7] }), ctx);
    const steps = first.querySelectorAll<HTMLButtonElement>('.version-step');
    expect([steps[0].disabled, steps[1].disabled], 'the first version has nothing before it').toEqual([true, false]);

    const busy = messageNode(app, msg({ id: 7, role: 'assistant', versions: [3, 7, 9] }), { ...ctx, busy: true });
    expect([...busy.querySelectorAll<HTMLButtonElement>('.version-step')].every((b) => b.disabled), 'no switching under a reply being written').toBe(true);
    expect(messageNode(app, msg({ id: 2, role: 'assistant' }), ctx).querySelector('[data-testid=versions]'), 'one version: no switcher').toBeNull();
  });

  it('in Korean', () => {
    setLanguage('ko');
    const node = messageNode(new App(fakeBackend({}).backend), msg({ id: 7, role: 'assistant', versions: [3, 7] }), ctx);
    expect(node.querySelector('.version-step')?.getAttribute('aria-label')).toBe('이전 버전');
  });

  it('switching shows the other branch from the switched message on, keeping the messages before it', async () => {
    let stored = [msg({ id: 1, content: 'q' }), msg({ id: 2, role: 'assistant', content: 'new', parent_id: 1, versions: [2, 4] })];
    const earlier = [stored[0], msg({ id: 4, role: 'assistant', content: 'old', parent_id: 1, versions: [2, 4] })];
    const { app, calls } = appWith({
      getSession: async () => SESSION,
      listAttachments: async () => [],
      ...pages(() => stored),
      chooseVersion: async () => {
        stored = earlier;
        return { messages: stored.slice().reverse(), next_before: null };
      },
    });
    const root = document.createElement('main');
    document.body.replaceChildren(root);
    mountChat(app, root, () => {});
    await app.chat.openSession(5, false);
    const first = app.chat.messages[0];
    root.querySelectorAll<HTMLButtonElement>('.version-step')[1].click();
    await sleep(20);
    expect(calls.find((c) => c.method === 'chooseVersion')?.args[0]).toBe(4);
    expect(app.chat.shownMessages().map((m) => m.content)).toEqual(['q', 'old']);
    expect(app.chat.messages[0], 'the question is the same object: it is not drawn again').toBe(first);
    expect(root.querySelector('[data-testid=version-at]')?.textContent).toBe('2 / 2');
  });
});

describe('edit and resend', () => {
  beforeEach(() => setLanguage('en'));

  it('shows the edited message in place of the original and what followed it, then the new branch', async () => {
    let sink: TurnSink = () => {};
    let end: () => void = () => {};
    let stored = [
      msg({ id: 1, content: 'first question' }),
      msg({ id: 2, role: 'assistant', content: 'first answer', parent_id: 1 }),
      msg({ id: 3, content: 'second question', parent_id: 2 }),
      msg({ id: 4, role: 'assistant', content: 'second answer', parent_id: 3 }),
    ];
    const { app, calls } = appWith({
      getSession: async () => SESSION,
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
      listMemories: async () => [],
      ...pages(() => stored),
      resend: (_id: number, _content: string, s: TurnSink) => {
        sink = s;
        return new Promise<void>((r) => (end = r));
      },
    });
    await app.chat.openSession(5, false);
    const sending = app.chat.resend(3, 'second question, edited');
    await sleep(10);
    expect(calls.find((c) => c.method === 'resend')?.args.slice(0, 2)).toEqual([3, 'second question, edited']);
    expect(app.chat.shownMessages().map((m) => m.content), 'the original and its reply give way to the edit').toEqual(['first question', 'first answer', 'second question, edited']);
    sink({ type: 'token', text: 'edited answer' });
    stored = [stored[0], stored[1], msg({ id: 5, content: 'second question, edited', parent_id: 2, versions: [3, 5] }), msg({ id: 6, role: 'assistant', content: 'edited answer', parent_id: 5 })];
    end();
    expect(await sending).toBe(true);
    expect(app.chat.shownMessages().map((m) => m.id)).toEqual([1, 2, 5, 6]);
    expect(app.chat.messages[2].versions, 'the edit shows it is version 2 of 2').toEqual([3, 5]);
  });
});
