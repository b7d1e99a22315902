// Numbers, sizes and times as the UI shows them, in the UI's language.

import { language } from './i18n';

export function count(n: number): string {
  return new Intl.NumberFormat(language()).format(n);
}

export function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)} s` : `${Math.round(n)} ms`;
}

export function rate(n: number): string {
  return n >= 100 ? String(Math.round(n)) : n.toFixed(1);
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

export function dateTime(unixMs: number): string {
  return new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(unixMs));
}

/** "3 min ago", "yesterday"… for recent times; the date otherwise. */
export function relative(unixMs: number, now = Date.now()): string {
  const diff = (unixMs - now) / 1000;
  const abs = Math.abs(diff);
  const rtf = new Intl.RelativeTimeFormat(language(), { numeric: 'auto' });
  if (abs < 45) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(diff / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(diff / 3600), 'hour');
  if (abs < 7 * 86400) return rtf.format(Math.round(diff / 86400), 'day');
  return dateTime(unixMs);
}

/** A file size: "812 B", "14.2 KB", "3.1 MB" (units of 1024). */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let n = bytes / 1024;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n >= 100 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 12);
}
