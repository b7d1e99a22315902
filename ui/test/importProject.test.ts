// Importing a project from Settings → Data: the zip goes to the server, the new project shows in
// the sidebar, open and selected, and a notice says what came in and what was left out. In
// English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { ApiError } from '../src/backend/backend';
import type { ImportedProject, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { mountSidebar } from '../src/views/sidebar';
import { fakeBackend, settingsView } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const TRIP: Project = { id: 7, name: 'Trip (2)', instructions: 'Plan the trip.', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 3, created_at: 0, updated_at: 0 };
const CHATS: Session[] = ['Flights', 'Hotels', 'Budget'].map((title, i) => ({
  id: 70 + i, project_id: 7, title, preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: 1, temporary: false,
}));

/** An app with the sidebar mounted, whose server imports the zip as `answer` says. */
function setup(answer: () => ImportedProject) {
  let projects = [DEFAULT];
  const { backend, calls } = fakeBackend({
    importProject: async () => {
      const imported = answer();
      projects = [DEFAULT, imported.project];
      return imported;
    },
    listProjects: async () => projects,
    listAttachments: async () => [],
    listSessions: async (q) => ({ sessions: q.project_id === 7 ? CHATS : [], next_cursor: null }),
  });
  const app = new App(backend);
  app.config.settings = settingsView();
  app.sessions.projects = [{ project: DEFAULT, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: true }];
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  mountSidebar(app, root);
  return { app, root, calls };
}

/** Chooses `file` in Settings → Data's project import. */
async function importZip(app: App, file = new File(['PK'], 'trip.zip', { type: 'application/zip' })) {
  openSettingsDialog(app, 'data');
  const dialog = document.querySelector('dialog')!;
  const picker = dialog.querySelector<HTMLInputElement>('[data-testid=import-project-file]')!;
  Object.defineProperty(picker, 'files', { value: [file], configurable: true });
  picker.dispatchEvent(new Event('change'));
  await sleep(30);
  return file;
}

const notices = () => [...document.querySelectorAll('[data-testid=toast]')].map((el) => el.querySelector('.toast-text')!.textContent);

describe('importing a project', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => document.body.replaceChildren());

  it('is offered in Settings → Data beside the chat import, in both languages', () => {
    const { app } = setup(() => ({ project: TRIP, chats: 0, files: 0, skipped: [] }));
    openSettingsDialog(app, 'data');
    expect(document.querySelector('[data-testid=import-project]')?.textContent).toBe('Import a project (.zip)');
    expect(document.querySelector<HTMLInputElement>('[data-testid=import-project-file]')?.accept, 'the picker offers zips').toContain('.zip');
    document.body.replaceChildren();
    setLanguage('ko');
    openSettingsDialog(app, 'data');
    expect(document.querySelector('[data-testid=import-project]')?.textContent).toBe('프로젝트 가져오기 (.zip)');
  });

  it('sends the zip, then shows the new project open and selected in the sidebar, with its chats, and says what came in', async () => {
    const { app, root, calls } = setup(() => ({ project: TRIP, chats: 3, files: 5, skipped: [] }));
    const file = await importZip(app);
    expect(calls.find((c) => c.method === 'importProject')?.args[0], 'the chosen zip is what is sent').toBe(file);
    expect(document.querySelector('dialog[open]'), 'the settings close to show the sidebar').toBeNull();

    const row = root.querySelector<HTMLElement>('[data-project-id="7"]');
    expect(row, 'the new project is listed without a reload').not.toBeNull();
    expect(row!.textContent).toContain('Trip (2)');
    expect(app.sessions.entry(7)?.expanded, 'the new project is open').toBe(true);
    expect(app.chat.currentProject()?.id, 'and selected: a new chat goes into it').toBe(7);
    expect([...root.querySelectorAll('[data-session-id]')].map((el) => el.textContent).join(' '), 'its chats are listed').toMatch(/Flights.*Hotels.*Budget/);
    expect(notices()).toEqual(['Imported “Trip (2)”: 3 chats, 5 files']);
  });

  it('lists the entries left out, each with why in the UI’s language', async () => {
    const skipped = [
      { entry: 'files/video.mp4', code: 'binary_file' },
      { entry: 'files/huge.pdf', code: 'file_too_large' },
    ];
    const { app } = setup(() => ({ project: TRIP, chats: 1, files: 0, skipped }));
    await importZip(app);
    expect(notices()[0]!.split('\n')).toEqual([
      'Imported “Trip (2)”: 1 chat, 0 files',
      '2 entries were left out:',
      'files/video.mp4: Maru cannot read this kind of file.',
      'files/huge.pdf: The file is too large.',
    ]);

    document.body.replaceChildren();
    setLanguage('ko');
    const ko = setup(() => ({ project: TRIP, chats: 3, files: 5, skipped }));
    await importZip(ko.app);
    expect(notices()[0]!.split('\n')).toEqual([
      '“Trip (2)” 프로젝트를 가져왔습니다: 대화 3개, 파일 5개',
      '2개 항목은 가져오지 않았습니다:',
      'files/video.mp4: 마루가 읽을 수 없는 종류의 파일입니다. 텍스트, PDF, 이미지 파일을 첨부하세요.',
      'files/huge.pdf: 파일이 너무 큽니다. 설정의 최대 크기를 확인하세요.',
    ]);
  });

  it('shows a refusal in the UI’s language and adds nothing', async () => {
    setLanguage('ko');
    const { app, root, calls } = setup(() => {
      throw new ApiError('unsupported_import_version', 'This project was exported by Maru format 9; this Maru reads format 1.', 400);
    });
    await importZip(app);
    const alert = document.querySelector('[data-testid=toast][role=alert] .toast-text');
    expect(alert?.textContent, 'the refusal is said in Korean, with the server’s specifics').toBe('다른 버전의 마루가 내보낸 파일이라서 가져올 수 없습니다. 마루를 업데이트하세요. (This project was exported by Maru format 9; this Maru reads format 1.)');
    expect(calls.some((c) => c.method === 'listProjects'), 'nothing came in, so nothing to refresh').toBe(false);
    expect(root.querySelector('[data-project-id="7"]')).toBeNull();

    // In English, the server's own sentence, which is the most specific.
    document.body.replaceChildren();
    setLanguage('en');
    const en = setup(() => {
      throw new ApiError('invalid_import', 'trip.zip is not a zip archive.', 400);
    });
    await importZip(en.app);
    expect(document.querySelector('[data-testid=toast][role=alert] .toast-text')?.textContent).toBe('trip.zip is not a zip archive.');
  });
});
