// The keyboard shortcuts: which one a key press is, and the list the shortcuts dialog shows.

import { t, type Key } from './i18n';

/** The shortcuts that work anywhere in the window. */
export type Shortcut = 'search' | 'newChat' | 'shortcuts' | 'stop' | 'toggleSidebar';

/** What the window can be asked to do from outside the page (the desktop app's menu). */
export type Action = Shortcut | 'settings';

export function isMac(): boolean {
  return /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
}

/** Which window-wide shortcut a key press is, if any (Ctrl, or ⌘ on a Mac, both accepted). */
export function shortcutOf(e: KeyboardEvent): Shortcut | null {
  if (e.isComposing) return null;
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  const key = e.key.toLowerCase();
  if (mod && !e.shiftKey && (key === 'k' || e.code === 'KeyK')) return 'search';
  if (mod && e.shiftKey && (key === 'o' || e.code === 'KeyO')) return 'newChat';
  // As in ChatGPT: Ctrl+Shift+S (⌘⇧S) shows or hides the sidebar.
  if (mod && e.shiftKey && (key === 's' || e.code === 'KeyS')) return 'toggleSidebar';
  // "/" needs Shift on some layouts: either way it is the list.
  if (mod && (key === '/' || e.code === 'Slash')) return 'shortcuts';
  if (e.key === 'Escape' && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey) return 'stop';
  return null;
}

export interface ShortcutRow {
  /** Alternatives, each a list of keys pressed together. */
  keys: string[][];
  label: string;
}

export interface ShortcutGroup {
  title: string;
  rows: ShortcutRow[];
}

/** Every shortcut, grouped by where it works, in the UI's language. */
export function shortcutGroups(): ShortcutGroup[] {
  const mod = isMac() ? '⌘' : 'Ctrl';
  const row = (label: Key, ...keys: string[][]): ShortcutRow => ({ keys, label: t(label) });
  return [
    {
      title: t('kbAnywhere'),
      rows: [
        row('kbSearch', [mod, 'K']),
        row('kbNewChat', [mod, 'Shift', 'O']),
        row('kbToggleSidebar', [mod, 'Shift', 'S']),
        row('kbShortcuts', [mod, '/']),
        row('kbStop', ['Esc']),
      ],
    },
    {
      title: t('kbComposer'),
      rows: [
        row('kbSend', ['Enter']),
        row('kbNewLine', ['Shift', 'Enter']),
      ],
    },
    {
      title: t('kbSearchBox'),
      rows: [
        row('kbChooseHit', ['↑'], ['↓']),
        row('kbOpenHit', ['Enter']),
        row('kbClearSearch', ['Esc']),
      ],
    },
    {
      title: t('kbEditing'),
      rows: [
        row('kbSaveAndSend', ['Enter']),
        row('kbCancelEdit', ['Esc']),
      ],
    },
  ];
}
