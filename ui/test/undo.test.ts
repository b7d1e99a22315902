// Deleting a chat or a project can be undone for a few seconds: it goes from view at once, a
// notice offers Undo, and the server is asked to delete only when that has gone (or the page closes).

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { UNDO_MS } from '../src/state/undo';
import { appInProject } from './fakeBackend';

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 2, created_at: 0, updated_at: 0 };
const WORK: Project = { id: 2, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const TRIP: Session = { id: 9, project_id: 1, title: 'Trip to Busan', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const DINNER: Session = { id: 3, project_id: 1, title: 'Dinner', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

/** An app whose server holds two chats in Default and a Work project, and deletes on request. */
function setup() {
  let sessions = [TRIP, DINNER];
  let projects = [DEFAULT, WORK];
  const fake = appInProject({
    deleteSession: async (id: number) => {
      sessions = sessions.filter((s) => s.id !== id);
    },
    deleteProject: async (id: number) => {
      projects = projects.filter((p) => p.id !== id);
      return { id, moved_sessions: 0, default_project_id: 1 };
    },
    listSessions: async () => ({ sessions, next_cursor: null }),
    listProjects: async () => projects.map((p) => (p.id === 1 ? { ...p, session_count: sessions.length } : p)),
    getSession: async (id: number) => sessions.find((s) => s.id === id)!,
    listMessages: async () => ({ messages: [], next_before: null }),
    listAttachments: async () => [],
  }, DEFAULT, { sessions: [TRIP, DINNER] });
  fake.app.sessions.projects.push({ project: WORK, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false });
  const listed = () => fake.app.sessions.projects.flatMap((e) => e.sessions.map((s) => s.title));
  const deletes = (method: string) => fake.calls.filter((c) => c.method === method).map((c) => c.args);
  const undo = () => document.querySelector<HTMLElement>('[data-testid=toast-action]');
  return { ...fake, listed, deletes, undo };
}

describe('deleting a chat', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('hides it at once and deletes it only once Undo is no longer offered', async () => {
    const { app, listed, deletes, undo } = setup();
    await app.sessions.deleteSession(9);
    expect(listed(), 'gone from the sidebar at once').toEqual(['Dinner']);
    expect(app.sessions.projects[0].project.session_count).toBe(1);
    expect(deletes('deleteSession'), 'not deleted yet: Undo is offered').toEqual([]);
    expect(undo()?.closest('[data-testid=toast]')?.textContent).toContain('Deleted “Trip to Busan”');
    await vi.advanceTimersByTimeAsync(UNDO_MS + 50);
    expect(deletes('deleteSession')).toEqual([[9, false]]);
    expect(listed()).toEqual(['Dinner']);
    expect(undo(), 'the notice goes with its chance to undo').toBeNull();
  });

  it('Undo brings it back, reopened when it was open, and nothing is deleted', async () => {
    const { app, listed, deletes, undo } = setup();
    app.chat.session = TRIP;
    await app.sessions.deleteSession(9);
    expect(app.chat.session, 'the open chat leaves the view').toBeNull();
    undo()!.click();
    await vi.advanceTimersByTimeAsync(UNDO_MS + 50);
    expect(deletes('deleteSession'), 'a misclick loses nothing').toEqual([]);
    expect(listed().sort()).toEqual(['Dinner', 'Trip to Busan']);
    expect(app.chat.session?.id, 'and it is open again').toBe(9);
  });

  it('is sent as the page closes, to outlive it; not when the page is only put in the back-forward cache', async () => {
    const { app, deletes } = setup();
    await app.sessions.deleteSession(9);
    window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: true }));
    expect(deletes('deleteSession'), 'a cached page may come back with its Undo').toEqual([]);
    window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: false }));
    await vi.advanceTimersByTimeAsync(0);
    expect(deletes('deleteSession'), 'closing: sent at once, with keepalive').toEqual([[9, true]]);
    await vi.advanceTimersByTimeAsync(UNDO_MS + 50);
    expect(deletes('deleteSession').length, 'and only once').toBe(1);
  });
});

describe('deleting a project', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('hides it at once, offers Undo, and deletes it after', async () => {
    const { app, deletes, undo } = setup();
    await app.sessions.deleteProject(2);
    expect(app.sessions.projects.map((e) => e.project.name)).toEqual(['Default']);
    expect(deletes('deleteProject')).toEqual([]);
    undo()!.click();
    await vi.advanceTimersByTimeAsync(UNDO_MS + 50);
    expect(deletes('deleteProject'), 'undone: not deleted').toEqual([]);
    expect(app.sessions.projects.map((e) => e.project.name), 'and listed again').toEqual(['Default', 'Work']);
    await app.sessions.deleteProject(2);
    await vi.advanceTimersByTimeAsync(UNDO_MS + 50);
    expect(deletes('deleteProject')).toEqual([[2, false]]);
    expect(app.sessions.projects.map((e) => e.project.name)).toEqual(['Default']);
  });

  it('shows its chats in Default at once (counted, the open one’s header naming Default); Undo takes them back, the project open as it was', async () => {
    const PLAN: Session = { ...TRIP, id: 20, project_id: 2, title: 'Quarter plan', updated_at: 5 };
    const { app, listed, undo } = setup();
    const work = app.sessions.entry(2)!;
    work.project = { ...WORK, session_count: 1 };
    work.sessions = [PLAN];
    work.expanded = true;
    app.chat.session = PLAN;
    await app.sessions.deleteProject(2);
    expect(listed(), 'its chat is listed in Default now, not hidden for the seconds Undo is offered').toEqual(['Quarter plan', 'Trip to Busan', 'Dinner']);
    expect(app.sessions.entry(1)!.project.session_count, 'and counted there').toBe(3);
    expect(app.chat.currentProject()?.name, 'the open chat’s header names Default, not nothing').toBe('Default');
    undo()!.click();
    await vi.advanceTimersByTimeAsync(50);
    expect(app.chat.currentProject()?.name, 'undone: the chat is Work’s again').toBe('Work');
    expect(app.sessions.entry(1)!.sessions.map((s) => s.title), 'and gone from Default').toEqual(['Trip to Busan', 'Dinner']);
    expect(app.sessions.entry(2)?.expanded, 'the project open as it was').toBe(true);
  });
});
