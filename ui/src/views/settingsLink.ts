// The way to the Settings dialog from anywhere in the window. The dialog and the tabs only it
// shows (tool servers, skills, presets) are a chunk of their own, loaded when it is first opened:
// most windows never open it, and every window would parse it at start.

import type { App } from '../app';
import { t } from '../lib/i18n';
import type { Tab } from './settingsDialog';
import { toast } from './toast';

let opening = false;

/** Opens Settings at `tab` (once its code is there: a click while it loads opens it once). */
export function openSettingsDialog(app: App, tab?: Tab): void {
  if (opening) return;
  opening = true;
  import('./settingsDialog').then((m) => m.openSettingsDialog(app, tab), (e: unknown) => {
    console.error('Maru: the settings did not load', e);
    toast(t('offlineBody'), 'error');
  }).finally(() => {
    opening = false;
  });
}

/** Fetches the dialog's code ahead of its first opening (see `preloadViews`). */
export function preloadSettings(): void {
  import('./settingsDialog').catch(() => {});
}
