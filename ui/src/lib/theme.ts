// Light, dark or the system's choice, resolved here to a `data-theme` of "light" or "dark" that
// the CSS variables follow (so the dark palette is written once).

import type { Theme } from '../backend/types';

const KEY = 'maru.theme';
const systemDark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
let chosen: Theme = 'system';

function resolve(): void {
  const dark = chosen === 'dark' || (chosen === 'system' && !!systemDark?.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

// "system" follows the OS while the page is open.
systemDark?.addEventListener('change', resolve);

export function applyTheme(theme: Theme): void {
  chosen = theme;
  resolve();
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
