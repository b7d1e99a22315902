// "Jump to latest": offered while a reply is being written and the end of the chat is out of view;
// it scrolls to the end, and goes when the end is in view or the reply is done. In both languages.
// (The browser test, tests/e2e/follow.test.mjs, scrolls for real; here the scroller's size is set.)

import { beforeEach, describe, expect, it } from 'vitest';
import type { TurnSink } from '../src/backend/backend';
import type { Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { appInProject } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chat whose reply the test writes, its scroller `height` px tall over `content` px of messages. */
async function chatWithReply(height = 500, content = 3000) {
  const stored: Message[] = [message({ id: 1, session_id: 5, role: 'user', content: 'Hello', created_at: 1, updated_at: 1 })];
  let sink: TurnSink = () => {};
  let end: () => void = () => {};
  const { app } = appInProject({
    getSession: async () => SESSION,
    listAttachments: async () => [],
    listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
    listProjects: async () => [PROJECT],
    listMemories: async () => [],
    listMessages: async () => ({ messages: stored.slice().reverse(), next_before: null }),
    sendMessage: (_id: number, content: string, s: TurnSink) => {
      stored.push(message({ id: 2, session_id: 5, role: 'user', content, parent_id: 1, created_at: 2, updated_at: 2 }));
      sink = s;
      return new Promise<void>((resolve) => (end = resolve));
    },
  }, PROJECT, { sessions: [SESSION] });
  const root = document.createElement('main');
  document.body.append(root);
  mountChat(app, root, () => {});
  const scroller = root.querySelector<HTMLElement>('.scroller')!;
  let top = 0;
  Object.defineProperty(scroller, 'scrollHeight', { configurable: true, get: () => content });
  Object.defineProperty(scroller, 'clientHeight', { configurable: true, get: () => height });
  Object.defineProperty(scroller, 'scrollTop', { configurable: true, get: () => top, set: (v: number) => (top = Math.max(0, Math.min(v, content - height))) });
  await app.chat.openSession(5, false);
  await sleep(10);
  const sent = app.chat.send('Tell me about Jeju');
  await sleep(10);
  sink({ type: 'token', text: 'Jeju is' });
  await sleep(30);
  const jump = root.querySelector<HTMLButtonElement>('[data-testid=jump-latest]')!;
  return {
    jump, scroller,
    scrollTo: (v: number) => {
      scroller.scrollTop = v;
      scroller.dispatchEvent(new Event('scroll'));
    },
    atBottom: () => top === content - height,
    finish: async () => {
      stored.push(message({ id: 3, session_id: 5, role: 'assistant', content: 'Jeju is an island.', parent_id: 2, created_at: 3, updated_at: 3 }));
      end();
      await sent;
      await sleep(20);
    },
  };
}

describe('jump to latest', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('shows while a reply streams and the end is out of view; jumps to the end and goes', async () => {
    const chat = await chatWithReply();
    expect(chat.atBottom(), 'the chat follows the reply from the start').toBe(true);
    expect(chat.jump.hidden, 'at the end there is nothing to jump to').toBe(true);

    chat.scrollTo(800);
    expect(chat.jump.hidden, 'scrolled up while the reply is written: the button shows').toBe(false);
    expect(chat.jump.textContent).toBe('Jump to latest');

    chat.jump.click();
    expect(chat.atBottom(), 'the button brings the end into view').toBe(true);
    expect(chat.jump.hidden, 'and goes once there').toBe(true);

    chat.scrollTo(2450);
    expect(chat.jump.hidden, 'close enough to the end counts as there (the chat follows from there)').toBe(true);

    chat.scrollTo(100);
    expect(chat.jump.hidden).toBe(false);
    await chat.finish();
    expect(chat.jump.hidden, 'no reply being written: no button, wherever the user is').toBe(true);
  });

  it('is in Korean when the UI is', async () => {
    setLanguage('ko');
    const chat = await chatWithReply();
    chat.scrollTo(0);
    expect(chat.jump.hidden).toBe(false);
    expect(chat.jump.textContent).toBe('최신 메시지로 이동');
  });
});
