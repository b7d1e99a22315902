// The way to a project's settings (and the New project dialog) from anywhere in the window: the
// settings, the files' tree and the instructions files are a chunk of their own, loaded when first
// opened, as Settings are (settingsLink.ts).

import type { App } from '../app';
import type { Project } from '../backend/types';
import { t } from '../lib/i18n';
import type { ProjectFocus } from './projectDialog';
import { toast } from './toast';

let opening = false;

/** The new project's dialog, or `project`'s settings at `focus` (once their code is there). */
export function openProjectDialog(app: App, project?: Project, focus?: ProjectFocus): void {
  if (opening) return;
  opening = true;
  import('./projectDialog').then((m) => m.openProjectDialog(app, project, focus), (e: unknown) => {
    console.error('Maru: the project settings did not load', e);
    toast(t('offlineBody'), 'error');
  }).finally(() => {
    opening = false;
  });
}

/** Fetches their code ahead of the first opening (see `preloadViews`). */
export function preloadProjectDialog(): void {
  import('./projectDialog').catch(() => {});
}
