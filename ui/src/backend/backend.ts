// The one interface the UI talks to. `httpBackend` (http.ts) implements it with the typed client
// of api.ts, over `maru serve` or, in the desktop window, over Tauri IPC (ipc.ts: the same routes,
// in-process). Its types come from the generated `paths` (`Ok`: the operation's JSON answer,
// `Body`, `Query`); the few ts-rs types left are where the OpenAPI document says less (see each).

import { errorText } from '../lib/i18n';
import type { Body, Ok, Query } from './api';
import type { ChatHit, ExportFormat, TurnEvent } from './types';

/** A file the server sent to save: its bytes and the name it gave (Content-Disposition). */
export interface DownloadedFile {
  blob: Blob;
  name: string;
}

/** Receives a turn's events as they arrive. */
export type TurnSink = (event: TurnEvent) => void;

export interface Backend {
  health(): Promise<Ok<'/api/health', 'get'>>;

  listProjects(): Promise<Ok<'/api/projects', 'get'>>;
  createProject(project: Body<'/api/projects', 'post'>): Promise<Ok<'/api/projects', 'post'>>;
  updateProject(id: number, patch: Body<'/api/projects/{id}', 'patch'>): Promise<Ok<'/api/projects/{id}', 'patch'>>;
  deleteProject(id: number): Promise<Ok<'/api/projects/{id}', 'delete'>>;

  listSessions(query: Query<'/api/sessions', 'get'>): Promise<Ok<'/api/sessions', 'get'>>;
  createSession(session: Body<'/api/sessions', 'post'>): Promise<Ok<'/api/sessions', 'post'>>;
  getSession(id: number): Promise<Ok<'/api/sessions/{id}', 'get'>>;
  updateSession(id: number, patch: Body<'/api/sessions/{id}', 'patch'>): Promise<Ok<'/api/sessions/{id}', 'patch'>>;
  deleteSession(id: number): Promise<void>;

  listMessages(sessionId: number, query?: Query<'/api/sessions/{id}/messages', 'get'>): Promise<Ok<'/api/sessions/{id}/messages', 'get'>>;
  editMessage(id: number, content: Body<'/api/messages/{id}', 'patch'>['content']): Promise<Ok<'/api/messages/{id}', 'patch'>>;
  deleteMessage(id: number): Promise<void>;
  /** Shows another version of a message; the newest page of the chat as it then reads. */
  chooseVersion(id: number): Promise<Ok<'/api/messages/{id}/choose', 'post'>>;

  getSettings(): Promise<Ok<'/api/settings', 'get'>>;
  updateSettings(patch: Body<'/api/settings', 'patch'>): Promise<Ok<'/api/settings', 'patch'>>;

  /**
   * Long-term memory. The accepted facts (the ones section ⑤ uses) by default; `'pending'`: the
   * model's proposals waiting for the user; `'all'`: both. A fact that looks like a secret is
   * refused everywhere with `secret_refused`.
   * (`status` is ts-rs's: the document names its schema, `MemoryFilter`, without defining it.)
   */
  listMemories(status?: Query<'/api/memories', 'get'>['status']): Promise<Ok<'/api/memories', 'get'>>;
  createMemory(memory: Body<'/api/memories', 'post'>): Promise<Ok<'/api/memories', 'post'>>;
  /** Edits a fact or a proposal (a proposal stays pending). */
  updateMemory(id: number, patch: Body<'/api/memories/{id}', 'patch'>): Promise<Ok<'/api/memories/{id}', 'patch'>>;
  /** Accepts a proposal: from the next prompt on it is in section ⑤. */
  acceptMemory(id: number): Promise<Ok<'/api/memories/{id}/accept', 'post'>>;
  /** Deletes a fact, or dismisses a proposal. */
  deleteMemory(id: number): Promise<void>;

  listPresets(): Promise<Ok<'/api/presets', 'get'>>;
  createPreset(preset: Body<'/api/presets', 'post'>): Promise<Ok<'/api/presets', 'post'>>;
  updatePreset(id: number, patch: Body<'/api/presets/{id}', 'patch'>): Promise<Ok<'/api/presets/{id}', 'patch'>>;
  deletePreset(id: number): Promise<Ok<'/api/presets/{id}', 'delete'>>;

