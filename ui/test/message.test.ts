import { describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Message } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { entryNode, groupReplies, messageNode } from '../src/views/message';
import { fakeBackend, memory } from './fakeBackend';
import { message } from './fixtures';

const CTX = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };

describe('a stored reply', () => {
  it('shows a call of a tool it does not know by its name, with its arguments when opened', () => {
    setLanguage('en');
    const m = message({
      id: 7, role: 'assistant', content: 'Found it.', model: 'm',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_files', arguments: '{"query":"calendar"}' } }],
    });
    const app = new App(fakeBackend({}).backend);
    const node = messageNode(app, m, CTX);
    const chip = node.querySelector<HTMLElement>('[data-testid=tool-chip]')!;
    expect(chip.querySelector('.tool-name')?.textContent).toBe('search_files');
    expect(chip.querySelector('.tool-args')?.textContent).toBe('{\n  "query": "calendar"\n}');
  });
});

/** A reply that called `remember` once, as the server stores it: the call, its result, the answer. */
function rememberTurn(): Message[] {
  return [
    message({ id: 10, role: 'user', content: 'Answer me in Korean from now on.' }),
    message({
      id: 11, role: 'assistant', content: '', model: 'm', parent_id: 10, prompt_tokens: 400, completion_tokens: 12, ttft_ms: 90, versions: [11, 20],
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'remember', arguments: '{"fact":"Prefers answers in Korean."}' } }],
    }),
    message({
      id: 12, role: 'tool', parent_id: 11, tool_call_id: 'call_1', tool_name: 'remember',
      content: 'Proposed fact #5: "Prefers answers in Korean.". The user reviews it before it is kept; do not repeat it in your answer.',
    }),
    message({ id: 13, role: 'assistant', content: 'Noted — I will keep that in mind.', model: 'm', parent_id: 12, prompt_tokens: 450, completion_tokens: 9, cached_tokens: 384, ttft_ms: 40 }),
  ];
}

