import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type Backend, type TurnSink } from '../src/backend/backend';
import type { Message, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { appInProject } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 2, name: 'Temp', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: '', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

function msg(over: Partial<Message>): Message {
  return message({ session_id: 5, content: 'hi', ...over });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A turn the test drives: events are pushed with `emit`, and `end` finishes it. */
function controlledTurn() {
  let sink: TurnSink = () => {};
  let end: () => void = () => {};
  let ready: () => void = () => {};
  const started = new Promise<void>((r) => (ready = r));
  return {
    run: (s: TurnSink) => {
      sink = s;
      ready();
      return new Promise<void>((resolve) => (end = resolve));
    },
    started,
    emit: (text: string) => sink({ type: 'token', text }),
    end: () => {
      sink({ type: 'done', message: msg({ id: 2, role: 'assistant', content: 'Hello there' }) } as never);
      end();
    },
  };
}

const appWith = (methods: Partial<Backend>) => appInProject(methods, PROJECT);

describe('a reply still being written', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('opened from elsewhere: attaches, shows the live reply instead of its saved copy, stops, and reloads at the end', async () => {
    const turn = controlledTurn();
    let stored: Message[] = [msg({ id: 1 }), msg({ id: 2, role: 'assistant', content: 'Hel', status: 'streaming' })];
    const { app, calls } = appWith({
      getSession: async () => ({ ...SESSION, title: 'hi' }),
      listMessages: async () => ({ messages: stored.slice().reverse(), next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [{ ...SESSION, title: 'hi' }], next_cursor: null }),
      listMemories: async () => [],
      attach: (_id: number, sink: TurnSink) => turn.run(sink),
      stop: async () => ({ stopped: true }) as never,
    });
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});

    await app.chat.openSession(5, false);
    await turn.started;
    expect(calls.find((c) => c.method === 'attach')?.args[0]).toBe(5);
    turn.emit('Hel');
    turn.emit('lo');
    expect(app.chat.currentLive()?.text).toBe('Hello');
    // The saved copy marked "Writing…" is not shown next to the live reply.
    expect(app.chat.shownMessages().map((m) => m.id)).toEqual([1]);
    expect(root.querySelectorAll('[data-testid=message-assistant]').length).toBe(0);
    expect(root.querySelectorAll('[data-testid=message-live]').length).toBe(1);
    // Stop is offered and asks the server.
    const stopBtn = root.querySelector<HTMLButtonElement>('[data-testid=stop]');
    expect(stopBtn).not.toBeNull();
    await app.chat.stop();
    expect(calls.some((c) => c.method === 'stop' && c.args[0] === 5)).toBe(true);

    const listed = calls.filter((c) => c.method === 'listMessages').length;
    stored = [msg({ id: 1 }), msg({ id: 2, role: 'assistant', content: 'Hello there', status: 'stopped' })];
    turn.end();
    await sleep(20);
    expect(calls.filter((c) => c.method === 'listMessages').length).toBe(listed + 1);
    expect(app.chat.currentLive()).toBeUndefined();
    expect(app.chat.shownMessages().map((m) => m.status)).toEqual(['complete', 'stopped']);
    expect(root.querySelectorAll('[data-testid=message-assistant]').length).toBe(1);
  });

  it('ended meanwhile (no_turn_running): loads the messages again instead of following', async () => {
    let stored: Message[] = [msg({ id: 1 }), msg({ id: 2, role: 'assistant', status: 'streaming' })];
    const { app, calls } = appWith({
      getSession: async () => SESSION,
      listMessages: async () => {
        const page = { messages: stored.slice().reverse(), next_before: null };
        stored = [msg({ id: 1 }), msg({ id: 2, role: 'assistant', content: 'done' })];
        return page;
      },
      listAttachments: async () => [],
      attach: async () => {
        throw new ApiError('no_turn_running', 'no reply is being written in this chat', 409);
      },
    });
    await app.chat.openSession(5, false);
    await sleep(20);
    expect(calls.filter((c) => c.method === 'attach').length).toBe(1);
    expect(calls.filter((c) => c.method === 'listMessages').length).toBe(2);
    expect(app.chat.currentLive()).toBeUndefined();
    expect(app.chat.messages.at(-1)?.status).toBe('complete');
  });

  it('sent here, then the chat left and opened again: one reply (the live one), and the title and count refreshed', async () => {
    const turn = controlledTurn();
    let title = '';
    let count = 0;
    const other: Session = { ...SESSION, id: 6, title: 'Other' };
    const { app, calls } = appWith({
      createSession: async () => {
        count = 1;
        return SESSION;
      },
      listProjects: async () => [{ ...PROJECT, session_count: count }],
      getSession: async (id: number) => (id === 6 ? other : { ...SESSION, title }),
      listAttachments: async () => [],
      listMemories: async () => [],
      listSessions: async () => ({ sessions: [{ ...SESSION, title }], next_cursor: null }),
      listMessages: async (id: number) => ({
        messages: id === 6 ? [] : [msg({ id: 2, role: 'assistant', content: 'Hel', status: 'streaming' }), msg({ id: 1, content: 'Plan a trip' })],
        next_before: null,
      }),
      sendMessage: (_id: number, _content: string, sink: TurnSink) => {
        title = 'Plan a trip';
        return turn.run(sink);
      },
    });
    const sent = app.chat.send('Plan a trip');
    await turn.started;
    await sleep(10);
    // Creating the chat asked for the projects again: Temp counts it.
    expect(app.sessions.entry(2)?.project.session_count).toBe(1);
    turn.emit('Hel');
    await sleep(10);
    // The first message is stored: the sidebar shows the chat's title, not "New chat".
    expect(app.sessions.findSession(5)?.title).toBe('Plan a trip');

    await app.chat.openSession(6, false);
    await app.chat.openSession(5, false);
    await sleep(10);
    // Still the same turn: not attached to again, and its saved copy is hidden.
    expect(calls.some((c) => c.method === 'attach')).toBe(false);
    expect(app.chat.shownMessages().map((m) => m.id)).toEqual([1]);
    expect(app.chat.currentLive()?.text).toBe('Hel');
    turn.end();
    await sent;
  });

  it('refused after its first words (nothing stored): the words go, the message is not shown as sent, and its text is back in the box', async () => {
    const { app } = appWith({
      getSession: async () => ({ ...SESSION, title: 'hi' }),
      listMessages: async () => ({ messages: [msg({ id: 2, role: 'assistant', content: 'first answer' }), msg({ id: 1, content: 'first question' })], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [{ ...SESSION, title: 'hi' }], next_cursor: null }),
      listMemories: async () => [],
      // What the client makes of a stream that ends in an `error` with `nothing_stored`.
      sendMessage: async (_id: number, _content: string, sink: TurnSink) => {
        sink({ type: 'token', text: 'must ' });
        await sleep(5);
        throw new ApiError('internal', 'something went wrong inside Maru; the log file in the data folder has the details');
      },
    });
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});
    await app.chat.openSession(5, false);
    const area = root.querySelector<HTMLTextAreaElement>('textarea')!;
    area.value = 'second question';
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await sleep(30);
    expect(area.value, 'the person still has the message, to send again').toBe('second question');
    expect(app.chat.shownMessages().map((m) => m.content), 'the chat shows what it holds: not the refused message').toEqual(['first question', 'first answer']);
    expect(app.chat.currentLive(), 'no reply is shown as being written').toBeUndefined();
    const toasts = [...document.querySelectorAll('[data-testid=toast]')].map((t) => t.textContent);
    expect(toasts.some((t) => t?.includes('went wrong')), `the error is told: ${toasts.join(' | ')}`).toBe(true);
  });
});
