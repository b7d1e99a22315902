// Importing ChatGPT's or Claude's history from Settings → Data: the file goes to the project the
// user chose, a corner panel shows how far the import is while the app stays usable, and a notice
// says what came in. In English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ImportJob, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import * as imports from '../src/views/imports';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { mountSidebar } from '../src/views/sidebar';
import { fakeBackend, settingsView } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const WORK: Project = { id: 4, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const CHAT: Session = { id: 40, project_id: 4, title: '모나드 설명', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: 1, temporary: false };

const job = (over: Partial<ImportJob>): ImportJob => ({
  id: 3, source: 'chatgpt', state: 'running', project_id: 4, conversations: 1200, done: 0, imported: 0, already_here: 0, skipped_messages: 0, error: null,
  ...over,
});

/** An app with the sidebar, whose server answers the import with `started`, then `progress` in turn. */
function setup(started: ImportJob, progress: ImportJob[]) {
  const { backend, calls } = fakeBackend({
    importFile: async () => started,
    importJob: async () => progress.shift() ?? progress[progress.length - 1] ?? started,
    listProjects: async () => [DEFAULT, WORK],
    listSessions: async (q) => ({ sessions: q.project_id === 4 ? [CHAT] : [], next_cursor: null }),
    listAttachments: async () => [],
  });
  const app = new App(backend);
  app.config.settings = settingsView();
  app.sessions.projects = [DEFAULT, WORK].map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  mountSidebar(app, root);
  return { app, root, calls };
}

/** Chooses `file` in Settings → Data's chat import, into `projectId` ('' for a project of its own). */
function choose(app: App, projectId: string, file = new File(['PK'], 'chatgpt-export.zip', { type: 'application/zip' })) {
  openSettingsDialog(app, 'data');
  const dialog = document.querySelector('dialog')!;
  const into = dialog.querySelector<HTMLSelectElement>('[data-testid=import-into]')!;
  into.value = projectId;
  const picker = dialog.querySelector<HTMLInputElement>('[data-testid=import-file]')!;
  Object.defineProperty(picker, 'files', { value: [file], configurable: true });
  picker.dispatchEvent(new Event('change'));
  return file;
}

const panel = () => document.querySelector<HTMLElement>('[data-testid=import-progress]');
const notices = () => [...document.querySelectorAll('[data-testid=toast] .toast-text')].map((el) => el.textContent);

describe('importing ChatGPT or Claude history', () => {
  const poll = imports.POLL_MS;
  beforeEach(() => setLanguage('en'));
  afterEach(() => document.body.replaceChildren());

  it('offers zips and JSON, and every project to import into, in both languages', () => {
    const { app } = setup(job({}), []);
    openSettingsDialog(app, 'data');
    const picker = document.querySelector<HTMLInputElement>('[data-testid=import-file]')!;
    expect(picker.accept, 'the export as downloaded is a zip').toContain('.zip');
    expect(picker.accept, 'or its conversations.json').toContain('.json');
    const options = [...document.querySelectorAll<HTMLOptionElement>('[data-testid=import-into] option')].map((o) => o.textContent);
    expect(options.slice(1), 'every project can receive the chats').toEqual(['Default', 'Work']);
    expect(options[0]).toBe('A project of its own');
    expect(document.querySelector('[data-testid=import-chat]')?.textContent).toBe('Import chats…');
    document.body.replaceChildren();
    setLanguage('ko');
    openSettingsDialog(app, 'data');
    expect(document.querySelector('[data-testid=import-chat]')?.textContent).toBe('대화 가져오기…');
    expect(document.querySelector('[data-testid=import-into] option')?.textContent).toBe('새 프로젝트');
  });

  it('sends the file to the project chosen, shows how far it is, then what came in with the project open', async () => {
    const { app, root, calls } = setup(job({}), [job({ done: 600 }), job({ state: 'done', done: 1200, imported: 1180, already_here: 20, skipped_messages: 37 })]);
    const file = choose(app, '4');
    await sleep(30);
    expect(calls.find((c) => c.method === 'importFile')?.args.slice(0, 2), 'the file goes to the chosen project').toEqual([file, 4]);
    expect(document.querySelector('dialog[open]'), 'the settings close: the app stays usable while it imports').toBeNull();
    expect(panel()?.textContent, 'a corner panel says how far the import is').toBe('Importing from ChatGPT: 0 of 1,200 conversations');
    await sleep(poll + 30);
    expect(panel()?.querySelector('progress')?.value, 'its bar follows the server').toBe(600);
    await sleep(poll + 60);
    expect(panel(), 'done: the panel goes').toBeNull();
    expect(notices()).toEqual(['Imported 1180 chats from ChatGPT · 20 were already here · 37 messages without text left out']);
    expect(app.sessions.entry(4)?.expanded, 'the project the chats went to is open').toBe(true);
    expect(root.querySelector('[data-session-id="40"]')?.textContent, 'with its chats listed').toContain('모나드 설명');
  });

  it('says in Korean why an import stopped', async () => {
    setLanguage('ko');
    const failed = job({ state: 'failed', done: 40, imported: 40, error: { code: 'internal', message: 'disk full', params: {} } });
    const { app, calls } = setup(job({ source: 'claude' }), [failed]);
    choose(app, '');
    await sleep(30);
    expect(calls.find((c) => c.method === 'importFile')?.args[1], 'no project chosen: the server makes one of its own').toBeNull();
    expect(panel()?.textContent).toBe('Claude에서 가져오는 중: 대화 1,200개 중 0개');
    await sleep(poll + 60);
    const alert = document.querySelector('[data-testid=toast][role=alert] .toast-text')?.textContent ?? '';
    expect(alert.startsWith('가져오기가 멈췄습니다:'), alert).toBe(true);
    expect(alert.endsWith('그전에 저장한 대화는 그대로 있습니다.'), 'the chats stored before the failure are said to stay').toBe(true);
  });
});
