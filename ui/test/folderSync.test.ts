// A linked folder you can see: the project's files say how far the folder's sync got while it
// runs, and once done what it skipped (grey, with why) apart from what failed (red), in English
// and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment, FolderSync, Project } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { projectFilesSection } from '../src/views/projectFiles';
import { appInProject } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PROJECT: Project = { id: 3, name: 'Repo', instructions: '', is_default: false, folder: '/home/me/repo', exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const sync = (over: Partial<FolderSync>): FolderSync => ({ running: false, done: false, found: 0, read: 0, skipped: [], failed: [], error: null, ...over });

describe('a linked folder’s sync in the project’s files', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('shows its progress while it runs, then what it read, skipped (with why) and failed', async () => {
    const answers = [
      sync({ running: true, found: 1612, read: 120 }),
      sync({ done: true, found: 1612, read: 1612, skipped: [{ path: 'empty.txt', reason: 'empty' }, { path: 'logo.png', reason: 'not_readable_kind' }], failed: [{ path: 'locked.md', reason: 'unreadable: permission denied' }] }),
    ];
    let files: Attachment[] = [];
    const { app } = appInProject({ listAttachments: async () => files, folderSync: async () => answers.shift() ?? answers[0] ?? sync({ done: true }) }, PROJECT);
    const section = projectFilesSection(app, PROJECT);
    document.body.append(section.el);
    await sleep(10);
    const view = () => section.el.querySelector<HTMLElement>('[data-testid=folder-sync]')!;
    expect(view().textContent, 'while it runs: how many of the files found were read').toContain('Syncing the folder: 120 of 1,612 files read…');
    expect(section.el.textContent, 'not “No files” while the folder is being read').not.toContain('No files in this project.');
    files = [];
    await sleep(1100);
    expect(view().dataset.state, 'and when it is done').toBe('done');
    expect(view().textContent).toContain('The folder is synced: 1,612 files read.');
    const skipped = view().querySelector<HTMLElement>('[data-testid=folder-sync-skipped]')!;
    expect(skipped.querySelector('summary')?.textContent).toBe('2 files skipped');
    expect([...skipped.querySelectorAll('li')].map((li) => li.textContent), 'each skipped file says why, in words').toEqual(['empty.txt empty', 'logo.png no text to read']);
    expect(skipped.classList.contains('folder-sync-failed'), 'skipped is not failed').toBe(false);
    const failed = view().querySelector<HTMLElement>('[data-testid=folder-sync-failed]')!;
    expect(failed.textContent, 'a file that could not be read is a failure, with its error').toContain('locked.md unreadable: permission denied');
    section.dispose();
  });

  it('speaks Korean', async () => {
    setLanguage('ko');
    let asked = 0;
    const { app } = appInProject({ listAttachments: async () => [], folderSync: async () => (asked++ === 0 ? sync({ running: true, found: 10, read: 3 }) : sync({ done: true, found: 10, read: 10 })) }, PROJECT);
    const section = projectFilesSection(app, PROJECT);
    await sleep(10);
    expect(section.el.querySelector('[data-testid=folder-sync]')?.textContent).toContain('폴더 동기화 중: 파일 10개 중 3개 읽음…');
    section.dispose();
  });
});
