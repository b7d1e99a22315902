// The settings' Data tab: a backup made (with how far it got) and restored (Maru restarting on
// it), a chat export or a project imported. Apart from exports.ts (what the sidebar's menus use),
// so that it loads with Settings, not with every window.

import type { App } from '../app';
import type { ImportedProject, RestoredBackup } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren } from '../lib/dom';
import { count, dateTime } from '../lib/format';
import { errorText, language, t } from '../lib/i18n';
import { inDesktop } from '../lib/platform';
import { confirmDialog, openDialog } from './dialog';
import { fetchAndSave } from './exports';
import { importFile } from './imports';
import { toast } from './toast';

/** How many of the entries left out a notice lists by name. */
const SKIPPED_SHOWN = 5;

/** What a project import did: its name and counts, then the entries left out, each with why. */
export function importedNotice(imported: ImportedProject, name: string): string {
  const lines = [t('projectImported', { name, chats: imported.chats, files: imported.files })];
  const { skipped } = imported;
  if (skipped.length) {
    lines.push(t('importSkipped', { n: skipped.length }));
    // The code's sentence in the UI's language (no server message: there is none per entry).
    for (const s of skipped.slice(0, SKIPPED_SHOWN)) lines.push(`${s.entry}: ${errorText({ code: s.code, message: '' })}`);
    if (skipped.length > SKIPPED_SHOWN) lines.push(t('importSkippedMore', { n: skipped.length - SKIPPED_SHOWN }));
  }
  return lines.join('\n');
}

/** Adds a project Maru exported as a zip as a new project, then shows it open and selected in
 *  the sidebar (a new chat in it) and says what came in and what was left out. */
export async function importProjectFile(app: App, file: File): Promise<void> {
  const imported = await app.attempt(() => app.exports.importProject(file, file.name));
  if (!imported) return;
  const { project } = imported;
  await app.attempt(() => app.sessions.refreshProjects());
  const entry = app.sessions.expandProject(project.id);
  app.chat.newChat(project.id);
  app.emit('sidebar');
  toast(importedNotice(imported, app.sessions.projectName(entry?.project ?? project)), 'info', imported.skipped.length ? { ms: 12000 } : {});
  if (entry) await app.attempt(() => app.sessions.loadSessions(project.id));
}

/** The command that restores a backup into a new folder: for backups larger than the upload limit. */
export const RESTORE_COMMAND = 'maru restore maru-backup-….zip --data-dir ~/maru-restored';

/** How the page follows Maru's restart after a restore. Tests replace its parts. */
export const afterRestore = {
  /** In the desktop window Maru closes the window and opens a new one itself: nothing to reload. */
  desktop: (): boolean => inDesktop(),
  /** Reads everything afresh from the restored data (the token stays in sessionStorage). */
  reload: (): void => window.location.reload(),
  /** How often, and how long at most, the page asks whether Maru is back. */
  pollMs: 300,
  waitMs: 30_000,
};

/**
 * Waits for Maru to answer again after a restore. The old process may still answer for a moment
 * while it closes (replies stopping, tool servers ending), so an answer counts only after a request
 * failed: from then on, whoever answers is the restarted Maru. True once it answered, false when
 * `waitMs` passed first.
 */
export async function waitForRestart(health: () => Promise<unknown>, { pollMs, waitMs } = afterRestore): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  let gone = false;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, pollMs));
    try {
      await health();
      if (gone) return true;
    } catch {
      // Not listening while it restarts: expected.
      gone = true;
    }
  }
  return false;
}

/** A refused restore in the UI's words. Too large a backup has its own sentence (the general one
 *  speaks of attachments), pointing at the terminal command below the button. */
function restoreRefusal(e: unknown): string {
  if (e instanceof ApiError && e.code === 'file_too_large' && e.params.max_mb) {
    return t('restoreTooLarge', { max_mb: count(Number(e.params.max_mb)) });
  }
  return errorMessage(e);
}

/** What came back and where the data it replaced is kept, while Maru restarts; then the page
 *  reloads on the restored data. */
function showRestored(app: App, restored: RestoredBackup): void {
  const status = h('p', { class: 'restart-status', role: 'status', 'data-testid': 'restart-status' });
  const copy = h('button', {
    class: 'btn btn-ghost btn-small', type: 'button', 'data-testid': 'copy-kept-as',
    onClick: async () => {
      try {
        await copyText(restored.kept_as);
        toast(t('copied'));
      } catch (e) {
        toast(String(e), 'error');
      }
    },
  }, icon('copy'), t('copy'));
  openDialog({
    title: t('restoredTitle'),
    className: 'dialog-restored',
    body: [
      h('p', { class: 'dialog-text', 'data-testid': 'restored-what' }, t('restoredWhat', {
        date: dateTime(restored.created_at), projects: count(restored.projects), sessions: count(restored.sessions),
        messages: count(restored.messages), files: count(restored.files),
      })),
      h('p', { class: 'dialog-text' }, t('restoredKeptAs')),
      h('div', { class: 'kept-as' }, h('pre', { class: 'code-line', 'data-testid': 'restored-kept-as' }, h('code', null, restored.kept_as)), copy),
      h('p', { class: 'hint' }, t('restoredAfter')),
      status,
    ],
  });
  if (afterRestore.desktop()) {
    status.textContent = t('restartingWindow');
    return;
  }
  status.textContent = t('restarting');
  void waitForRestart(() => app.exports.serverAnswers()).then((back) => {
    if (back) return afterRestore.reload();
    replaceChildren(status, t('restartSlow'), ' ',
      h('button', { class: 'link-btn', type: 'button', 'data-testid': 'reload-page', onClick: () => afterRestore.reload() }, t('reloadPage')));
  });
}

