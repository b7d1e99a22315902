// The JSON types of Maru's API. They are generated from the Rust types into `generated/` (by the
// test in src-tauri/crates/core/src/api/typescript.rs, which also fails when they are stale); this file
// re-exports them and adds the few names only the UI uses. Never hand-copy a Rust type here.
// Times are Unix milliseconds. `null` is how an absent Option<T> arrives.

import type { PresetView, SettingsView, TurnEvent } from './generated';

export type * from './generated';

/** A preset as listed: built-in or the user's (`PresetView` in Rust). */
export type Preset = PresetView;

export type Language = SettingsView['language'];
export type Theme = SettingsView['theme'];

/** Whether the model may save facts, and whether they wait for the user's review. */
export type MemoryMode = SettingsView['memory_mode'];

/** A file the server sent to save: its bytes and the name it gave (Content-Disposition). */
export interface DownloadedFile {
  blob: Blob;
  name: string;
}

/** Receives a turn's events as they arrive. */
export type TurnSink = (event: TurnEvent) => void;
