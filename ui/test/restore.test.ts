// Restoring a backup from Settings → Data: the user chooses the zip, is told in plain words what
// happens (the data they have now is kept, nothing is deleted), and either sees the refusal in
// their language with nothing changed, or sees what came back and where the old data is kept
// while Maru restarts, and then the page reloads on the restored data. In English and Korean.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app';
import { ApiError, type Backend } from '../src/backend/backend';
import type { Project, RestoredBackup } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { afterRestore } from '../src/views/dataPane';
import { mountBanner } from '../src/views/layout';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { fakeBackend, settingsView } from './fakeBackend';

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const KEPT_AS = '/home/me/.local/share/maru-before-restore-2026-12-01-170501';
const RESTORED: RestoredBackup = {
  created_at: Date.UTC(2026, 10, 30, 12, 15), projects: 3, sessions: 12, messages: 1234, memories: 4, tool_servers: 1, files: 1,
  data_dir: '/home/me/.local/share/maru', kept_as: KEPT_AS,
};
const BACKUP = new File(['PK'], 'maru-backup-20261130-091500.zip', { type: 'application/zip' });
const original = { ...afterRestore };

/** An app whose server restores as `methods` say; the page's reload is counted, not done. */
function setup(methods: Partial<Backend>) {
  const { backend, calls } = fakeBackend(methods);
  const app = new App(backend);
  app.config.settings = settingsView();
  app.sessions.projects = [{ project: DEFAULT, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: true }];
  const reload = vi.fn();
  Object.assign(afterRestore, { reload, desktop: () => false });
  const sent = () => calls.filter((c) => c.method === 'restoreBackup');
  const asked = () => calls.filter((c) => c.method === 'health').length;
  return { app, calls, reload, sent, asked };
}

/** Lets the fake server's answers and the page's awaits run (and `ms` of the fake clock pass). */
const settle = (ms = 20) => vi.advanceTimersByTimeAsync(ms);

/** Opens Settings → Data and chooses `file` in the restore's file input. */
async function choose(app: App, file = BACKUP) {
  openSettingsDialog(app, 'data');
  const picker = document.querySelector<HTMLInputElement>('[data-testid=restore-file]')!;
  Object.defineProperty(picker, 'files', { value: [file], configurable: true });
  picker.dispatchEvent(new Event('change'));
  await settle();
}

/** The confirm dialog (opened over the settings). */
const confirmation = () => document.querySelector<HTMLDialogElement>('dialog.dialog-confirm[open]');

/** Answers the confirm dialog by its button's words. */
async function answer(words: string) {
  const button = [...confirmation()!.querySelectorAll('button')].find((b) => b.textContent === words);
  expect(button, `the confirm dialog offers “${words}”`).toBeDefined();
  button!.click();
  await settle();
}

const text = (testid: string) => document.querySelector(`[data-testid=${testid}]`)?.textContent ?? null;

