import { beforeEach, describe, expect, it } from 'vitest';
import type { TurnSink } from '../src/backend/backend';
import type { Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { appInProject, connection } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 1, title: 'Long', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

function msg(id: number, over: Partial<Message> = {}): Message {
  // One branch: each message follows the one before it.
  return message({ id, session_id: 5, role: id % 2 ? 'user' : 'assistant', content: `Message ${id}`, parent_id: id > 1 ? id - 1 : null, created_at: id, updated_at: id, ...over });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chat whose stored messages the test holds; pages are served newest first, as the server does. */
function longChat(count: number) {
  const stored: Message[] = Array.from({ length: count }, (_, i) => msg(i + 1));
  let sink: TurnSink = () => {};
  let end: () => void = () => {};
  const fake = appInProject({
    getSession: async () => SESSION,
    listAttachments: async () => [],
    listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
    listProjects: async () => [PROJECT],
    listMemories: async () => [],
    listMessages: async (_id: number, q?: { before?: number | null; limit?: number | null }) => {
      const older = stored.filter((m) => q?.before == null || m.id < q.before);
      const page = older.slice(-(q?.limit ?? 50));
      return { messages: page.slice().reverse(), next_before: older.length > page.length ? page[0].id : null };
    },
    sendMessage: (_id: number, content: string, s: TurnSink) => {
      stored.push(msg(stored.length + 1, { content, role: 'user' }));
      sink = s;
      return new Promise<void>((resolve) => (end = resolve));
    },
  }, PROJECT, { sessions: [SESSION] });
  const app = fake.app;
  const root = document.createElement('main');
  document.body.append(root);
  mountChat(app, root, () => {});
  return {
    app, root, stored, calls: fake.calls,
    token: (text: string) => sink({ type: 'token', text }),
    finish: (reply: string) => {
      stored.push(msg(stored.length + 1, { role: 'assistant', content: reply }));
      end();
    },
  };
}

const elements = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>('.messages .msg:not(.live)')];

describe('a long chat', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('sending and the end of the reply redraw only the messages concerned', async () => {
    const chat = longChat(120);
    await chat.app.chat.openSession(5, false);
    await sleep(10);
    const before = elements(chat.root);
    expect(before.length, 'the newest page is drawn').toBe(50);

    const sent = chat.app.chat.send('One more question');
    await sleep(10);
    // Earlier elements are the same nodes (but the last, which loses its Regenerate button).
    const sending = elements(chat.root);
    expect(sending.slice(0, 49).every((el, i) => el === before[i]), 'earlier messages keep their elements when sending').toBe(true);
    expect(sending.at(-1)?.textContent).toContain('One more question');
    const edit = sending[0].querySelector<HTMLButtonElement>('.idle-only');
    expect(edit?.disabled, "a user's message cannot be edited while a reply is written").toBe(true);
    chat.token('Hel');
    chat.token('lo');
    await sleep(30);
    expect(chat.root.querySelector('[data-testid=message-live]')?.textContent).toContain('Hello');
    expect(elements(chat.root).every((el, i) => el === sending[i]), 'a token touches only the reply being written').toBe(true);

    chat.finish('Hello');
    await sent;
    await sleep(10);
    const after = elements(chat.root);
    expect(after.slice(0, 49).every((el, i) => el === before[i + 1] || el === before[i]), 'the end of the reply keeps the earlier messages').toBe(true);
    expect(after.at(-1)?.textContent).toContain('Hello');
    expect(chat.root.querySelector('[data-testid=message-live]')).toBeNull();
    expect(edit?.disabled, 'editing is possible again once the reply ended').toBe(false);
    // Only the newest page was asked for again, not the whole chat.
    const pages = chat.calls.filter((c) => c.method === 'listMessages');
    expect(pages.at(-1)?.args[1]).toEqual({ limit: 50 });
  });

  it('keeps at most 200 message elements, however many are loaded', async () => {
    const chat = longChat(400);
    await chat.app.chat.openSession(5, false);
    for (let i = 0; i < 7; i++) await chat.app.chat.loadOlder();
    await sleep(10);
    expect(chat.app.chat.messages.length).toBe(400);
    const drawn = elements(chat.root);
    expect(drawn.length, 'the page holds a bounded window of messages').toBeLessThanOrEqual(200);
    expect(drawn.at(-1)?.dataset.messageId, 'the window stays on the newest messages').toBe('400');
    expect(chat.root.querySelector('[data-testid=older]')?.hasAttribute('hidden'), 'older messages are offered').toBe(false);

    // Further up: older ones are drawn (25 at a time), then the newest dropped, never more than 200.
    expect(drawn.length, 'what was drawn stays as it was while older pages load').toBe(50);
    const older = chat.root.querySelector<HTMLButtonElement>('[data-testid=older] button')!;
    for (let i = 0; i < 6; i++) older.click(), await sleep(5);
    let now = elements(chat.root);
    expect([now.length, now[0].dataset.messageId, now.at(-1)?.dataset.messageId]).toEqual([200, '201', '400']);
    older.click();
    await sleep(5);
    now = elements(chat.root);
    expect([now.length, now[0].dataset.messageId, now.at(-1)?.dataset.messageId], 'the newest are dropped from the page').toEqual([200, '176', '375']);
    for (let i = 0; i < 20; i++) older.click(), await sleep(5);
    now = elements(chat.root);
    expect(now[0].dataset.messageId, 'the very first message is reached').toBe('1');
    expect(now.length).toBeLessThanOrEqual(200);
    expect(chat.root.querySelector('[data-testid=older]')?.hasAttribute('hidden'), 'nothing older is offered at the top').toBe(true);

    // Sending from up there goes back to the end, drawing only the newest messages.
    void chat.app.chat.send('Back to the present');
    await sleep(10);
    now = elements(chat.root);
    expect(now.at(-1)?.textContent, 'the message sent is shown').toContain('Back to the present');
    expect(now.length, 'only the newest are drawn').toBeLessThanOrEqual(51);
    expect(chat.root.querySelector('[data-testid=message-live]'), 'with the reply being written').not.toBeNull();
  });
});

