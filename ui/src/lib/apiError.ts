// The one error the UI shows for anything the server (or the way to it) refused: thrown by the
// backend's transport, caught by state, drawn by views. It lives apart from all three so that
// each can name it without importing the others.

import { errorText } from './i18n';

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