  listModels(): Promise<Ok<'/api/models', 'get'>>;
  probeServers(): Promise<Ok<'/api/servers', 'get'>>;
  /** The small demo model: whether it can run on this machine, and its address while it runs. */
  demoModel(): Promise<Ok<'/api/demo', 'get'>>;
  /** Starts it (once) and resolves when it answers; point the settings at `base_url` to use it. */
  startDemoModel(): Promise<Ok<'/api/demo', 'post'>>;

  context(sessionId: number): Promise<Ok<'/api/sessions/{id}/context', 'get'>>;
  /** Summarises everything but the last turn now; `compacted` is false when nothing was older. */
  compact(sessionId: number): Promise<Ok<'/api/sessions/{id}/compact', 'post'>>;

  /**
   * Files. A chat sees its own files and its project's; `scope` names exactly one of the two.
   * An upload answers at once with `status: 'indexing'`; poll `getAttachment` until it is
   * `ready` or `failed` (with a `note`). A refused file rejects with the server's `ApiError`
   * (`empty_file`, `binary_file`, `type_mismatch`, `file_too_large`, `scope_full`, …).
   */
  uploadAttachment(scope: Query<'/api/attachments', 'get'>, file: Blob, name: string): Promise<Ok<'/api/attachments', 'post'>>;
  listAttachments(scope: Query<'/api/attachments', 'get'>): Promise<Ok<'/api/attachments', 'get'>>;
  getAttachment(id: number): Promise<Ok<'/api/attachments/{id}', 'get'>>;
  deleteAttachment(id: number): Promise<Ok<'/api/attachments/{id}', 'delete'>>;
  /** The file's bytes as attached (the route needs the token, so a plain link cannot fetch it). */
  downloadAttachment(id: number): Promise<Blob>;

  /** A chat as Markdown (to read) or JSON (to import again), a project as a zip, and everything as
   *  one backup zip (without the API key; `maru restore` puts it back). Through fetch: the token.
   *  (`format` is ts-rs's: the document names its schema, `ExportFormat`, without defining it.) */
  exportChat(sessionId: number, format: ExportFormat): Promise<DownloadedFile>;
  exportProject(projectId: number): Promise<DownloadedFile>;
  backup(): Promise<DownloadedFile>;
  /** Adds a chat exported by Maru as JSON as a new chat, in its project when one of that name
   *  exists, else in Default (refused: `unsupported_import`, `unsupported_import_version`). */
  importChat(chat: Body<'/api/import', 'post'>): Promise<Ok<'/api/import', 'post'>>;

  /** Chats across every project whose messages or title match `q`, best first. ts-rs's `ChatHit`:
   *  the document types `highlights` as `number[][]`, not as `[start, end]` pairs. */
  searchChats(q: Query<'/api/search', 'get'>['q'], limit?: Query<'/api/search', 'get'>['limit']): Promise<ChatHit[]>;

  /**
   * Turns. Each resolves when the turn's stream has ended (after `done` or `error` reached the
   * sink, or the connection closed early); a refused turn rejects with an `ApiError` before any
   * event (e.g. `turn_running`, `empty_message`).
   */
  /** `images`: image attachments of the chat or its project to send with it, for models that see. */
  sendMessage(sessionId: number, content: string, sink: TurnSink, images?: number[]): Promise<void>;
  regenerate(sessionId: number, sink: TurnSink): Promise<void>;
  resend(messageId: number, content: string, sink: TurnSink): Promise<void>;
  stop(sessionId: number): Promise<Ok<'/api/sessions/{id}/stop', 'post'>>;
  /**
   * Follows the turn running in a chat (started by another window, or before a reload): replays
   * what streamed so far, then the rest as it comes. Rejects with `no_turn_running` (409) when
   * nothing is being written.
   */
  attach(sessionId: number, sink: TurnSink): Promise<void>;
}

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
