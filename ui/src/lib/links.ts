// Which link targets a rendered reply may keep: shared by the Markdown renderer and what checks it.

/** Only web and mail links; `javascript:`, `data:` and the like are refused. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:\/\/|mailto:)/i.test(h) && !/[\u0000-\u001f\s]/.test(h)) return h;
  return null;
}
