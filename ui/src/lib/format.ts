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

/**
 * A file size as the prompt names it (`human_size` in the server's prompt/render.rs), so that the
 * files panel, a message's file chips and the system prompt agree: "812 B", "15 KB" (kilobytes
 * rounded up, whole), "3.1 MB" (tenths, ties to even, as Rust's `{:.1}` rounds the exact value).
 */
export function fileSize(bytes: number): string {
  const KB = 1024;
  const MB = KB * KB;
  if (bytes < KB) return `${bytes} B`;
  if (bytes < MB) return `${Math.ceil(bytes / KB)} KB`;
  // Tenths of a megabyte in whole numbers: bytes * 10 / MB, rounded half to even.
  const scaled = bytes * 10;
  let tenths = Math.floor(scaled / MB);
  const rest = scaled - tenths * MB;
  if (rest * 2 > MB || (rest * 2 === MB && tenths % 2 === 1)) tenths++;
  return `${Math.floor(tenths / 10)}.${tenths % 10} MB`;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 12);
}
