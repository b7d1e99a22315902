import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Backend } from '../src/backend/backend';
import type { ChatHit, FileHit, Project, Session } from '../src/backend/types';
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
      { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 },
      { id: 2, name: 'Family <b>calendar</b>', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 },
    ];
    const start = EVIL.indexOf('family');
    const hits: ChatHit[] = [
      { session_id: 9, project_id: 2, title: 'Weekend <i>plans</i>', message_id: 41, snippet: EVIL, highlights: [[start, start + 6]], earlier_version: false },
      { session_id: 3, project_id: 1, title: 'Family dinner', message_id: null, snippet: 'Family dinner', highlights: [[0, 6]], earlier_version: false },
    ];
    const session: Session = { id: 9, project_id: 2, title: 'Weekend <i>plans</i>', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
    const { backend, calls } = fakeBackend({
      searchChats: async () => hits,
      searchFiles: async () => [],
      getSession: async () => session,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [session], next_cursor: null }),
    });
    const app = new App(backend);
    app.sessions.projects = projects.map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
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
    expect(app.chat.session?.id).toBe(9);
    expect(app.chat.focusMessageId).toBeNull(); // not among the (empty) messages: simply opened

    // Escape clears the query and the projects come back.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(input.value).toBe('');
    expect(root.querySelector<HTMLElement>('.sidebar-body')!.hidden).toBe(false);
    expect(root.querySelector('[data-testid=search-hit]')).toBeNull();
  });

  it('says when nothing matches, in Korean too', async () => {
    setLanguage('ko');
    const { backend } = fakeBackend({ searchChats: async () => [], searchFiles: async () => [] });
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
    { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 2, created_at: 0, updated_at: 0 },
  ];
  const session: Session = { id: 5, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
  const current: ChatHit = { session_id: 4, project_id: 1, title: 'Budget', message_id: 30, snippet: 'the budget now', highlights: [[4, 10]], earlier_version: false };
  const earlier: ChatHit = { session_id: 5, project_id: 1, title: 'Trip', message_id: 51, snippet: 'the budget before', highlights: [[4, 10]], earlier_version: true };

  function mount() {
    const fake = fakeBackend({
      // Earlier versions only when asked for.
      searchChats: async (_q, _limit, versions) => (versions ? [current, earlier] : [current]),
      searchFiles: async () => [],
      getSession: async () => session,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [session], next_cursor: null }),
    });
    const app = new App(fake.backend);
    app.sessions.projects = projects.map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
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
    expect(app.chat.session?.id, 'the hit opens the chat it was found in').toBe(5);

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

describe('searching inside files', () => {
  beforeEach(() => setLanguage('en'));

  const projects: Project[] = [
    { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 },
    { id: 2, name: 'Taxes', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 },
  ];
  const trip: Session = { id: 7, project_id: 1, title: 'Trip planning', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
  const chatHit: ChatHit = { session_id: 3, project_id: 1, title: 'Budget talk', message_id: 30, snippet: 'the budget now', highlights: [[4, 10]], earlier_version: false };
  const evil = 'total <img src=x onerror="window.hacked=2"> budget for 2024';
  const inChat: FileHit = { attachment_id: 11, name: 'itinerary.pdf', session_id: 7, project_id: 1, page: 3, line: 40, snippet: evil, highlights: [[evil.indexOf('budget'), evil.indexOf('budget') + 6]] };
  const inProject: FileHit = { attachment_id: 12, name: 'receipts.txt', session_id: null, project_id: 2, page: null, line: 12, snippet: 'yearly budget', highlights: [[7, 13]] };

  function mount(methods: Partial<Backend>) {
    const fake = fakeBackend({
      searchChats: async () => [chatHit],
      searchFiles: async () => [inChat, inProject],
      getSession: async (id) => ({ ...trip, id }),
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listSessions: async () => ({ sessions: [trip], next_cursor: null }),
      ...methods,
    });
    const app = new App(fake.backend);
    app.sessions.projects = projects.map((project) => ({ project, sessions: project.id === 1 ? [trip] : [], nextCursor: null, loaded: true, loading: false, expanded: false }));
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    mountSidebar(app, root);
    const input = root.querySelector<HTMLInputElement>('[data-testid=search]')!;
    return { app, root, input, ...fake };
  }
  async function type(input: HTMLInputElement, q: string) {
    input.value = q;
    input.dispatchEvent(new Event('input'));
    await new Promise((r) => setTimeout(r, 300));
  }
  const fileHits = (root: HTMLElement) => [...root.querySelectorAll<HTMLButtonElement>('[data-testid=search-file-hit]')];

  it('shows file passages in their own group after the chats, with where they are and the words marked as text', async () => {
    const { root, input, calls } = mount({});
    await type(input, 'budget');
    expect(calls.filter((c) => c.method === 'searchFiles').map((c) => c.args), 'the files are searched with the same query, once').toEqual([['budget', 30]]);
    const group = root.querySelector<HTMLElement>('[data-testid=search-files]')!;
    expect(group.querySelector('.section-head')?.textContent, 'the group is headed').toBe('In files');
    const chats = root.querySelector('[data-testid=search-hit]')!;
    expect(chats.compareDocumentPosition(group) & Node.DOCUMENT_POSITION_FOLLOWING, 'the files come after the chats').toBeTruthy();
    const [a, b] = fileHits(root);
    expect(a.querySelector('.hit-title')?.textContent).toBe('itinerary.pdf');
    expect(a.querySelector('.hit-project')?.textContent, 'a chat’s file names its chat').toBe('Trip planning');
    expect(a.querySelector('[data-testid=file-location]')?.textContent, 'a PDF passage says its page').toBe('p. 3');
    expect(b.querySelector('.hit-project')?.textContent, 'a project’s file names its project').toBe('Taxes');
    expect(b.querySelector('[data-testid=file-location]')?.textContent, 'without a page, its line').toBe('line 12');
    const snippet = a.querySelector('[data-testid=search-snippet]')!;
    expect(snippet.textContent, 'the snippet is text, markup and all').toContain(evil);
    expect(root.querySelector('img'), 'never HTML').toBeNull();
    expect(snippet.querySelector('mark')?.textContent).toBe('budget');
    expect((window as unknown as { hacked?: number }).hacked).toBeUndefined();
  });

  it('the arrows run from the chats into the files, and Enter opens a file’s chat', async () => {
    const { app, root, input } = mount({});
    await type(input, 'budget');
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown' }));
    expect(fileHits(root)[0].classList.contains('selected'), 'after the one chat comes the first file').toBe(true);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await new Promise((r) => setTimeout(r, 20));
    expect(app.chat.session?.id, 'the file’s chat opens').toBe(7);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown' }));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown' }));
    expect(root.querySelector('[data-testid=search-hit]')!.classList.contains('selected'), 'past the last file, back to the first chat').toBe(true);
  });

  it('a project’s file opens the project’s files', async () => {
    const { app, root, input } = mount({});
    await type(input, 'budget');
    fileHits(root)[1].click();
    // The project's settings are a chunk of their own: loaded at the first opening.
    for (let i = 0; i < 100 && !document.querySelector('dialog[open]'); i++) await new Promise((r) => setTimeout(r, 20));
    const dialog = document.querySelector<HTMLDialogElement>('dialog[open]');
    expect(dialog?.querySelector('h2')?.textContent, 'the project’s files dialog').toBe('Project “Taxes”');
    expect(app.chat.session, 'no chat is opened for a project’s file').toBeNull();
    dialog?.close();
  });

  it('a failed file search still shows the chats', async () => {
    const { root, input } = mount({ searchFiles: async () => { throw new Error('index unavailable'); } });
    await type(input, 'budget');
    expect(root.querySelectorAll('[data-testid=search-hit]').length, 'the chat hits stay').toBe(1);
    expect(fileHits(root)).toEqual([]);
    expect(root.querySelector('[data-testid=search-files] .field-error')?.textContent, 'the files’ group says why').toContain('index unavailable');
  });

  it('labels the group and the places in Korean', async () => {
    setLanguage('ko');
    const { root, input } = mount({});
    await type(input, '예산');
    expect(root.querySelector('[data-testid=search-files] .section-head')?.textContent).toBe('파일에서');
    expect(fileHits(root).map((b) => b.querySelector('[data-testid=file-location]')?.textContent)).toEqual(['3쪽', '12행']);
  });
});
