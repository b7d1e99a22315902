// Which projects the sidebar shows open, kept in this browser's localStorage so that the next start
// opens the same ones. Storage can be off, full, or hold what an older build or a hand wrote: then
// nothing is remembered, and the sidebar opens as on a first run.

const KEY = 'maru.expandedProjects';

/** The ids of the projects open when Maru was last used; null when none were ever noted (or unreadable). */
export function rememberedExpanded(): Set<number> | null {
  let saved: unknown;
  try {
    const raw = localStorage.getItem(KEY);
    if (raw === null) return null;
    saved = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!Array.isArray(saved)) return null;
  return new Set(saved.filter((id): id is number => Number.isSafeInteger(id)));
}

/** Notes the projects open now; ids not given (such as projects since deleted) are forgotten. */
export function rememberExpanded(ids: Iterable<number>): void {
  try {
    localStorage.setItem(KEY, JSON.stringify([...ids]));
  } catch {
    // storage can be off: the projects stay open for this page
  }
}
