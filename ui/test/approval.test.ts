// A call of one of the user's tool servers waits for the user: the reply being written shows a
// card with the server, the tool and the arguments, and Allow once / Always allow this tool /
// Deny. The buttons are disabled while the answer goes; however it was answered (here, in another
// window, or not at all), the card then says how; an answer that came too late says it was
// answered elsewhere. A window opened (or reloaded) while the call waits shows the card too. The
// call's chip names the server and the tool, and says how it went.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../src/app';
import { ApiError, type Backend, type TurnSink } from '../src/backend/backend';
import type { Answered, Message, Project, Session, TurnEvent } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { betweenRounds } from '../src/state/chat';
import { mountChat } from '../src/views/chat';
import { entryNode, groupReplies } from '../src/views/message';
import { appInProject } from './fakeBackend';
import { message } from './fixtures';
import { render } from './templates';

/** What the server tells the model of a call of mini's echo that did not run (prompts/tools/messages.md). */
const said = (say: string) => `error: ${render('tools/messages', { say, server: 'mini', tool: 'echo' }).trim()}`;

const PROJECT: Project = { id: 2, name: 'Temp', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: 'Echo', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const ARGS = '{"message":"hello there"}';
/** A tool whose server says nothing of what it does. */
const NO_HINTS = { read_only: null, destructive: null, open_world: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const msg = (over: Partial<Message>) => message({ session_id: 5, ...over });

/** The call as a turn streams it: the model's call, then the question to the user. */
const CALL: TurnEvent[] = [
  { type: 'tool_call', id: 'call_1', name: 'mini__echo', arguments: ARGS },
  { type: 'approval_needed', approval: 'ap-1', id: 'call_1', server: 'mini', tool: 'echo', arguments: ARGS, hints: NO_HINTS },
];

/** An answer the test lets through when it wants (`settle`), to see the card while it goes. */
function held<T>() {
  let settle: (v: T | Error) => void = () => {};
  const promise = new Promise<T>((resolve, reject) => (settle = (v) => (v instanceof Error ? reject(v) : resolve(v))));
  return { promise, settle };
}

/** A chat open on a fake backend whose turn the test drives (`sink`), with the chat view mounted. */
async function chatWith(methods: Partial<Backend>, stored: Message[] = [msg({ id: 1, content: 'Echo it' })]) {
  let sink: TurnSink = () => {};
  let end: () => void = () => {};
  const fake = appInProject({
    getSession: async () => SESSION,
    listMessages: async () => ({ messages: stored.slice().reverse(), next_before: null }),
    listAttachments: async () => [],
    listMemories: async () => [],
    listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
    sendMessage: (_id: number, _content: string, s: TurnSink) => {
      sink = s;
      return new Promise<void>((r) => (end = r));
    },
    ...methods,
  }, PROJECT, { sessions: [SESSION] });
  const root = document.createElement('main');
  document.body.append(root);
  mountChat(fake.app, root, () => {});
  await fake.app.chat.openSession(5, false);
  return {
    ...fake, root,
    send: async () => {
      void fake.app.chat.send('Echo it');
      await sleep(5);
    },
    emit: async (...events: TurnEvent[]) => {
      for (const ev of events) sink(ev);
      await sleep(30);
    },
    end: () => end(),
    setSink: (s: TurnSink) => (sink = s),
  };
}

const card = (root: ParentNode) => root.querySelector<HTMLElement>('[data-testid=approval]');
const decided = (root: ParentNode) => root.querySelector<HTMLElement>('[data-testid=approval-decided]');
const buttons = (root: ParentNode) => [...(card(root)?.querySelectorAll<HTMLButtonElement>('.approval-actions button') ?? [])];
const chip = (root: ParentNode) => root.querySelector<HTMLElement>('[data-testid=message-live] [data-testid=tool-chip]')!;
const answers = (calls: { method: string; args: unknown[] }[]) =>
  calls.filter((c) => c.method === 'approveToolCall' || c.method === 'denyToolCall').map((c) => [c.method, ...c.args]);

describe('a tool server’s call waiting for the user', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });
  afterEach(() => document.body.replaceChildren());

  it('shows a card with the server, the tool and the arguments, and Allow once runs it: disabled while it goes, then said', async () => {
    const answer = held<Answered>();
    const { root, calls, send, emit } = await chatWith({ approveToolCall: () => answer.promise });
    await send();
    await emit(...CALL);
    const c = card(root)!;
    expect(c, 'the question is in the reply being written').not.toBeNull();
    expect(c.closest('[data-testid=message-live]')).not.toBeNull();
    expect(c.querySelector('[data-testid=approval-title]')?.textContent).toBe('Allow mini to run echo?');
    expect(c.querySelector('[data-testid=approval-args]')?.textContent, 'the arguments as readable JSON').toBe('{\n  "message": "hello there"\n}');
    expect(buttons(root).map((b) => b.textContent)).toEqual(['Allow once', 'Always allow this tool', 'Deny']);
    expect(chip(root).querySelector('.tool-name')?.textContent, 'the chip names the server and the tool').toBe('mini · echo');
    expect(chip(root).querySelector('[data-testid=tool-short]')?.textContent).toBe('hello there');
    expect(chip(root).querySelector('[data-testid=tool-status]')?.textContent).toBe('waiting for you');
    expect(root.querySelector('[data-testid=live-status]')?.textContent, 'the reply says it waits for the user, not that it is writing').toBe('Waiting for you');

    buttons(root)[0].click();
    await sleep(30);
    expect(answers(calls)).toEqual([['approveToolCall', 'ap-1', false]]);
    expect(buttons(root).every((b) => b.disabled), 'no second answer while the first goes').toBe(true);
    buttons(root)[1].click();
    expect(answers(calls).length, 'a disabled button asks nothing').toBe(1);

    answer.settle({ approval: 'ap-1', decision: 'once', session_id: 5 });
    await sleep(30);
    expect(card(root), 'the question is gone').toBeNull();
    expect(decided(root)?.textContent).toContain('Allowed once');
    expect(root.querySelector('[data-testid=live-status]')?.textContent).toBe('Writing…');
    await emit({ type: 'approval_decided', approval: 'ap-1', decision: 'once' }, { type: 'tool_result', id: 'call_1', name: 'mini__echo', content: 'Echo: hello there', is_error: false, outcome: { did: { kind: 'text' }, kept: null } });
    expect(decided(root)?.textContent).toContain('Allowed once');
    expect(chip(root).querySelector('[data-testid=tool-status]')?.textContent).toBe('done');
    expect(chip(root).querySelector('[data-testid=tool-result]')?.textContent, 'opened, the chip shows what the tool said').toContain('Echo: hello there');
  });

  it('Always allow this tool asks for always; Deny denies; each card answers its own call', async () => {
    const { root, calls, send, emit } = await chatWith({
      approveToolCall: async (approval: string) => ({ approval, decision: 'always', session_id: 5 }),
      denyToolCall: async (approval: string) => ({ approval, decision: 'denied', session_id: 5 }),
    });
    await send();
    await emit(...CALL);
    buttons(root)[1].click();
    await sleep(30);
    expect(decided(root)?.textContent).toContain('from now on this tool runs without asking');
    await emit(
      { type: 'approval_decided', approval: 'ap-1', decision: 'always' },
      { type: 'tool_result', id: 'call_1', name: 'mini__echo', content: 'Echo: hello there', is_error: false, outcome: { did: { kind: 'text' }, kept: null } },
      { type: 'tool_call', id: 'call_2', name: 'mini__echo', arguments: '{"message":"again"}' },
      { type: 'approval_needed', approval: 'ap-2', id: 'call_2', server: 'mini', tool: 'echo', arguments: '{"message":"again"}', hints: NO_HINTS },
    );
    expect(card(root)?.dataset.approval, 'the second call asks on its own').toBe('ap-2');
    buttons(root)[2].click();
    await sleep(30);
    expect(answers(calls)).toEqual([['approveToolCall', 'ap-1', true], ['denyToolCall', 'ap-2']]);
    const words = [...root.querySelectorAll('[data-testid=approval-decided]')].map((d) => d.querySelector('.approval-decision')?.textContent);
    expect(words).toEqual(['Allowed, and from now on this tool runs without asking', 'Denied: the model is told it did not run']);
    // The turn tells the model it was denied, and the chip says so in the user's words.
    await emit({ type: 'approval_decided', approval: 'ap-2', decision: 'denied' }, {
      type: 'tool_result', id: 'call_2', name: 'mini__echo', is_error: true, outcome: { did: { kind: 'denied' }, kept: null },
      content: said('call_denied'),
    });
    const second = root.querySelectorAll<HTMLElement>('[data-testid=message-live] [data-testid=tool-chip]')[1];
    expect(second.querySelector('[data-testid=tool-status]')?.textContent).toBe('not allowed');
    expect(second.querySelector('[data-testid=tool-result]')?.textContent, 'not the words meant for the model').not.toContain('Do not call it again');
  });

  it('answered in another window: the card turns into how it was answered, without a click here', async () => {
    const { root, calls, send, emit } = await chatWith({});
    await send();
    await emit(...CALL);
    expect(card(root)).not.toBeNull();
    await emit({ type: 'approval_decided', approval: 'ap-1', decision: 'denied' });
    expect(card(root), 'no question left to answer').toBeNull();
    expect(decided(root)?.textContent).toContain('Denied');
    expect(answers(calls), 'this window asked nothing').toEqual([]);
  });

  it('an answer too late (not_pending) says it was answered elsewhere; another failure leaves the buttons to try again', async () => {
    let fail: Error = new ApiError('internal', 'something broke', 500);
    const { root, send, emit } = await chatWith({
      approveToolCall: async () => {
        throw fail;
      },
    });
    await send();
    await emit(...CALL);
    buttons(root)[0].click();
    await sleep(30);
    expect(card(root), 'still asking').not.toBeNull();
    expect(buttons(root).every((b) => !b.disabled), 'the user can answer again').toBe(true);
    fail = new ApiError('not_pending', 'this tool call is no longer waiting for an answer', 409);
    buttons(root)[0].click();
    await sleep(30);
    expect(card(root)).toBeNull();
    expect(decided(root)?.textContent).toContain('Already answered in another window');
    // The event that follows says how it was answered.
    await emit({ type: 'approval_decided', approval: 'ap-1', decision: 'once' });
    expect(decided(root)?.textContent).toContain('Allowed once');
  });

  it('Stop ends the wait: the card says the call did not run', async () => {
    const { root, send, emit } = await chatWith({});
    await send();
    await emit(...CALL, { type: 'approval_decided', approval: 'ap-1', decision: 'timed_out' });
    expect(decided(root)?.textContent).toContain('it did not run');
  });

  it('the server removed (or turned off) while the call waits: the card says so, and the chip shows what the model was told', async () => {
    const { root, send, emit } = await chatWith({});
    await send();
    await emit(...CALL, { type: 'approval_decided', approval: 'ap-1', decision: 'server_stopped' }, {
      type: 'tool_result', id: 'call_1', name: 'mini__echo', is_error: true, content: said('server_removed'), outcome: { did: { kind: 'server_removed' }, kept: null },
    });
    expect(card(root), 'no question left to answer').toBeNull();
    expect(decided(root)?.textContent).toContain('The tool server was removed or turned off: it did not run');
    expect(chip(root).querySelector('[data-testid=tool-result]')?.textContent).toContain('was removed');
  });

  it('says what the tool’s server says it does, and nothing where it says nothing', async () => {
    const { root, send, emit } = await chatWith({});
    await send();
    await emit(CALL[0], { ...CALL[1], hints: { read_only: false, destructive: true, open_world: true } } as TurnEvent);
    const hints = card(root)?.querySelector<HTMLElement>('[data-testid=tool-hints]');
    expect([...hints?.children ?? []].map((b) => b.textContent), 'a tool that erases, and reaches the web, says so before the user answers')
      .toEqual(['May delete or overwrite', 'Reaches beyond this computer']);
    expect(hints?.title, 'whose word it is').toBe('As its server describes it');
    document.body.replaceChildren();
    setLanguage('ko');
    const korean = await chatWith({});
    await korean.send();
    await korean.emit(CALL[0], { ...CALL[1], hints: { read_only: true, destructive: null, open_world: false } } as TurnEvent);
    expect([...card(korean.root)?.querySelector('[data-testid=tool-hints]')?.children ?? []].map((b) => b.textContent)).toEqual(['읽기만 함']);
    document.body.replaceChildren();
    setLanguage('en');
    const plain = await chatWith({});
    await plain.send();
    await plain.emit(...CALL);
    expect(card(plain.root)?.querySelector('[data-testid=tool-hints]'), 'a server that says nothing gets no badge').toBeNull();
  });

  it('in Korean', async () => {
    setLanguage('ko');
    const { root, send, emit } = await chatWith({});
    await send();
    await emit(...CALL);
    expect(card(root)?.querySelector('[data-testid=approval-title]')?.textContent).toBe('mini의 echo 도구를 실행할까요?');
    expect(buttons(root).map((b) => b.textContent)).toEqual(['이번만 허용', '이 도구는 항상 허용', '거부']);
    expect(chip(root).querySelector('[data-testid=tool-status]')?.textContent).toBe('허용 대기 중');
  });
});

