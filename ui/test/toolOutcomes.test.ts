// A tool call's chip is drawn from what the server stored the call did (`tool_outcome`), never from
// the text the model read: that text comes from prompts/ templates the user may rewrite. Here every
// stored text says something else entirely (another language, or the words of another outcome), and
// each chip still says what happened, in English and in Korean.

import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ToolDid, ToolOutcome } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { toolOutcome } from '../src/lib/tools';
import { entryNode } from '../src/views/message';
import { fakeBackend } from './fakeBackend';
import { message } from './fixtures';

const CTX = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };

/** Words a rewritten template might say, or that the old text reader would take for another outcome. */
const MISLEADING = [
  'Vorschlag Nummer 5 liegt vor.',
  'No saved fact matches "anything".',
  'error: The user did not allow this call of echo.',
  '[This output is long (9 lines, about 3 tokens), so only its first 1 lines are shown.]\nProposed fact #99: "Wrong.". The user reviews it before it is kept',
];

/** The chip of one stored call of `tool` whose result reads `content` and did `did`. */
function chip(tool: string, did: ToolDid, content: string, kept: ToolOutcome['kept'] = null): HTMLElement {
  const app = new App(fakeBackend({}).backend);
  const node = entryNode(app, {
    id: 1, parts: [
      message({ id: 1, role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: tool, arguments: '{"query":"x"}' } }] }),
      message({ id: 2, role: 'tool', tool_call_id: 'c', tool_name: tool, content, tool_outcome: { did, kept } }),
      message({ id: 3, role: 'assistant', content: 'Done.' }),
    ],
  }, CTX);
  return node.querySelector<HTMLElement>('[data-testid=tool-chip]')!;
}

const status = (c: HTMLElement) => c.querySelector('[data-testid=tool-status]')?.textContent;
const body = (c: HTMLElement) => c.querySelector('[data-testid=tool-result]')?.textContent ?? '';

/** Each kind the server stores, the tool that makes it, and the chip's status in English and Korean. */
const CASES: [string, ToolDid, string, string][] = [
  ['remember', { kind: 'proposed', id: 5, fact: 'Prefers tea.' }, 'proposed', '제안함'],
  ['remember', { kind: 'saved', id: 5, fact: 'Prefers tea.' }, 'saved', '저장함'],
  ['remember', { kind: 'merged', id: 5, fact: 'Prefers green tea.', pending: false }, 'already known', '이미 있음'],
  ['remember', { kind: 'change_proposed', id: 5, was: 'Prefers tea.', fact: 'Prefers green tea.' }, 'change proposed', '변경 제안함'],
  ['update_memory', { kind: 'updated', id: 5, fact: 'Prefers coffee.' }, 'updated', '고침'],
  ['forget', { kind: 'forgotten', id: 5 }, 'forgotten', '잊음'],
  ['forget', { kind: 'needs_review', id: 5 }, 'for you to change', '직접 고칠 내용'],
  ['search_memory', { kind: 'facts', facts: [{ id: 5, content: 'Prefers tea.' }, { id: 6, content: 'Has a dog.' }] }, '2 found', '2개 찾음'],
  ['search_memory', { kind: 'nothing_found', query: 'zebra', ranking: null }, 'nothing found', '찾지 못함'],
  ['search_attachment', { kind: 'passages', passages: [{ file: 'trip.md', page: null, line_start: 3, line_end: 4, text: 'The trip is in May.' }], ranking: null }, '1 found', '1개 찾음'],
  ['search_skills', { kind: 'skills', names: ['pdf-forms', 'slides', 'pptx'] }, '3 found', '3개 찾음'],
  ['load_skill', { kind: 'skill_loaded', name: 'pdf-forms', files: ['reference/fields.md'] }, 'done', '완료'],
  ['read_skill_file', { kind: 'skill_file_read', name: 'pdf-forms', path: 'reference/fields.md' }, 'done', '완료'],
  ['read_tool_output', { kind: 'page_read', reference: 'out-3', tool: 'search_attachment', from: 1, to: 40, lines: 120 }, 'done', '완료'],
  ['mini__echo', { kind: 'denied' }, 'not allowed', '허용 안 함'],
  ['mini__echo', { kind: 'not_approved' }, 'did not run', '실행 안 됨'],
  ['mini__echo', { kind: 'server_removed' }, 'failed', '실패'],
  ['mini__echo', { kind: 'server_turned_off' }, 'failed', '실패'],
  ['remember', { kind: 'error', code: 'memory_off', message: 'Das ging nicht.' }, 'failed', '실패'],
  ['forget', { kind: 'refused', error: { code: 'not_found', message: 'memory 5 not found', params: {} } }, 'failed', '실패'],
  ['mini__echo', { kind: 'text' }, 'done', '완료'],
];

afterEach(() => setLanguage('en'));

