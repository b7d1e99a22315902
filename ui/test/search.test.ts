import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ChatHit, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountSidebar } from '../src/views/sidebar';
import { highlightedSnippet } from '../src/views/search';
import { fakeBackend } from './fakeBackend';

const EVIL = 'before <img src=x onerror="window.hacked=1"> family plans';

function render(nodes: Node[]): HTMLElement {
  const el = document.createElement('p');
  el.append(...nodes);
  return el;
}

describe('highlighted snippets', () => {
  it('marks the ranges and keeps markup as text', () => {
    const start = EVIL.indexOf('family');
    const el = render(highlightedSnippet(EVIL, [[start, start + 6]]));
    expect(el.textContent).toBe(EVIL);
    expect(el.querySelector('img')).toBeNull();
    expect(el.children.length).toBe(1);
    expect(el.querySelector('mark')?.textContent).toBe('family');
    expect((window as unknown as { hacked?: number }).hacked).toBeUndefined();
  });

  it('counts characters as the server does (code points, not UTF-16 units)', () => {
    const s = '😀 가족 일정 😀 family';
    const el = render(highlightedSnippet(s, [[2, 4], [10, 16]]));
    expect([...el.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['가족', 'family']);
    expect(el.textContent).toBe(s);
  });

  it('survives ranges out of order, overlapping or past the end', () => {
    const el = render(highlightedSnippet('abcdef', [[4, 99], [0, 2], [1, 3]]));
    expect(el.textContent).toBe('abcdef');
    expect([...el.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['ab', 'c', 'ef']);
  });
});

describe('searching from the sidebar', () => {
  beforeEach(() => setLanguage('en'));

  it('shows results across projects with the snippet as text, and opens the chat at the message', async () => {
    const projects: Project[] = [
      { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, session_count: 1, created_at: 0, updated_at: 0 },
      { id: 2, name: 'Family <b>calendar</b>', instructions: '', is_default: false, folder: null, session_count: 1, created_at: 0, updated_at: 0 },
    ];
    const start = EVIL.indexOf('family');
    const hits: ChatHit[] = [
      { session_id: 9, project_id: 2, title: 'Weekend <i>plans</i>', message_id: 41, snippet: EVIL, highlights: [[start, start + 6]], earlier_version: false },
      { session_id: 3, project_id: 1, title: 'Family dinner', message_id: null, snippet: 'Family dinner', highlights: [[0, 6]], earlier_version: false },
    ];
    const session: Session = { id: 9, project_id: 2, title: 'Weekend <i>plans</i>', preset: null, model: null, created_at: 0, updated_at: 0, imported_at: null };
    const { backend, calls } = fakeBackend({
      searchChats: async () => hits,
      getSession: async () => session,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [session], next_cursor: null }),
    });
    const app = new App(backend);
    app.projects = projects.map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    const side = mountSidebar(app, root);
    side.focusSearch();
    const input = root.querySelector<HTMLInputElement>('[data-testid=search]')!;
    expect(document.activeElement).toBe(input);

    // Typing is debounced: one request for the whole word.
    for (const q of ['f', 'fa', 'family']) {
      input.value = q;
      input.dispatchEvent(new Event('input'));
    }
    await new Promise((r) => setTimeout(r, 350));
    expect(calls.filter((c) => c.method === 'searchChats').map((c) => c.args)).toEqual([['family', 30]]);
    // The projects give way to the results.
    expect(root.querySelector<HTMLElement>('.sidebar-body')!.hidden).toBe(true);
    const found = [...root.querySelectorAll('[data-testid=search-hit]')];
    expect(found.length).toBe(2);
    expect(found[0].querySelector('.hit-title')?.textContent).toBe('Weekend <i>plans</i>');
    expect(found[0].querySelector('.hit-project')?.textContent).toBe('Family <b>calendar</b>');
    expect(found[1].querySelector('.hit-project')?.textContent).toBe('Default');
    const snippet = found[0].querySelector('[data-testid=search-snippet]')!;
    expect(snippet.textContent).toBe(EVIL);
    expect(root.querySelector('img, b, i')).toBeNull();
    expect(snippet.querySelector('mark')?.textContent).toBe('family');
    expect(found[1].textContent).toContain('Title: Family dinner');

    // Enter opens the first result, at its message.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.find((c) => c.method === 'getSession')?.args).toEqual([9]);
    expect(app.session?.id).toBe(9);
    expect(app.focusMessageId).toBeNull(); // not among the (empty) messages: simply opened

    // Escape clears the query and the projects come back.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(input.value).toBe('');
    expect(root.querySelector<HTMLElement>('.sidebar-body')!.hidden).toBe(false);
    expect(root.querySelector('[data-testid=search-hit]')).toBeNull();
  });

  it('says when nothing matches, in Korean too', async () => {
    setLanguage('ko');
    const { backend } = fakeBackend({ searchChats: async () => [] });
    const app = new App(backend);
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    mountSidebar(app, root);
    const input = root.querySelector<HTMLInputElement>('[data-testid=search]')!;
    expect(input.placeholder).toBe('대화 검색');
    input.value = '없는말';
    input.dispatchEvent(new Event('input'));
    await new Promise((r) => setTimeout(r, 300));
    expect(root.querySelector('.search-note')?.textContent).toBe('“없는말”와(과) 맞는 대화가 없습니다.');
  });
});

