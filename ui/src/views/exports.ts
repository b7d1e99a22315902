// Getting data out and back in: a chat as Markdown or JSON, a project as a zip, everything as a
// backup (the settings' Data tab, which also says how to restore, and imports a chat or a project).

import type { App } from '../app';
import type { DownloadedFile } from '../backend/backend';
import type { ChatExport, ExportFormat, ImportedProject, Project, Session } from '../backend/types';
import { h, icon } from '../lib/dom';
import { errorText, t } from '../lib/i18n';
import { saveBlob } from '../lib/save';
import { toast } from './toast';

async function fetchAndSave(app: App, get: () => Promise<DownloadedFile>): Promise<boolean> {
  const file = await app.attempt(get);
  if (!file) return false;
  const path = await app.attempt(() => saveBlob(file.blob, file.name));
  if (path === undefined) return false;
  toast(path ? t('savedTo', { path }) : t('exportSaved', { name: file.name }));
  return true;
}

export function exportChat(app: App, s: Session, format: ExportFormat): Promise<boolean> {
  return fetchAndSave(app, () => app.backend.exportChat(s.id, format));
}

export function exportProject(app: App, p: Project): Promise<boolean> {
  return fetchAndSave(app, () => app.backend.exportProject(p.id));
}

/** Reads a chat Maru exported as JSON and adds it as a new chat, then opens it. */
export async function importChatFile(app: App, file: File): Promise<void> {
  let chat: ChatExport;
  try {
    chat = JSON.parse(await file.text()) as ChatExport;
  } catch {
    toast(t('importNotJson'), 'error');
    return;
  }
  const session = await app.attempt(() => app.backend.importChat(chat));
  if (!session) return;
  toast(t('chatImported', { title: session.title || t('untitled') }));
  await app.attempt(() => app.reload());
  await app.openSession(session.id);
}

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
  const imported = await app.attempt(() => app.backend.importProject(file, file.name));
  if (!imported) return;
  const { project } = imported;
  await app.attempt(() => app.refreshProjects());
  const entry = app.expandProject(project.id);
  app.newChat(project.id);
  app.emit('sidebar');
  toast(importedNotice(imported, app.projectName(entry?.project ?? project)), 'info', imported.skipped.length ? { ms: 12000 } : {});
  if (entry) await app.attempt(() => app.loadSessions(project.id));
}

/** The command that restores a backup into a new folder. */
export const RESTORE_COMMAND = 'maru restore maru-backup-….zip --data-dir ~/maru-restored';

/** The settings' Data tab: back up, how to restore, import a chat or a project. Both imports are
 *  file inputs, so they work in the desktop window too. */
export function dataPane(app: App, onImport: () => void): HTMLElement {
  const backupBtn = h('button', {
    class: 'btn', type: 'button', 'data-testid': 'backup-all',
    onClick: async () => {
      backupBtn.disabled = true;
      backupBtn.lastChild!.textContent = t('backingUp');
      await fetchAndSave(app, () => app.backend.backup());
      backupBtn.disabled = false;
      backupBtn.lastChild!.textContent = t('backUpEverything');
    },
  }, icon('download'), h('span', null, t('backUpEverything')));
  const picker = h('input', { type: 'file', accept: 'application/json,.json', hidden: true, 'data-testid': 'import-file' });
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    picker.value = '';
    if (!file) return;
    onImport();
    void importChatFile(app, file);
  });
  const projectPicker = h('input', { type: 'file', accept: 'application/zip,.zip', hidden: true, 'data-testid': 'import-project-file' });
  projectPicker.addEventListener('change', () => {
    const file = projectPicker.files?.[0];
    projectPicker.value = '';
    if (!file) return;
    onImport();
    void importProjectFile(app, file);
  });
  return h('div', { class: 'pane form' },
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataBackupHeading')),
      h('p', { class: 'hint' }, t('dataBackupHint')),
      h('div', null, backupBtn),
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataRestoreHeading')),
      h('p', { class: 'hint' }, t('dataRestoreHint')),
      h('pre', { class: 'code-line', 'data-testid': 'restore-command' }, h('code', null, RESTORE_COMMAND)),
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('dataImportHeading')),
      h('p', { class: 'hint' }, t('dataImportHint')),
      h('div', null, h('button', { class: 'btn', type: 'button', 'data-testid': 'import-chat', onClick: () => picker.click() }, icon('upload'), h('span', null, t('importChat')))),
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