describe('a reply that failed', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('offers the server settings when the model server cannot be reached, and not for other failures', async () => {
    const chat = longChat(2);
    chat.stored.push(msg(3, { role: 'user' }), msg(4, { role: 'assistant', status: 'error', content: '', error: 'Nothing is listening at http://127.0.0.1:8080/v1' }));
    chat.stored.push(msg(5, { role: 'user' }), msg(6, { role: 'assistant', status: 'error', content: '', error: 'The model server failed' }));
    chat.app.chat.replyErrors.set(4, { code: 'model_server.unreachable', message: 'Nothing is listening at http://127.0.0.1:8080/v1' });
    chat.app.chat.replyErrors.set(6, { code: 'model_server.server_error', message: 'The model server failed' });
    await chat.app.chat.openSession(5, false);
    await sleep(10);
    const unreachable = chat.root.querySelector('[data-message-id="4"]');
    expect(unreachable?.querySelector('[data-testid=reply-server-settings]')?.textContent, 'a way to the settings').toBe('Model server settings');
    expect(chat.root.querySelector('[data-message-id="6"] [data-testid=reply-server-settings]'), 'a server error is not a settings problem').toBeNull();
    setLanguage('ko');
    chat.app.emit('chat');
    expect(chat.root.querySelector('[data-message-id="4"] [data-testid=reply-server-settings]')?.textContent).toBe('모델 서버 설정');
  });

  it('names the server that failed, in Korean too, where the sentence is Korean', async () => {
    const chat = longChat(2);
    const error = 'Laptop: Cannot reach the model server at http://192.168.1.20:1234/v1: connection refused';
    chat.stored.push(msg(3, { role: 'user' }), msg(4, { role: 'assistant', status: 'error', content: '', error, error_code: 'model_server.unreachable' }));
    chat.app.servers.connections = [connection(), connection({ id: 2, name: 'Laptop', base_url: 'http://192.168.1.20:1234/v1', is_default: false })];
    await chat.app.chat.openSession(5, false);
    await sleep(10);
    const text = () => chat.root.querySelector('[data-message-id="4"] .msg-error span')?.textContent;
    expect(text(), 'with several servers, which one failed is half the news').toBe(error);
    setLanguage('ko');
    chat.app.emit('chat');
    expect(text(), 'the server’s name in front of the Korean sentence, its address after').toBe('Laptop: 모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://192.168.1.20:1234/v1)');
  });
});