/** The Data tab's restore: choose a backup, confirm, upload it. A refusal is said under the button
 *  and changes nothing; a success closes the settings and follows Maru's restart. */
function restoreFieldset(app: App, closeSettings: () => void): HTMLElement {
  const label = h('span', null, t('restoreBackup'));
  const button = h('button', { class: 'btn', type: 'button', 'data-testid': 'restore-backup', onClick: () => picker.click() }, icon('upload'), label);
  const refusal = h('p', { class: 'field-error', role: 'alert', hidden: true, 'data-testid': 'restore-error' });
  const picker = h('input', { type: 'file', accept: 'application/zip,.zip', hidden: true, 'data-testid': 'restore-file' });
  picker.addEventListener('change', async () => {
    const file = picker.files?.[0];
    picker.value = '';
    if (!file) return;
    const sure = await confirmDialog({ title: t('restoreConfirmTitle'), body: t('restoreConfirmBody', { name: file.name }), confirm: t('restoreConfirm') });
    if (!sure) return;
    button.disabled = true;
    label.textContent = t('restoringBackup');
    refusal.hidden = true;
    try {
      const restored = await app.exports.restoreBackup(file, file.name);
      closeSettings();
      showRestored(app, restored);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) app.fail(e);
      else {
        refusal.textContent = restoreRefusal(e);
        refusal.hidden = false;
      }
      button.disabled = false;
      label.textContent = t('restoreBackup');
    }
  });
  return h('fieldset', { class: 'choices' },
    h('legend', null, t('dataRestoreHeading')),
    h('p', { class: 'hint' }, t('dataRestoreHint')),
    h('div', null, button),
    refusal,
    picker,
    h('p', { class: 'hint' }, t('dataRestoreTerminal')),
    h('pre', { class: 'code-line', 'data-testid': 'restore-command' }, h('code', null, RESTORE_COMMAND)),
  );
}

/** A backup's progress on its button: the seconds Maru takes to make it, then the megabytes
 *  received (of how many, when the server says). */
function backupProgress(label: HTMLElement): { got(bytes: number, total: number | null): void; stop(): void } {
  const started = Date.now();
  let received = false;
  const mb = (b: number) => (b / (1024 * 1024)).toLocaleString(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const tick = () => {
    if (!received) label.textContent = t('backingUpFor', { s: Math.round((Date.now() - started) / 1000) });
  };
  tick();
  const timer = window.setInterval(tick, 1000);
  return {
    got: (bytes, total) => {
      received = true;
      label.textContent = total ? t('backupReceived', { got: mb(bytes), total: mb(total) }) : t('backupReceivedSoFar', { got: mb(bytes) });
    },
    stop: () => window.clearInterval(timer),
  };
}

/** The settings' Data tab: back up, restore, import a chat or a project. The restore and both
 *  imports are file inputs, so they work in the desktop window too (WebKit shows the system's
 *  file chooser). `closeSettings` shows what comes in or back. */
export function dataPane(app: App, closeSettings: () => void): HTMLElement {
  const backupBtn = h('button', {
    class: 'btn', type: 'button', 'data-testid': 'backup-all',
    onClick: async () => {
      backupBtn.disabled = true;
      const progress = backupProgress(backupBtn.lastChild as HTMLElement);
      await fetchAndSave(app, () => app.exports.backup(progress.got));
      progress.stop();
      backupBtn.disabled = false;
      backupBtn.lastChild!.textContent = t('backUpEverything');
    },
  }, icon('download'), h('span', null, t('backUpEverything')));
  const picker = h('input', { type: 'file', accept: 'application/json,.json,application/zip,.zip', hidden: true, 'data-testid': 'import-file' });
  // Where an export's chats go: a project of their own ("Imported from ChatGPT") unless one is chosen.
  const into = h('select', { 'data-testid': 'import-into', 'aria-label': t('importInto') },
    h('option', { value: '' }, t('importIntoOwn')),
    ...app.sessions.projects.map((e) => h('option', { value: String(e.project.id) }, app.sessions.projectName(e.project))),
  );
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    picker.value = '';
    if (!file) return;
    closeSettings();
    void importFile(app, file, into.value ? Number(into.value) : null);
  });
  const projectPicker = h('input', { type: 'file', accept: 'application/zip,.zip', hidden: true, 'data-testid': 'import-project-file' });
  projectPicker.addEventListener('change', () => {
    const file = projectPicker.files?.[0];
    projectPicker.value = '';
    if (!file) return;
    closeSettings();
    void importProjectFile(app, file);
  });
  return h('div', { class: 'pane form' },
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataBackupHeading')),
      h('p', { class: 'hint' }, t('dataBackupHint')),
      h('div', null, backupBtn),
    ),
    restoreFieldset(app, closeSettings),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataImportHeading')),
      h('p', { class: 'hint' }, t('dataImportHint')),
      h('div', { class: 'import-row' },
        h('button', { class: 'btn', type: 'button', 'data-testid': 'import-chat', onClick: () => picker.click() }, icon('upload'), h('span', null, t('importChat'))),
        h('label', null, t('importInto'), ' ', into),
      ),
      picker,
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataImportProjectHeading')),
      h('p', { class: 'hint' }, t('dataImportProjectHint')),
      h('div', null, h('button', { class: 'btn', type: 'button', 'data-testid': 'import-project', onClick: () => projectPicker.click() }, icon('upload'), h('span', null, t('importProject')))),
      projectPicker,
    ),
  );
}
