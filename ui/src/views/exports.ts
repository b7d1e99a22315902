// Getting data out: a chat as Markdown or JSON, a project as a zip (the sidebar's menus), saved
// where the user says. Backing up, restoring and importing are the settings' Data tab (dataPane.ts).

import type { App } from '../app';
import type { DownloadedFile, ExportFormat, Project, Session } from '../backend/types';
import { t } from '../lib/i18n';
import { saveBlob } from '../lib/save';
import { toast } from './toast';

export async function fetchAndSave(app: App, get: () => Promise<DownloadedFile>): Promise<boolean> {
  const file = await app.attempt(get);
  if (!file) return false;
  const path = await app.attempt(() => saveBlob(file.blob, file.name));
  if (path === undefined) return false;
  toast(path ? t('savedTo', { path }) : t('exportSaved', { name: file.name }));
  return true;
}

export function exportChat(app: App, s: Session, format: ExportFormat): Promise<boolean> {
  return fetchAndSave(app, () => app.exports.exportChat(s.id, format));
}

export function exportProject(app: App, p: Project): Promise<boolean> {
  return fetchAndSave(app, () => app.exports.exportProject(p.id));
}
