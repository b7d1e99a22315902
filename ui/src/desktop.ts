// The desktop app's parts of the page: the app menu (labelled from the dictionary in the UI's
// language; its items run the same actions as the keyboard shortcuts), a notification when a
// long reply ends while the window is in the background, and the system's folder picker.

import { invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type { App } from './app';
import { language, t, type Key } from './lib/i18n';
import type { Action } from './lib/shortcuts';

/** The menu's items by their id in the desktop app, and their words. */
const LABELS: Record<string, Key> = {
  menu_file: 'menuFile',
  new_chat: 'newChat',
  search: 'menuSearch',
  settings: 'settings',
  shortcuts: 'menuShortcuts',
  quit: 'menuQuit',
  menu_edit: 'menuEdit',
  undo: 'menuUndo',
  redo: 'menuRedo',
  cut: 'menuCut',
  copy: 'menuCopy',
  paste: 'menuPaste',
  select_all: 'menuSelectAll',
};

const ACTIONS: Record<string, Action> = { new_chat: 'newChat', search: 'search', settings: 'settings', shortcuts: 'shortcuts' };

/** A reply this long is worth a notification when it ends unseen. */
const LONG_REPLY_MS = 10_000;

export function mountDesktop(app: App, perform: (action: Action) => boolean): void {
  let labelled = '';
  const labelMenu = () => {
    if (labelled === language()) return;
    labelled = language();
    const labels = Object.fromEntries(Object.entries(LABELS).map(([id, key]) => [id, t(key)]));
    invoke('desktop_menu', { labels }).catch((e) => console.warn('the app menu could not be set', e));
  };
  labelMenu();
  app.on('settings', labelMenu);

  void listen<string>('maru://menu', (e) => {
    const action = ACTIONS[e.payload];
    if (action) perform(action);
  });

  app.on('replyEnded', () => {
    const live = app.chat.lastEnded;
    if (!live || live.attached || performance.now() - live.startedAt < LONG_REPLY_MS || document.hasFocus()) return;
    const title = app.sessions.findSession(live.sessionId)?.title || t('newChat');
    // The desktop side shows it only while the window is not focused.
    void invoke('notify', { title: live.error ? t('replyFailedNotice') : t('replyReady'), body: title }).catch(() => {});
  });
}
