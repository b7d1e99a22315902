// A project linked to a folder on disk: linking it in the project's dialog (by a typed path, or by
// the desktop window's folder picker), unlinking it, a refused path in the UI's language, and the
// folder's mirrored files, which follow the disk and so cannot be deleted on their own.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/backend/backend';
import type { Attachment, Project, ProjectPatch } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { openProjectDialog } from '../src/views/projectDialog';
import { appInProject } from './fakeBackend';

// The desktop window's IPC, and whether the page runs in it (as in ipc.test.ts).
const tauri = vi.hoisted(() => ({ invoke: vi.fn() }));
vi.mock('@tauri-apps/api/core', () => ({ invoke: tauri.invoke, Channel: class {} }));
/** In the desktop window or not, as Tauri says it on the page. */
const inWindow = (yes: boolean) => void ((globalThis as { isTauri?: boolean }).isTauri = yes);

const WORK: Project = { id: 2, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const DEFAULT: Project = { ...WORK, id: 1, name: 'Default', is_default: true };

function file(over: Partial<Attachment>): Attachment {
  return {
    id: 1, session_id: null, project_id: 2, name: 'a.txt', kind: 'text', mime: 'text/plain', size: 2048, pages: null, sha256: 'x', status: 'ready',
    note: null, note_reason: null, created_at: 0, folder_path: null, ...over,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Work project's dialog on a server that keeps the folder it is sent, unless `refuse` says why not. */
async function openWork(opts: { project?: Project; files?: Attachment[]; refuse?: ApiError } = {}) {
  let stored = opts.project ?? WORK;
  const { app, calls } = appInProject({
    updateProject: async (_id: number, patch: ProjectPatch) => {
      if (opts.refuse) throw opts.refuse;
      if (patch.exclude?.some((p) => p.includes('{'))) throw new ApiError('invalid_exclude', `"${patch.exclude.find((p) => p.includes('{'))}" is not a pattern of paths`, 400, { pattern: 'src/{a,b' });
      stored = { ...stored, ...('folder' in patch ? { folder: patch.folder ?? null } : {}), ...(patch.exclude ? { exclude: patch.exclude } : {}),
        ...(patch.tool_approval ? { tool_approval: patch.tool_approval } : {}) };
      return stored;
    },
    listProjects: async () => [stored],
    listAttachments: async () => opts.files ?? [],
  }, stored);
  openProjectDialog(app, stored);
  await sleep(0);
  const q = <E extends Element = HTMLElement>(testId: string) => document.querySelector<E>(`[data-testid=${testId}]`);
  const patches = () => calls.filter((c) => c.method === 'updateProject').map((c) => c.args);
  return { app, q, patches };
}

describe("a project's folder in its dialog", () => {
  beforeEach(() => {
    setLanguage('en');
    inWindow(false);
    tauri.invoke.mockReset();
    document.body.replaceChildren();
  });
  afterEach(() => document.body.replaceChildren());

  it('links the folder whose path is typed, and shows it as the linked one', async () => {
    const { app, q, patches } = await openWork();
    expect(q('folder-current')?.textContent, 'an unlinked project says so').toBe('No folder');
    expect(q('project-folder')?.textContent, 'the row says in one sentence what linking does').toContain(
      'Maru reads the folder’s AGENTS.md and CLAUDE.md as instructions and keeps its files as this project’s files.');
    expect(q('folder-choose'), 'a browser has no folder picker: the path is typed or pasted').toBeNull();

    q<HTMLInputElement>('folder-input')!.value = '  /home/me/site ';
    q<HTMLButtonElement>('folder-link')!.click();
    await sleep(0);
    expect(patches(), 'the server is asked to link the path as typed, without the spaces around it').toEqual([[2, { folder: '/home/me/site' }]]);
    expect(q('folder-current')?.textContent, 'the dialog shows the folder now linked').toBe('/home/me/site');
    expect(q<HTMLInputElement>('folder-input')!.value, 'the field is emptied for another path').toBe('');
    expect(app.sessions.entry(2)?.project.folder, 'the sidebar’s project follows, for the next dialog').toBe('/home/me/site');
    expect(q('folder-error')!.hidden, 'nothing went wrong').toBe(true);
  });

  it('unlinks a linked folder only after saying what goes, and then says what went', async () => {
    const mirrored = [1, 2, 3].map((id) => file({ id, name: `f${id}.md`, folder_path: `docs/f${id}.md` }));
    const { q, patches } = await openWork({ project: { ...WORK, folder: '/home/me/site' }, files: [...mirrored, file({ id: 9, name: 'mine.txt' })] });
    expect(q('folder-current')?.textContent, 'the linked folder is shown').toBe('/home/me/site');
    q<HTMLButtonElement>('folder-unlink')!.click();
    await sleep(0);
    const confirm = document.querySelector<HTMLDialogElement>('dialog.dialog-confirm[open]')!;
    expect(confirm, 'Unlink asks first').not.toBeNull();
    expect(confirm.textContent, 'and says what goes, and what does not').toContain('Unlinking removes the 3 files mirrored from this folder from the project.');
    expect(confirm.textContent, 'the folder on disk is safe').toContain('the folder itself is not touched');
    expect(patches(), 'nothing is unlinked while the question is open').toEqual([]);
    confirm.querySelector<HTMLButtonElement>('.btn-danger')!.click();
    await sleep(0);
    expect(patches(), 'unlinking sends a null folder').toEqual([[2, { folder: null }]]);
    expect(q('folder-current')?.textContent, 'the project follows no folder any more').toBe('No folder');
    expect(q('folder-unlink'), 'there is nothing left to unlink').toBeNull();
    expect(q('folder-said')?.textContent, 'the view says what the unlink did').toContain('The 3 files mirrored from it were removed from the project');
  });

  it('unlinks nothing when the question is cancelled', async () => {
    const { q, patches } = await openWork({ project: { ...WORK, folder: '/home/me/site' } });
    q<HTMLButtonElement>('folder-unlink')!.click();
    await sleep(0);
    document.querySelector<HTMLDialogElement>('dialog.dialog-confirm[open]')!.close();
    await sleep(0);
    expect(patches(), 'Cancel cancels').toEqual([]);
    expect(q('folder-current')?.textContent, 'the folder stays linked').toBe('/home/me/site');
  });

  it('says why a path was refused, beside it, in the UI’s language', async () => {
    const refuse = new ApiError('invalid_folder', '/nope is not a folder', 400);
    for (const [lang, words] of [['en', '/nope is not a folder'], ['ko', '이 폴더는 연결할 수 없습니다. 마루가 읽을 수 있는 폴더의 전체 경로를 입력하세요.']]) {
      setLanguage(lang);
      document.body.replaceChildren();
      const { q } = await openWork({ refuse });
      q<HTMLInputElement>('folder-input')!.value = '/nope';
      q<HTMLButtonElement>('folder-link')!.click();
      await sleep(0);
      const error = q('folder-error')!;
      expect(error.hidden, `${lang}: the refusal is shown where the path was typed`).toBe(false);
      expect(error.textContent, `${lang}: the refusal is in words the user reads`).toBe(words);
      expect(q<HTMLInputElement>('folder-input')!.value, `${lang}: the path stays, to be corrected`).toBe('/nope');
      expect(q<HTMLButtonElement>('folder-link')!.disabled, `${lang}: the user can try again`).toBe(false);
    }
  });

  it('in the desktop window, links the folder chosen in the system’s picker', async () => {
    inWindow(true);
    tauri.invoke.mockResolvedValue('/Users/me/Projects/site');
    const { q, patches } = await openWork();
    q<HTMLButtonElement>('folder-choose')!.click();
    await sleep(0);
    expect(tauri.invoke, 'the picker is asked for a folder, titled with the project').toHaveBeenCalledWith('pick_folder', { title: 'Choose the folder for “Work”' });
    expect(patches(), 'the chosen folder is linked at once').toEqual([[2, { folder: '/Users/me/Projects/site' }]]);
    expect(q('folder-current')?.textContent, 'the dialog shows the chosen folder').toBe('/Users/me/Projects/site');
  });

  it('a cancelled picker links nothing', async () => {
    inWindow(true);
    tauri.invoke.mockResolvedValue(null);
    const { q, patches } = await openWork();
    q<HTMLButtonElement>('folder-choose')!.click();
    await sleep(0);
    expect(patches(), 'nothing was chosen, so nothing is sent').toEqual([]);
    expect(q('folder-current')?.textContent, 'the project still follows no folder').toBe('No folder');
  });

  it('is not offered for the Default project', async () => {
    const { q } = await openWork({ project: DEFAULT });
    expect(q('project-folder'), 'the server refuses to link the Default project').toBeNull();
  });

  it('speaks Korean', async () => {
    setLanguage('ko');
    const { q } = await openWork();
    expect(q('folder-current')?.textContent, 'an unlinked project says so in Korean').toBe('연결된 폴더 없음');
    expect(q('folder-link')?.textContent, 'the button is in Korean').toBe('연결');
    expect(q('project-folder')?.textContent, 'what linking does, in Korean').toContain('마루가 폴더의 AGENTS.md와 CLAUDE.md를 지침으로 읽고');
  });
});

describe("a linked folder's files", () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('show under their folders, named once, and cannot be deleted on their own', async () => {
    const mirrored = file({ id: 7, name: 'main.rs', folder_path: 'src/main.rs' });
    const uploaded = file({ id: 8, name: 'notes.txt' });
    const { q } = await openWork({ project: { ...WORK, folder: '/home/me/site' }, files: [mirrored, uploaded] });
    const folder = document.querySelector<HTMLElement>('[data-testid=tree-folder][data-path=src]')!;
    expect(folder, 'the folder src is a row of the tree').not.toBeNull();
    expect(folder.querySelector('[data-testid=file]'), 'a closed folder draws no rows under it').toBeNull();
    folder.querySelector<HTMLButtonElement>('button')!.click();
    const row = (id: number) => document.querySelector<HTMLElement>(`[data-testid=file][data-file-id="${id}"]`)!;
    expect(row(7).querySelector('[data-testid=file-name]')?.textContent, 'opened, it shows its file by name').toBe('main.rs');
    expect(row(7).textContent, 'the path is the tree’s, not repeated on the row').not.toContain('src/main.rs');
    expect(row(7).querySelector('[data-testid=file-delete]'), 'deleting it would only bring it back with the next sync').toBeNull();
    expect(row(7).querySelector('[data-testid=file-download]'), 'it can still be downloaded').not.toBeNull();
    expect(q('folder-files')?.contains(row(7)), 'under “From the folder”').toBe(true);
    expect(q('hand-files')?.contains(row(8)), 'a file added by hand is listed apart').toBe(true);
    expect(row(8).querySelector('[data-testid=file-delete]'), 'and is still deleted here').not.toBeNull();
    expect(q('folder-current')?.textContent, 'the view says which folder the files come from').toBe('/home/me/site');
  });

  it('speak Korean', async () => {
    setLanguage('ko');
    await openWork({ files: [file({ id: 7, name: 'main.rs', folder_path: 'src/main.rs' }), file({ id: 8, name: 'notes.txt' })] });
    expect(document.querySelector('[data-testid=folder-files] h4')?.textContent, 'the group is named in Korean').toBe('폴더에서 가져온 파일');
    expect(document.querySelector('[data-testid=tree-summary]')?.textContent, 'and counted in Korean').toBe('파일 1개');
  });
});

describe('the paths a project leaves out of its folder', () => {
  beforeEach(() => {
    setLanguage('en');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    document.body.replaceChildren();
  });
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  const type = (field: HTMLTextAreaElement, text: string) => {
    field.value = text;
    field.dispatchEvent(new Event('input'));
  };

  it('are saved as typed, one pattern a line, and say so', async () => {
    const { app, q, patches } = await openWork({ project: { ...WORK, folder: '/home/me/site', exclude: ['vendor/'] } });
    const field = q<HTMLTextAreaElement>('folder-exclude')!;
    expect(field.value, 'the saved patterns are shown, one a line').toBe('vendor/');
    type(field, 'vendor/\n\n  *.log  \n');
    expect(patches(), 'nothing is sent while the user is still typing').toEqual([]);
    await vi.advanceTimersByTimeAsync(800);
    expect(patches(), 'after a pause the lines are saved, trimmed, blank ones dropped').toEqual([[2, { exclude: ['vendor/', '*.log'] }]]);
    expect(q('folder-exclude-said')?.textContent, 'the user is told it is saved and that the files follow').toBe('Saved: 2 patterns leave paths out. The files follow.');
    expect(app.sessions.entry(2)?.project.exclude, 'the project keeps them for the next opening').toEqual(['vendor/', '*.log']);
    field.dispatchEvent(new Event('change'));
    await vi.advanceTimersByTimeAsync(0);
    expect(patches().length, 'leaving the field unchanged sends nothing more').toBe(1);
  });

  it('refuse a line that is not a pattern, naming it in the UI’s language, and keep what was saved', async () => {
    setLanguage('ko');
    const { app, q, patches } = await openWork({ project: { ...WORK, folder: '/home/me/site', exclude: ['vendor/'] } });
    const field = q<HTMLTextAreaElement>('folder-exclude')!;
    type(field, 'vendor/\nsrc/{a,b');
    field.dispatchEvent(new Event('change'));
    await vi.advanceTimersByTimeAsync(0);
    expect(patches().length, 'leaving the field saves at once').toBe(1);
    const problem = q('folder-exclude-error')!;
    expect(problem.hidden, 'the refusal is shown beside the field').toBe(false);
    expect(problem.textContent, 'in Korean, naming the line to fix').toContain('“src/{a,b” 줄은 저장할 수 없습니다');
    expect(field.value, 'what the user typed stays, to be fixed').toBe('vendor/\nsrc/{a,b');
    expect(app.sessions.entry(2)?.project.exclude, 'the saved patterns are unchanged').toEqual(['vendor/']);
  });
});

describe('a project’s tool servers, in its settings', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });
  afterEach(() => document.body.replaceChildren());

  const tick = (box: HTMLInputElement) => {
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change'));
  };

  it('lets tools that only read run without asking, saved as it is ticked', async () => {
    const { app, q, patches } = await openWork();
    const box = q<HTMLInputElement>('read-only-tools-run')!;
    expect(box.checked, 'every call asks until the user says otherwise').toBe(false);
    expect(q('project-tools')?.textContent, 'it says whose word “read-only” is').toContain('A tool only reads when its server says so; Maru cannot check it.');
    tick(box);
    await sleep(0);
    expect(patches(), 'saved at once, no Save button').toEqual([[2, { tool_approval: 'read_only_runs' }]]);
    expect(app.sessions.entry(2)?.project.tool_approval, 'the project keeps it for the next opening').toBe('read_only_runs');
    tick(box);
    await sleep(0);
    expect(patches().at(-1), 'and unticking asks again').toEqual([2, { tool_approval: 'ask' }]);
  });

  it('puts the box back when the save fails, and says it in Korean too', async () => {
    setLanguage('ko');
    const { q } = await openWork({ refuse: new ApiError('internal', 'the database is busy', 500) });
    expect(q('project-tools')?.textContent).toContain('읽기만 하는 도구는 묻지 않고 실행');
    const box = q<HTMLInputElement>('read-only-tools-run')!;
    tick(box);
    await sleep(0);
    expect(box.checked, 'what the box shows is what is saved').toBe(false);
  });
});