describe('a window opened while a call waits (a reload, a second tab)', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  /** What is stored while the call waits: the message and the model's call; no result, no next round yet. */
  const waiting = [
    msg({ id: 1, content: 'Echo it' }),
    msg({ id: 2, role: 'assistant', content: '', parent_id: 1, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'mini__echo', arguments: ARGS } }] }),
  ];

  it('follows the turn: the replayed question shows, and answering it works', async () => {
    let replay: TurnSink = () => {};
    const { root, calls, app } = await chatWith({
      attach: (_id: number, sink: TurnSink) => {
        replay = sink;
        for (const ev of CALL) sink(ev);
        return new Promise<void>(() => {});
      },
      approveToolCall: async (approval: string) => ({ approval, decision: 'once', session_id: 5 }),
    }, waiting);
    await sleep(30);
    expect(calls.filter((c) => c.method === 'attach').map((c) => c.args[0]), 'the chat ends between two rounds: its turn is followed').toEqual([5]);
    expect(app.chat.shownMessages().map((m) => m.id), 'the stored call is the live reply’s, not shown twice').toEqual([1]);
    expect(card(root)?.querySelector('[data-testid=approval-title]')?.textContent).toBe('Allow mini to run echo?');
    buttons(root)[0].click();
    await sleep(30);
    expect(answers(calls)).toEqual([['approveToolCall', 'ap-1', false]]);
    replay({ type: 'approval_decided', approval: 'ap-1', decision: 'once' });
    await sleep(30);
    expect(decided(root)?.textContent).toContain('Allowed once');
  });

  it('a question answered before the window opened shows as answered', async () => {
    const { root } = await chatWith({
      attach: (_id: number, sink: TurnSink) => {
        for (const ev of [...CALL, { type: 'approval_decided', approval: 'ap-1', decision: 'always' } as TurnEvent]) sink(ev);
        return new Promise<void>(() => {});
      },
    }, waiting);
    await sleep(30);
    expect(card(root)).toBeNull();
    expect(decided(root)?.textContent).toContain('runs without asking');
  });

  it('tells a chat between rounds from one whose reply is done', () => {
    const call = (id: number, ids: string[]) => msg({ id, role: 'assistant', tool_calls: ids.map((c) => ({ id: c, type: 'function', function: { name: 'mini__echo', arguments: '{}' } })) });
    const result = (id: number, callId: string) => msg({ id, role: 'tool', tool_call_id: callId, tool_name: 'mini__echo', content: 'Echo' });
    expect(betweenRounds([msg({ id: 1 }), call(2, ['a'])]), 'the call waits (for the user, or for the tool)').toBe(true);
    expect(betweenRounds([msg({ id: 1 }), call(2, ['a', 'b']), result(3, 'a')]), 'one of two calls answered').toBe(true);
    expect(betweenRounds([msg({ id: 1 }), call(2, ['a']), result(3, 'a')]), 'all answered, the next round about to begin').toBe(true);
    expect(betweenRounds([msg({ id: 1 }), call(2, ['a']), result(3, 'a'), msg({ id: 4, role: 'assistant', content: 'Done.' })])).toBe(false);
    expect(betweenRounds([msg({ id: 1 }), msg({ id: 2, role: 'assistant', content: 'Hi' })])).toBe(false);
    expect(betweenRounds([msg({ id: 1 }), { ...call(2, ['a']), status: 'stopped' }]), 'a stopped reply is over').toBe(false);
  });
});