describe('searching earlier versions', () => {
  beforeEach(() => setLanguage('en'));

  const projects: Project[] = [
    { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, session_count: 2, created_at: 0, updated_at: 0 },
  ];
  const session: Session = { id: 5, project_id: 1, title: 'Trip', preset: null, model: null, created_at: 0, updated_at: 0, imported_at: null };
  const current: ChatHit = { session_id: 4, project_id: 1, title: 'Budget', message_id: 30, snippet: 'the budget now', highlights: [[4, 10]], earlier_version: false };
  const earlier: ChatHit = { session_id: 5, project_id: 1, title: 'Trip', message_id: 51, snippet: 'the budget before', highlights: [[4, 10]], earlier_version: true };

  function mount() {
    const fake = fakeBackend({
      // Earlier versions only when asked for.
      searchChats: async (_q, _limit, versions) => (versions ? [current, earlier] : [current]),
      getSession: async () => session,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [session], next_cursor: null }),
    });
    const app = new App(fake.backend);
    app.projects = projects.map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    mountSidebar(app, root);
    return { app, root, ...fake };
  }
  const toggle = (root: HTMLElement) => root.querySelector<HTMLInputElement>('[data-testid=search-versions]')!;
  const badges = (root: HTMLElement) => [...root.querySelectorAll('[data-testid=search-hit]')].map((b) => b.querySelector('[data-testid=earlier-version]')?.textContent ?? null);

  async function type(root: HTMLElement, q: string) {
    const input = root.querySelector<HTMLInputElement>('[data-testid=search]')!;
    input.value = q;
    input.dispatchEvent(new Event('input'));
    await new Promise((r) => setTimeout(r, 300));
  }

  it('the toggle asks for earlier versions, runs the query again at once, marks only those hits and stays on for the page', async () => {
    const { app, root, calls } = mount();
    await type(root, 'budget');
    const searches = () => calls.filter((c) => c.method === 'searchChats').map((c) => c.args);
    expect(searches(), 'off by default: only the messages as they read now').toEqual([['budget', 30]]);
    expect(toggle(root).checked).toBe(false);
    expect(toggle(root).closest('label')?.textContent).toBe('Include earlier versions');
    expect(badges(root), 'no badge on a message as it reads now').toEqual([null]);

    const box = toggle(root);
    box.checked = true;
    box.dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 20));
    expect(searches(), 'turning it on searches again with versions=true, without waiting for typing').toEqual([['budget', 30], ['budget', 30, true]]);
    expect(badges(root), 'only the earlier version is marked').toEqual([null, 'earlier version']);
    expect(toggle(root), 'the redrawn results keep the same checkbox, so it keeps the focus').toBe(box);

    // Opening an earlier version opens its chat as usual.
    root.querySelectorAll<HTMLButtonElement>('[data-testid=search-hit]')[1].click();
    await new Promise((r) => setTimeout(r, 20));
    expect(app.session?.id, 'the hit opens the chat it was found in').toBe(5);

    // A search box mounted again (same page) still searches earlier versions.
    const again = mount();
    await type(again.root, 'budget');
    expect(toggle(again.root).checked, 'remembered for the page’s life').toBe(true);
    expect(again.calls.filter((c) => c.method === 'searchChats').map((c) => c.args)).toEqual([['budget', 30, true]]);

    // Off again: earlier versions are no longer asked for (and the next tests start from off).
    toggle(again.root).checked = false;
    toggle(again.root).dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 20));
    expect(again.calls.filter((c) => c.method === 'searchChats').at(-1)?.args).toEqual(['budget', 30]);
    expect(badges(again.root)).toEqual([null]);
  });

  it('names the toggle and the badge in Korean', async () => {
    setLanguage('ko');
    const { root } = mount();
    await type(root, '예산');
    toggle(root).checked = true;
    toggle(root).dispatchEvent(new Event('change'));
    await new Promise((r) => setTimeout(r, 20));
    expect(toggle(root).closest('label')?.textContent).toBe('이전 버전도 검색');
    expect(badges(root)).toEqual([null, '이전 버전']);
    toggle(root).checked = false;
    toggle(root).dispatchEvent(new Event('change'));
  });
});