describe('a reply that called tools', () => {
  it('is one entry of the chat: its rounds and the tool results join the reply they belong to', () => {
    const entries = groupReplies(rememberTurn());
    expect(entries.map((e) => [e.id, e.parts.map((p) => p.id)]), 'one "Maru" reply, not three').toEqual([[10, [10]], [11, [11, 12, 13]]]);
    // Two plain replies in a row stay apart (nothing joins them).
    const plain = groupReplies([message({ id: 1, role: 'assistant', content: 'a' }), message({ id: 2, role: 'assistant', content: 'b' })]);
    expect(plain.map((e) => e.id)).toEqual([1, 2]);
  });

  it('shows one chip per call, the answer, and the figures of the whole reply', () => {
    setLanguage('en');
    const app = new App(fakeBackend({}).backend);
    const [, reply] = groupReplies(rememberTurn());
    const node = entryNode(app, reply, CTX);
    expect(node.querySelectorAll('.msg-head').length, 'one reply header').toBe(1);
    const chips = node.querySelectorAll<HTMLElement>('[data-testid=tool-chip]');
    expect(chips.length).toBe(1);
    const chip = chips[0];
    expect(chip.querySelector('summary')?.textContent, 'tool, short arguments, status').toBe('RememberPrefers answers in Korean.proposed');
    expect(node.querySelector('.md')?.textContent?.trim()).toBe('Noted — I will keep that in mind.');
    const figures = node.querySelector('[data-testid=figures]')?.textContent ?? '';
    expect(figures, 'the tokens written in both rounds').toContain('21 out');
    expect(figures, "the last round's prompt holds the whole turn").toContain('450 prompt');
    expect(node.querySelectorAll('[data-testid=figures]').length).toBe(1);
    expect(node.dataset.messageIds).toBe('11 12 13');
    expect(node.querySelector('[data-testid=versions]'), "the reply's versions are its first round's").not.toBeNull();
  });

  it('names the server that wrote a reply on its model, in English and Korean', () => {
    const app = new App(fakeBackend({}).backend);
    const [reply] = groupReplies([message({ id: 5, role: 'assistant', content: 'Hi.', model: 'llama-3.1-8b', server: 'Laptop', completion_tokens: 3 })]);
    for (const [lang, words] of [['en', 'Written by the server Laptop'], ['ko', 'Laptop 서버가 작성함']] as const) {
      setLanguage(lang);
      const model = [...entryNode(app, reply, CTX).querySelectorAll<HTMLElement>('[data-testid=figures] .fig')].find((f) => f.textContent === 'llama-3.1-8b');
      expect(model?.title, 'several servers can serve one model: the reply says which one wrote it').toBe(words);
    }
    setLanguage('en');
  });

  it("opened, a proposal's chip says what was proposed (not the words meant for the model) and opens its review", async () => {
    setLanguage('en');
    const { backend } = fakeBackend({ listMemories: async (status) => (status === 'pending' ? [memory({ id: 5, status: 'pending', content: 'Prefers answers in Korean.' })] : []) });
    const app = new App(backend);
    const node = entryNode(app, groupReplies(rememberTurn())[1], CTX);
    const result = node.querySelector('[data-testid=tool-result]')!;
    expect(result.textContent).not.toContain('do not repeat');
    expect(result.querySelector('[data-testid=tool-fact]')?.textContent).toBe('Prefers answers in Korean.');
    expect(result.textContent).toContain('It is kept only once you accept it in Memory.');
    const open = result.querySelector<HTMLElement>('[data-testid=tool-open-memory]')!;
    expect(open.textContent).toBe('Review in Memory');
    open.click();
    expect(app.panels.panel, 'the memory panel opens').toBe('memory');
    expect(app.memory.focusMemoryId, 'at the proposal').toBe(5);
  });

  it('a search shows what it found: the passages and their files', () => {
    setLanguage('en');
    const app = new App(fakeBackend({}).backend);
    const node = entryNode(app, {
      id: 1, parts: [
        message({ id: 1, role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'search_attachment', arguments: '{"query":"trip"}' } }] }),
        message({ id: 2, role: 'tool', tool_call_id: 'c', tool_name: 'search_attachment', content: '[notes.md, lines 3-5]\nThe trip is in May.\n\n[plan.pdf, page 2, lines 1-2]\nHotel.\n' }),
        message({ id: 3, role: 'assistant', content: 'In May.' }),
      ],
    }, CTX);
    const chip = node.querySelector('[data-testid=tool-chip]')!;
    expect(chip.querySelector('[data-testid=tool-short]')?.textContent).toBe('“trip”');
    expect(chip.querySelector('[data-testid=tool-status]')?.textContent).toBe('2 found');
    expect(chip.querySelector('[data-testid=tool-result] .tool-line')?.textContent).toBe('From notes.md, plan.pdf: 2 passages');
    expect([...chip.querySelectorAll('.passage-source')].map((e) => e.textContent)).toEqual(['notes.md · lines 3–5', 'plan.pdf · page 2 · lines 1–2']);
  });

  it('a stored failed call says it failed and why', () => {
    setLanguage('ko');
    const app = new App(fakeBackend({}).backend);
    const node = entryNode(app, {
      id: 1, parts: [
        message({ id: 1, role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'remember', arguments: '{}' } }] }),
        message({ id: 2, role: 'tool', tool_call_id: 'c', tool_name: 'remember', content: 'error: `fact` is required' }),
      ],
    }, CTX);
    const chip = node.querySelector<HTMLElement>('[data-testid=tool-chip]')!;
    expect(chip.dataset.outcome).toBe('error');
    expect(chip.querySelector('[data-testid=tool-status]')?.textContent).toBe('실패');
    expect(chip.querySelector('.tool-error-text')?.textContent).toBe('`fact` is required');
    setLanguage('en');
  });
});

describe('a failed reply', () => {
  const failed = (id: number, error: string, error_code: string | null = null): Message =>
    message({ id, role: 'assistant', status: 'error', error, error_code });
  const ctx = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };

  it('shows a model-server failure in Korean when its code came with the turn, and the stored text otherwise', () => {
    setLanguage('ko');
    const app = new App(fakeBackend({}).backend);
    const text = 'cannot reach the model server at http://127.0.0.1:8080';
    app.chat.replyErrors.set(8, { code: 'model_server.unreachable', message: text });
    expect(messageNode(app, failed(8, text), ctx).querySelector('.msg-error')?.textContent)
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080)');
    expect(messageNode(app, failed(9, text), ctx).querySelector('.msg-error')?.textContent).toBe(text);
    setLanguage('en');
    expect(messageNode(app, failed(8, text), ctx).querySelector('.msg-error')?.textContent).toBe(text);
  });

  it('shows a stored failure in Korean by its stored code, after a reload too', () => {
    setLanguage('ko');
    const app = new App(fakeBackend({}).backend);
    const text = 'cannot reach the model server at http://127.0.0.1:8080';
    expect(messageNode(app, failed(10, text, 'model_server.unreachable'), ctx).querySelector('.msg-error')?.textContent,
      'a fresh window knows no live code: the stored one must be enough')
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080)');
    setLanguage('en');
  });
});
