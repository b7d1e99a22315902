// Light, dark or the system's choice: a `data-theme` attribute that the CSS variables follow.

import type { Theme } from '../backend/types';

const KEY = 'maru.theme';

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // storage can be off; the theme still applies to this page
  }
}

/** The last theme used, so the page does not flash before settings load. */
export function rememberedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    if (t === 'light' || t === 'dark' || t === 'system') return t;
  } catch {
    // ignore
  }
  return 'system';
}
