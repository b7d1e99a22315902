// Where the page runs: in the desktop window (Tauri) or a browser, and what only the desktop has.
// Tauri's own API is a chunk of its own, loaded by the desktop window only (`tauri()`): a browser
// never downloads or parses it.

/** Tauri's core API, once the desktop window first needs it. */
export function tauri(): Promise<typeof import('@tauri-apps/api/core')> {
  return import('@tauri-apps/api/core');
}

/** In the desktop window: Tauri sets `isTauri` on the page before any script runs (what its
 *  `isTauri()` reads too). */
export function inDesktop(): boolean {
  return !!(globalThis as { isTauri?: unknown }).isTauri;
}

/** Asks the user for a folder in the system's picker: its absolute path, or null when cancelled. */
export async function pickFolder(title: string): Promise<string | null> {
  const { invoke } = await tauri();
  return invoke<string | null>('pick_folder', { title });
}
