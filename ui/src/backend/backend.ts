// What the UI's views share about the backend: its type (`Backend`, the methods of http.ts's
// `httpBackend` over the typed client of api.ts, over `maru serve` or, in the desktop window, over
// Tauri IPC), the errors it throws and the sink a turn's events go to.

import { errorText } from '../lib/i18n';
import type { TurnEvent } from './types';

/** A file the server sent to save: its bytes and the name it gave (Content-Disposition). */
export interface DownloadedFile {
  blob: Blob;
  name: string;
}

/** Receives a turn's events as they arrive. */
export type TurnSink = (event: TurnEvent) => void;

/** The API's methods, one per operation: declared once, by their implementation (http.ts). */
export type { Backend } from './http';

/** Every failure the UI shows: the server's `{code, message}`, or one made up for the network. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** What the message names (a file, a model), for the UI's own sentence of the code. */
  readonly params: Record<string, string>;

  constructor(code: string, message: string, status = 0, params: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.params = params;
  }

  /** The server could not be reached at all. */
  get offline(): boolean {
    return this.code === 'offline';
  }
}

/** The message to show for anything thrown, in the UI's language (see `errorText`). */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return errorText(e);
  if (e instanceof Error) return e.message;
  return String(e);
}