describe('a stored reply that called a tool server', () => {
  it('names the server and the tool, and says when a call was not allowed or not answered', () => {
    setLanguage('en');
    const parts = [
      msg({ id: 1, content: 'Echo it' }),
      msg({ id: 2, role: 'assistant', tool_calls: [
        { id: 'a', type: 'function', function: { name: 'mini__echo', arguments: '{"message":"one"}' } },
        { id: 'b', type: 'function', function: { name: 'mini__echo', arguments: '{"message":"two"}' } },
        { id: 'c', type: 'function', function: { name: 'mini__echo', arguments: '{"message":"three"}' } },
      ] }),
      msg({ id: 3, role: 'tool', tool_call_id: 'a', tool_name: 'mini__echo', content: 'Echo: one' }),
      msg({ id: 4, role: 'tool', tool_call_id: 'b', tool_name: 'mini__echo', content: said('call_denied') }),
      msg({ id: 5, role: 'tool', tool_call_id: 'c', tool_name: 'mini__echo', content: said('approval_timed_out') }),
      msg({ id: 6, role: 'assistant', content: 'Said it once.' }),
    ];
    const [, reply] = groupReplies(parts);
    const node = entryNode({ replyErrors: new Map(), chatFiles: () => ({ own: [], project: [] }) } as unknown as App, reply, {
      regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {},
    });
    const chips = [...node.querySelectorAll<HTMLElement>('[data-testid=tool-chip]')];
    expect(chips.map((c) => c.querySelector('summary')?.textContent)).toEqual([
      'mini · echoonedone', 'mini · echotwonot allowed', 'mini · echothreedid not run',
    ]);
    expect(chips[0].querySelector('[data-testid=tool-result]')?.textContent).toBe('Echo: one');
    expect(chips[1].querySelector('[data-testid=tool-result]')?.textContent).toBe('You did not allow this call; the model was told and went on without it.');
    expect(chips[2].querySelector('[data-testid=tool-result]')?.textContent).toContain('No one allowed this call in time');
  });
});
