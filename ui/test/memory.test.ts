import { beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app';
import { ApiError, type Backend } from '../src/backend/backend';
import { UNDO_MS } from '../src/state/undo';
import type { Message, Project, Session, TurnEvent } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { mountMemoryPanel } from '../src/views/memoryPanel';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { mountSidebar } from '../src/views/sidebar';
import { appInProject, fakeBackend, memory, memoryRoutes, SECRET_REFUSED, settingsView } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 2, created_at: 0, updated_at: 0 };
const WEEKEND: Session = { id: 9, project_id: 1, title: 'Weekend <i>plans</i>', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const OTHER: Session = { id: 3, project_id: 1, title: 'Dinner', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function inWeekend(over: Partial<Message>): Message {
  return message({ session_id: 9, ...over });
}

/** Two proposals (one from a message of "Weekend plans", one typed with markup) and one saved fact. */
function setup(extra: Partial<Backend> = {}) {
  return setupWith(null, extra);
}

/** As `setup`, with one more memory (a change to fact 3, say). */
function setupWith(more: ReturnType<typeof memory> | null, extra: Partial<Backend> = {}) {
  const routes = memoryRoutes([
    ...(more ? [more] : []),
    memory({ id: 1, content: 'Prefers answers in Korean.', status: 'pending', source_session_id: 9, source_message_id: 41, confirmed_at: null }),
    memory({ id: 2, content: 'Likes <b>bold</b> coffee', status: 'pending', source_session_id: 3, source_message_id: null, confirmed_at: null }),
    memory({ id: 3, content: 'Lives in Seoul.', status: 'accepted', pinned: true, source_session_id: null }),
  ]);
  const fake = appInProject({
    ...routes.methods,
    getSession: async (id: number) => {
      if (id === 9) return WEEKEND;
      if (id === 3) return OTHER;
      throw new Error(`no session ${id}`);
    },
    listMessages: async (sid: number) => ({ messages: sid === 9 ? [inWeekend({ id: 41, content: 'Please answer in Korean from now on.' })] : [], next_before: null }),
    listAttachments: async () => [],
    listSessions: async () => ({ sessions: [WEEKEND, OTHER], next_cursor: null }),
    ...extra,
  }, PROJECT);
  const app = fake.app;
  app.panels.panel = 'memory';
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  const render = mountMemoryPanel(app, root, () => app.panels.closePanel());
  render();
  return { root, routes, ...fake, ...routes };
}

const proposals = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>('[data-testid=memory-proposal]')];
const facts = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>('[data-testid=memory]')];
const texts = (items: HTMLElement[]) => items.map((el) => el.querySelector('.memory-text')?.textContent);
const click = (el: Element | null | undefined) => (el as HTMLElement).click();