describe('restoring a backup', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    setLanguage('en');
  });
  afterEach(() => {
    vi.useRealTimers();
    Object.assign(afterRestore, original);
    document.body.replaceChildren();
  });

  it('is offered in Settings → Data, with the terminal command kept for backups over the upload limit', () => {
    const { app } = setup({});
    openSettingsDialog(app, 'data');
    expect(text('restore-backup'), 'the user finds the restore where the backup is made').toBe('Restore a backup…');
    expect(document.querySelector<HTMLInputElement>('[data-testid=restore-file]')?.accept, 'the chooser offers zip files, as backups are').toContain('.zip');
    expect(text('restore-command'), 'a backup too large to upload can still be restored from a terminal').toMatch(/^maru restore .*--data-dir/);
  });

  it('asks first, in plain words: Maru checks the backup, restarts on it, and keeps the data you have now', async () => {
    const { app, sent } = setup({});
    await choose(app);
    const said = confirmation()?.textContent ?? '';
    expect(said, 'the user knows the backup is checked before anything changes').toContain('Maru first checks maru-backup-20261130-091500.zip, then restarts on it');
    expect(said, 'the user knows nothing they have now is deleted').toContain('The data you have now is not deleted: it is kept whole in a folder beside it.');
    expect(said, 'the user knows what to redo afterwards').toContain('Tool servers come back turned off, and the API keys of your model servers must be entered again.');
    await answer('Cancel');
    expect(sent(), 'cancelling sends nothing: the data stays as it is').toEqual([]);

    document.body.replaceChildren();
    setLanguage('ko');
    await choose(setup({}).app);
    expect(confirmation()?.textContent, 'a Korean user is told the same in Korean').toContain('지금 데이터는 지우지 않고 옆 폴더에 그대로 보관합니다.');
    expect([...confirmation()!.querySelectorAll('button')].map((b) => b.textContent), 'and answers in Korean').toEqual(['×', '취소', '복원']);
  });

  it('says the backup is being checked, and cannot be sent twice meanwhile', async () => {
    const { app, sent } = setup({ restoreBackup: () => new Promise<RestoredBackup>(() => {}) });
    await choose(app);
    await answer('Restore');
    const button = document.querySelector<HTMLButtonElement>('[data-testid=restore-backup]')!;
    expect(button.textContent, 'a large backup takes a while: the user sees it is being worked on').toBe('Checking the backup…');
    expect(button.disabled, 'a second click cannot start a second restore').toBe(true);
    expect(sent()[0]?.args[0], 'the chosen zip is what is sent').toBe(BACKUP);
  });

  it('shows a refusal in the UI’s language, changes nothing and does not reload the page', async () => {
    const refuse = () => {
      throw new ApiError('not_a_backup', 'maru-backup-20261130-091500.zip is not a Maru backup: it has no manifest.json.', 400);
    };
    const en = setup({ restoreBackup: async () => refuse() });
    await choose(en.app);
    await answer('Restore');
    expect(text('restore-error'), 'in English, the server’s own sentence, the most specific').toBe('maru-backup-20261130-091500.zip is not a Maru backup: it has no manifest.json.');
    expect(document.querySelector('[data-testid=restore-error]')?.getAttribute('role'), 'read out as soon as it shows').toBe('alert');
    const button = document.querySelector<HTMLButtonElement>('[data-testid=restore-backup]')!;
    expect([button.disabled, button.textContent], 'the user can choose another file at once').toEqual([false, 'Restore a backup…']);
    expect(document.querySelector('[data-testid=restored-what]'), 'nothing was restored, so nothing says so').toBeNull();
    await settle(5000);
    expect(en.asked(), 'Maru does not restart after a refusal: nothing to wait for').toBe(0);
    expect(en.reload, 'the page stays as it is').not.toHaveBeenCalled();

    document.body.replaceChildren();
    setLanguage('ko');
    const ko = setup({ restoreBackup: async () => refuse() });
    await choose(ko.app);
    await answer('복원');
    expect(text('restore-error'), 'a Korean user reads why in Korean, with the server’s specifics').toBe('마루 백업 파일이 아닙니다. (maru-backup-20261130-091500.zip is not a Maru backup: it has no manifest.json.)');
    expect(ko.reload).not.toHaveBeenCalled();
  });

  it('says a backup over the upload limit is restored with the terminal command, in both languages', async () => {
    const tooLarge = async (): Promise<RestoredBackup> => {
      throw new ApiError('file_too_large', 'the backup is larger than Maru takes over the network (1025 MB); restore it with `maru restore`', 400, { file: 'backup', max_mb: '1025' });
    };
    await choose(setup({ restoreBackup: tooLarge }).app);
    await answer('Restore');
    expect(text('restore-error'), 'the user learns what to do instead of a dead end').toBe('This backup is larger than 1,025 MB, the most Maru takes through the page. Restore it from a terminal with the command below.');

    document.body.replaceChildren();
    setLanguage('ko');
    await choose(setup({ restoreBackup: tooLarge }).app);
    await answer('복원');
    expect(text('restore-error'), 'not the attachments’ sentence: a backup is not attached').toBe('이 백업은 페이지로 받을 수 있는 최대 크기(1,025MB)보다 큽니다. 아래 명령으로 터미널에서 복원하세요.');
  });

  it('shows what came back and where the old data is kept, then reloads once the restarted Maru answers', async () => {
    // The old process answers once more while it closes, then nothing answers, then the new one does.
    const answers = ['old', 'down', 'down', 'new'];
    const { app, reload, asked } = setup({
      restoreBackup: async () => RESTORED,
      health: async () => {
        if (answers.shift() === 'down') throw new ApiError('offline', 'Cannot reach Maru.');
        return { status: 'ok', version: '0.1.0', schema_version: 21 };
      },
    });
    await choose(app);
    await answer('Restore');
    expect(document.querySelector('dialog.settings, [data-testid=restore-backup]'), 'the settings close: they showed the data that was replaced').toBeNull();
    expect(text('restored-what'), 'the user sees that the backup they meant came back, and what is in it')
      .toMatch(/^Back as it was on Nov 30, 2026, \d+:15 [AP]M: 3 projects, 12 chats, 1,234 messages, 1 file\.$/);
    expect(text('restored-kept-as'), 'the user knows where their previous data is').toBe(KEPT_AS);
    expect(document.querySelector('[data-testid=copy-kept-as]'), 'and can copy the folder to open it').not.toBeNull();
    expect(text('restart-status'), 'the user knows the wait is Maru restarting').toBe('Maru is restarting…');

    await settle(300);
    expect(asked(), 'Maru is asked whether it is back every 300 ms').toBe(1);
    expect(reload, 'an answer from the closing Maru is not the restored one: no reload yet').not.toHaveBeenCalled();
    await settle(600);
    expect(reload, 'while Maru restarts it does not answer: the failures are waited out').not.toHaveBeenCalled();
    await settle(300);
    expect(reload, 'the page reloads once the restarted Maru answers, to read the restored data afresh').toHaveBeenCalledTimes(1);
    await settle(3000);
    expect([asked(), reload.mock.calls.length], 'and then stops asking').toEqual([4, 1]);
  });

  it('while Maru restarts on purpose, the window says so, not that Maru cannot be reached', async () => {
    const { app } = setup({ restoreBackup: async () => RESTORED, health: () => new Promise(() => {}) });
    const banner = document.createElement('div');
    document.body.append(banner);
    mountBanner(app, banner);
    await choose(app);
    await answer('Restore');
    // Any request while Maru is away fails, as the changes feed's does.
    app.setReachable(false);
    expect(banner.hidden, 'the wait is shown').toBe(false);
    expect(banner.textContent, 'as the restart it is').toBe('Maru is restarting…');
    expect(banner.textContent, 'not as a fault').not.toContain('Cannot reach');
    setLanguage('ko');
    app.setReachable(true);
    app.setReachable(false);
    expect(banner.textContent).toBe('마루가 다시 시작하는 중…');
  });

  it('in Korean too', async () => {
    setLanguage('ko');
    const { app } = setup({ restoreBackup: async () => RESTORED, health: () => new Promise(() => {}) });
    await choose(app);
    await answer('복원');
    expect(text('restored-what')).toMatch(/^2026\. 11\. 30\. .*의 상태로 돌아왔습니다: 프로젝트 3개, 대화 12개, 메시지 1,234개, 파일 1개\.$/);
    expect(text('restored-kept-as')).toBe(KEPT_AS);
    expect(text('restart-status')).toBe('마루가 다시 시작하는 중…');
  });

  it('when Maru is not back within 30 s, says so and offers to reload', async () => {
    const { app, reload } = setup({ restoreBackup: async () => RESTORED, health: async () => { throw new ApiError('offline', 'Cannot reach Maru.'); } });
    await choose(app);
    await answer('Restore');
    await settle(29_000);
    expect(text('restart-status'), 'still waiting before the 30 s are up').toBe('Maru is restarting…');
    await settle(1_500);
    expect(text('restart-status'), 'the user is not left with a message that never changes').toBe('Maru has not come back after 30 seconds. Reload the page once it is running again. Reload the page');
    expect(reload).not.toHaveBeenCalled();
    document.querySelector<HTMLButtonElement>('[data-testid=reload-page]')!.click();
    expect(reload, 'the user can reload when they see Maru running').toHaveBeenCalledTimes(1);
  });

  it('in the desktop window keeps the message up: Maru closes the window and opens a new one itself', async () => {
    const { app, reload, asked } = setup({ restoreBackup: async () => RESTORED });
    afterRestore.desktop = () => true;
    await choose(app);
    await answer('Restore');
    expect(text('restart-status'), 'the user knows the window going away is expected').toBe('Maru is restarting: this window closes and a new one opens on the restored data.');
    await settle(31_000);
    expect([asked(), reload.mock.calls.length], 'nothing to poll or reload: the new window reads the restored data').toEqual([0, 0]);
  });
});
