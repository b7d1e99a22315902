// The one error the UI shows for anything the server (or the way to it) refused: thrown by the
// backend's transport, caught by state, drawn by views. It lives apart from all three so that
// each can name it without importing the others.

import type { AnyCode } from '../backend/generated';
import type { UiCode } from './errors';
import { errorText } from './i18n';

/** A code an error carries: the server's (generated from its list, `model_server.…` for a
 *  model server's), the UI's own, or an HTTP status when an answer had no code at all. */
export type ErrorCode = AnyCode | UiCode | `http_${number}`;

/** A code from an answer: the API documents it as one of the server's; a server newer than the
 *  UI may send one the UI has no words for, which `errorText` answers with the server's message. */
export function serverCode(code: unknown): ErrorCode {
  return typeof code === 'string' ? (code as AnyCode) : 'bad_response';
}

/** Every failure the UI shows: the server's `{code, message}`, or one made up for the network. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** What the message names (a file, a model), for the UI's own sentence of the code. */
  readonly params: Record<string, string>;

  constructor(code: ErrorCode, message: string, status = 0, params: Record<string, string> = {}) {
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
