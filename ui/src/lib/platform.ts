// Where the page runs: in the desktop window (Tauri) or a browser, and what only the desktop has.

import { invoke, isTauri } from '@tauri-apps/api/core';

export function inDesktop(): boolean {
  return isTauri();
}

/** Asks the user for a folder in the system's picker: its absolute path, or null when cancelled. */
export function pickFolder(title: string): Promise<string | null> {
  return invoke<string | null>('pick_folder', { title });
}