describe('the memory panel', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('lists the proposals above the saved facts, each with the chat it came from', async () => {
    const { app, root, calls } = setup();
    await app.memory.loadMemories();
    await sleep(10);
    expect(calls.filter((c) => c.method === 'listMemories').map((c) => c.args[0])).toEqual([undefined, 'pending']);
    const section = root.querySelector('[data-testid=memory-proposals]')!;
    expect(section.querySelector('h3')?.textContent).toBe('Proposed (2)');
    expect(section.textContent).toContain('They are not used until you accept them.');
    expect(texts(proposals(root))).toEqual(['Prefers answers in Korean.', 'Likes <b>bold</b> coffee']);
    expect(root.querySelector('.memory-text b, .memory-source i')).toBeNull();
    // Proposals come first, then the saved facts under their own heading.
    const headings = [...root.querySelectorAll('h3')].map((el) => el.textContent);
    expect(headings).toEqual(['Proposed (2)', 'Saved (1)']);
    expect(proposals(root)[0].compareDocumentPosition(facts(root)[0]) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(texts(facts(root))).toEqual(['Lives in Seoul.']);
    // Where each came from: the chat's title (as text), asked once per chat.
    const [first, second] = proposals(root).map((p) => p.querySelector<HTMLAnchorElement>('[data-testid=memory-source]')!);
    expect(first.textContent).toBe('from “Weekend <i>plans</i>”');
    expect(first.getAttribute('href')).toBe('#/chat/9');
    expect(first.dataset.messageId).toBe('41');
    expect(first.title).toBe('Open the chat at the message this came from');
    expect(second.textContent).toBe('from “Dinner”');
    expect(second.dataset.messageId).toBeUndefined();
    expect(facts(root)[0].querySelector('[data-testid=memory-source]')).toBeNull();
    expect(calls.filter((c) => c.method === 'getSession').map((c) => c.args[0]).sort()).toEqual([3, 9]);
    expect(root.querySelector('[data-testid=memory-mode-line]')?.textContent).toContain('Review first: the model’s proposals wait here');
  });

  it('accepts a proposal: it becomes a saved fact', async () => {
    const { app, root, calls, store } = setup();
    await app.memory.loadMemories();
    click(proposals(root)[0].querySelector('[data-testid=memory-accept]'));
    await sleep(10);
    expect(calls.filter((c) => c.method === 'acceptMemory').map((c) => c.args)).toEqual([[1]]);
    expect(calls.some((c) => c.method === 'updateMemory')).toBe(false);
    expect(store.find((m) => m.id === 1)?.status).toBe('accepted');
    expect(texts(proposals(root))).toEqual(['Likes <b>bold</b> coffee']);
    expect(texts(facts(root)).sort()).toEqual(['Lives in Seoul.', 'Prefers answers in Korean.']);
    // A saved fact still says where it came from.
    const accepted = facts(root).find((f) => f.dataset.memoryId === '1')!;
    expect(accepted.querySelector('[data-testid=memory-source]')?.textContent).toBe('from “Weekend <i>plans</i>”');
    expect(app.memory.pendingCount).toBe(1);
  });

  it('shows a change to a saved fact as a diff beside it; accepting rewrites the fact, dismissing keeps it', async () => {
    const change = memory({ id: 7, content: 'Lives in Busan.', status: 'pending', replaces: 3, confirmed_at: null });
    for (const decision of ['accept', 'dismiss'] as const) {
      vi.useFakeTimers();
      try {
        const { app, root, routes } = setupWith(change);
        await app.memory.loadMemories();
        const shown = proposals(root).find((p) => p.dataset.memoryId === '7')!;
        expect(shown.dataset.replaces, 'the change says which fact it changes').toBe('3');
        expect([...shown.querySelectorAll('[data-testid=memory-diff-removed]')].map((e) => e.textContent), 'the words it takes out are shown struck').toEqual(['Seoul']);
        expect([...shown.querySelectorAll('[data-testid=memory-diff-added]')].map((e) => e.textContent), 'the words it puts in are marked').toEqual(['Busan']);
        expect(texts(facts(root)), 'the saved fact still reads as it did while the change waits').toEqual(['Lives in Seoul.']);
        click(shown.querySelector(`[data-testid=memory-${decision}]`));
        await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
        expect(proposals(root).some((p) => p.dataset.memoryId === '7'), 'the change is answered').toBe(false);
        const after = decision === 'accept' ? 'Lives in Busan.' : 'Lives in Seoul.';
        expect(texts(facts(root)), `${decision}: the fact is ${after}, never lost`).toEqual([after]);
        expect(routes.store.find((m) => m.id === 3)?.status, 'the fact stays saved either way').toBe('accepted');
      } finally {
        vi.useRealTimers();
      }
    }
  });

  it('dismisses a proposal at once, offers Undo, and deletes it only once Undo is gone', async () => {
    vi.useFakeTimers();
    try {
      const { app, root, calls } = setup();
      await app.memory.loadMemories();
      const deletes = () => calls.filter((c) => c.method === 'deleteMemory').map((c) => c.args[0]);
      click(proposals(root)[1].querySelector('[data-testid=memory-dismiss]'));
      await vi.advanceTimersByTimeAsync(10);
      expect(texts(proposals(root)), 'a dismissed proposal goes at once').toEqual(['Prefers answers in Korean.']);
      expect(app.memory.pendingCount).toBe(1);
      expect(deletes(), 'nothing is deleted while Undo is offered').toEqual([]);
      const undo = document.querySelector<HTMLElement>('[data-testid=toast-action]');
      expect(undo?.textContent).toBe('Undo');
      expect(undo?.closest('[data-testid=toast]')?.textContent).toContain('Dismissed the proposal');
      click(undo);
      await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
      expect(texts(proposals(root)), 'Undo brings the proposal back').toEqual(['Prefers answers in Korean.', 'Likes <b>bold</b> coffee']);
      expect(deletes(), 'an undone dismissal never reaches the server').toEqual([]);

      click(proposals(root)[1].querySelector('[data-testid=memory-dismiss]'));
      click(proposals(root)[0].querySelector('[data-testid=memory-dismiss]'));
      await vi.advanceTimersByTimeAsync(10);
      expect(root.querySelector('[data-testid=memory-proposals]')).toBeNull();
      await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
      expect(deletes(), 'once Undo is gone, each is deleted').toEqual([2, 1]);
      expect([...root.querySelectorAll('h3')].length).toBe(0);
      expect(texts(facts(root))).toEqual(['Lives in Seoul.']);
      expect(app.memory.pendingCount).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('puts a deleted fact back when the server refuses the delete', async () => {
    vi.useFakeTimers();
    try {
      const { app, root } = setup({ deleteMemory: async () => { throw new ApiError('internal', 'the disk is full', 500); } });
      await app.memory.loadMemories();
      await app.memory.deleteMemory(3);
      await vi.advanceTimersByTimeAsync(10);
      expect(texts(facts(root))).toEqual([]);
      await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
      expect(texts(facts(root)), 'a refused delete loses nothing').toEqual(['Lives in Seoul.']);
      expect(document.querySelector('.toast-error')?.textContent).toContain('the disk is full');
    } finally {
      vi.useRealTimers();
    }
  });

  it('edits a proposal, then accepts it with the new words; a secret in the edit is refused and stays to fix', async () => {
    const { app, root, calls, store } = setup();
    await app.memory.loadMemories();
    click(proposals(root)[0].querySelector('[data-testid=memory-edit]'));
    let area = root.querySelector<HTMLTextAreaElement>('[data-testid=memory-edit-input]')!;
    expect(area.value).toBe('Prefers answers in Korean.');

    // A secret: the server refuses it with its message; nothing is accepted and the text stays.
    area.value = 'My key is sk-abc123';
    area.dispatchEvent(new Event('input'));
    click(root.querySelector('[data-testid=memory-save]'));
    await sleep(10);
    expect(document.querySelector('.toast-error')?.textContent).toContain(SECRET_REFUSED);
    expect(calls.some((c) => c.method === 'acceptMemory')).toBe(false);
    expect(store.find((m) => m.id === 1)).toMatchObject({ status: 'pending', content: 'Prefers answers in Korean.' });
    area = root.querySelector<HTMLTextAreaElement>('[data-testid=memory-edit-input]')!;
    expect(area.value).toBe('My key is sk-abc123');

    area.value = 'Prefers answers in Korean, with English terms in brackets.';
    area.dispatchEvent(new Event('input'));
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await sleep(10);
    const changes = calls.filter((c) => c.method === 'updateMemory' || c.method === 'acceptMemory').map((c) => [c.method, ...c.args]);
    expect(changes.slice(-2)).toEqual([
      ['updateMemory', 1, { content: 'Prefers answers in Korean, with English terms in brackets.' }],
      ['acceptMemory', 1],
    ]);
    expect(root.querySelector('[data-testid=memory-edit-input]')).toBeNull();
    expect(texts(facts(root))).toContain('Prefers answers in Korean, with English terms in brackets.');
    expect(texts(proposals(root))).toEqual(['Likes <b>bold</b> coffee']);
  });

  it("opens the chat a proposal came from, at its message", async () => {
    const { app, root, calls } = setup();
    await app.memory.loadMemories();
    await sleep(10);
    click(proposals(root)[0].querySelector('[data-testid=memory-source]'));
    await sleep(10);
    expect(app.chat.session?.id).toBe(9);
    expect(window.location.hash).toBe('#/chat/9');
    expect(calls.filter((c) => c.method === 'listMessages').map((c) => c.args[0])).toEqual([9]);
    // The chat view brings this message into view and flashes it.
    expect(app.chat.focusMessageId).toBe(41);
    // The panel stays open beside the chat.
    expect(app.panels.panel).toBe('memory');
  });

  it("says why a fact typed by hand was refused, in the server's words, and keeps the text", async () => {
    const { app, root, store } = setup();
    await app.memory.loadMemories();
    const input = root.querySelector<HTMLTextAreaElement>('[data-testid=memory-input]')!;
    input.value = 'API key: sk-live-123456';
    click(root.querySelector('[data-testid=memory-add]'));
    await sleep(10);
    expect(document.querySelector('.toast-error')?.textContent).toContain(SECRET_REFUSED);
    expect(input.value).toBe('API key: sk-live-123456');
    expect(store.length).toBe(3);
    // A fact that is not a secret is added, and the box empties.
    input.value = 'Has two children.';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await sleep(10);
    expect(input.value).toBe('');
    expect(texts(facts(root))).toContain('Has two children.');
  });

  it('speaks Korean', async () => {
    setLanguage('ko');
    const { app, root } = setup();
    await app.memory.loadMemories();
    await sleep(10);
    expect(root.querySelector('[data-testid=memory-proposals] h3')?.textContent).toBe('제안됨 (2)');
    const first = proposals(root)[0];
    expect([...first.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['거절', '고친 뒤 수락', '수락']);
    expect(first.querySelector('[data-testid=memory-source]')?.textContent).toBe('“Weekend <i>plans</i>”에서');
    expect(root.querySelector('[data-testid=memory-mode-line]')?.textContent).toContain('먼저 검토');
  });
});

describe('the pending count on the Memory buttons', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('shows on the sidebar and the chat header, and is asked again after each finished turn', async () => {
    const routes = memoryRoutes([memory({ id: 1, status: 'pending', source_session_id: 9, source_message_id: 41 })]);
    const { app, calls } = appInProject({
      ...routes.methods,
      getSession: async () => WEEKEND,
      listMessages: async () => ({ messages: [], next_before: null }),
      listSessions: async () => ({ sessions: [WEEKEND], next_cursor: null }),
      listAttachments: async () => [],
      sendMessage: async (sid: number, content: string, sink: (e: TurnEvent) => void) => {
        // The model proposes a fact during the turn.
        routes.store.push(memory({ id: 7, content: 'Has a dog named 보리.', status: 'pending', source_session_id: sid }));
        sink({ type: 'tool_call', id: 'call_1', name: 'remember', arguments: '{"fact":"Has a dog named 보리."}' });
        sink({
          type: 'tool_result', id: 'call_1', name: 'remember', content: 'proposed', is_error: false,
          outcome: { did: { kind: 'proposed', id: 7, fact: 'Has a dog named 보리.' }, kept: null },
        });
        sink({ type: 'token', text: `Noted: ${content}` });
        sink({ type: 'done', message: inWeekend({ id: 50, role: 'assistant' }) });
      },
    }, PROJECT, { sessions: [WEEKEND] });
    app.chat.session = WEEKEND;
    const side = document.createElement('aside');
    const main = document.createElement('main');
    document.body.replaceChildren(side, main);
    mountSidebar(app, side);
    mountChat(app, main, () => {});
    const badges = () => [...document.querySelectorAll('[data-testid=memory-pending-count]')].map((b) => b.textContent);
    expect(badges()).toEqual([]);

    await app.memory.loadMemories(true);
    expect(badges()).toEqual(['1', '1']);
    expect(document.querySelector('[data-testid=open-memory]')?.getAttribute('title')).toBe('1 proposed fact waits for review');

    const before = calls.filter((c) => c.method === 'listMemories').length;
    await app.chat.send('I have a dog named 보리.');
    await sleep(20);
    expect(calls.filter((c) => c.method === 'listMemories').length).toBeGreaterThan(before);
    expect(badges()).toEqual(['2', '2']);

    // Accepting them all clears the count.
    await app.memory.acceptMemory(1);
    await app.memory.acceptMemory(7);
    expect(badges()).toEqual([]);
  });

  it('stays quiet when memory cannot be listed after a turn', async () => {
    const { backend } = fakeBackend({
      getSession: async () => WEEKEND,
      listMessages: async () => ({ messages: [], next_before: null }),
      listSessions: async () => ({ sessions: [WEEKEND], next_cursor: null }),
      sendMessage: async (_sid: number, _content: string, sink: (e: TurnEvent) => void) => sink({ type: 'done', message: inWeekend({ id: 50, role: 'assistant' }) }),
    });
    const app = new App(backend);
    app.sessions.projects = [{ project: PROJECT, sessions: [WEEKEND], nextCursor: null, loaded: true, loading: false, expanded: true }];
    app.chat.session = WEEKEND;
    expect(await app.chat.send('hello')).toBe(true);
    await sleep(20);
    expect(document.querySelector('.toast-error')).toBeNull();
  });
});

describe('the memory setting', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('offers off, review first (the default) and automatic, each explained, and saves the choice', async () => {
    const { backend, calls } = fakeBackend({
      listModels: async () => [],
      updateSettings: async (patch) => settingsView({ ...(patch as object), memory_mode: patch.memory_mode ?? 'review' }),
    });
    const app = new App(backend);
    app.config.settings = settingsView();
    openSettingsDialog(app, 'memory');
    const dialog = document.querySelector('dialog')!;
    const group = dialog.querySelector<HTMLElement>('[data-testid=memory-mode]')!;
    expect(group.closest<HTMLElement>('.pane')!.hidden).toBe(false);
    const choices = [...group.querySelectorAll('.choice')].map((c) => [c.querySelector('.choice-label')?.textContent, c.querySelector('.field-hint')?.textContent]);
    expect(choices).toEqual([
      ['Off', 'The model cannot save facts. You can still add them yourself.'],
      ['Review firstdefault', 'Proposals wait in the Memory panel; only the ones you accept are used.'],
      ['Automatic', 'Facts the model proposes are saved and used at once.'],
    ]);
    const radio = (mode: string) => group.querySelector<HTMLInputElement>(`[data-testid=memory-mode-${mode}]`)!;
    expect(radio('review').checked).toBe(true);
    radio('auto').checked = true;
    radio('auto').dispatchEvent(new Event('change', { bubbles: true }));
    await sleep(10);
    expect(calls.filter((c) => c.method === 'updateSettings').map((c) => c.args[0])).toEqual([{ memory_mode: 'auto' }]);
    expect(app.config.settings?.memory_mode).toBe('auto');
  });

  it('speaks Korean', () => {
    setLanguage('ko');
    const { backend } = fakeBackend({ listModels: async () => [] });
    const app = new App(backend);
    app.config.settings = settingsView({ language: 'ko', memory_mode: 'off' });
    openSettingsDialog(app, 'memory');
    const group = document.querySelector<HTMLElement>('[data-testid=memory-mode]')!;
    expect([...group.querySelectorAll('.choice-label')].map((c) => c.firstChild?.textContent)).toEqual(['끄기', '먼저 검토', '자동']);
    expect(group.querySelector<HTMLInputElement>('[data-testid=memory-mode-off]')!.checked).toBe(true);
    expect([...document.querySelectorAll('.tab')].map((b) => b.textContent)).toContain('기억');
  });
});