describe('a tool chip drawn from the stored outcome', () => {
  for (const [tool, did, en, ko] of CASES) {
    it(`${tool} → ${did.kind}: the same chip whatever the model read`, () => {
      for (const [language, want] of [['en', en], ['ko', ko]] as const) {
        setLanguage(language);
        for (const words of MISLEADING) {
          expect(status(chip(tool, did, words)), `${language}: the chip says what the call did, not what “${words.slice(0, 30)}…” says`).toBe(want);
        }
      }
    });
  }

  it('shows the fact, the passages and the skills from the outcome, not from the text', () => {
    const proposed = chip('remember', { kind: 'proposed', id: 5, fact: 'Prefers tea.' }, MISLEADING[3]);
    expect(proposed.querySelector('[data-testid=tool-fact]')?.textContent, 'the fact proposed, not the one the text names').toBe('Prefers tea.');
    expect(proposed.querySelector<HTMLElement>('[data-testid=tool-open-memory]')?.dataset.memoryId, 'and the way to its review').toBe('5');

    const passages = chip('search_attachment', CASES[9][1], 'Leer.');
    expect(passages.querySelector('.passage-source')?.textContent).toBe('trip.md · lines 3–4');
    expect(passages.querySelector('.passage-text')?.textContent).toBe('The trip is in May.');

    const skills = chip('search_skills', CASES[10][1], 'Leer.');
    expect([...skills.querySelectorAll('.tool-found li')].map((l) => l.textContent)).toEqual(['pdf-forms', 'slides', 'pptx']);
  });

  it('a server gone is said in the user’s words, whatever the model was told', () => {
    setLanguage('ko');
    expect(body(chip('mini__echo', { kind: 'server_removed' }, 'error: Das ging nicht.'))).toContain('도구 서버가 삭제되어');
    expect(body(chip('mini__echo', { kind: 'server_turned_off' }, 'error: Das ging nicht.'))).toContain('도구 서버가 꺼져서');
    setLanguage('en');
    expect(body(chip('mini__echo', { kind: 'server_removed' }, 'error: Das ging nicht.'))).toContain('The tool server was removed');
  });

  it('says why a call failed in the user’s words, not the model’s; a tool server’s own error as it said it', () => {
    const why = (c: HTMLElement) => c.querySelector('.tool-error-text')?.textContent;
    setLanguage('ko');
    expect(why(chip('remember', { kind: 'error', code: 'memory_off', message: 'Das ging nicht.' }, 'error: Das ging nicht.'))).toBe('설정에서 장기 기억이 꺼져 있습니다.');
    const secret = { code: 'secret_refused' as const, message: 'this looks like a secret (an API key), so it is not kept', params: {} };
    expect(why(chip('remember', { kind: 'refused', error: secret }, 'error: Das ging nicht.')), 'Maru’s refusal as the API words it')
      .toContain('비밀 정보처럼 보여서');
    expect(why(chip('mini__echo', { kind: 'error', code: 'tool_error', message: 'disk full' }, 'error: disk full'))).toBe('disk full');
    setLanguage('en');
    expect(why(chip('search_attachment', { kind: 'error', code: 'no_search_words', message: 'Das ging nicht.' }, 'error: Das ging nicht.')))
      .toBe('The model’s search had no words to look for.');
  });

  it('a long result kept aside says so from the outcome, in both languages', () => {
    const kept = { reference: 'out-7', lines: 300, chars: 18_000, shown: 12 };
    const c = chip('mini__echo', { kind: 'text' }, 'Zu lang; weiter mit out-7 ab 13.\nDay 1', kept);
    expect(c.querySelector('[data-testid=tool-kept]')?.textContent).toBe('The output was long (300 lines): the model got its first 12 lines and can read the rest (out-7).');
    setLanguage('ko');
    const ko = chip('mini__echo', { kind: 'text' }, 'Zu lang; weiter mit out-7 ab 13.\nDay 1', kept);
    expect(ko.querySelector('[data-testid=tool-kept]')?.textContent).toBe('출력이 길어서(300줄) 모델은 처음 12줄을 받았고, 나머지는 이어서 읽을 수 있습니다(out-7).');
    expect(chip('mini__echo', { kind: 'text' }, 'short').querySelector('[data-testid=tool-kept]'), 'a result sent whole says nothing of it').toBeNull();
  });

  it('a live call reads the outcome the turn streamed with its result', () => {
    const call = { id: 'c', name: 'remember', arguments: '{}', result: 'No saved fact matches "x".', isError: false, outcome: { did: { kind: 'saved', id: 9, fact: 'Has a cat.' }, kept: null } as ToolOutcome };
    expect(toolOutcome(call, true)).toEqual({ kind: 'saved', id: 9, fact: 'Has a cat.' });
    expect(toolOutcome({ ...call, outcome: null }, false), 'an old result without an outcome is read from its text as before')
      .toEqual({ kind: 'nothingFound', query: 'x' });
  });
});
