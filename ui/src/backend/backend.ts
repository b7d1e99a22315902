// The one interface the UI talks to. `HttpBackend` implements it over `maru serve`, and in the
// desktop window over Tauri IPC (see ipc.ts: the same routes, in-process).

import { errorText } from '../lib/i18n';
import type {
  Attachment, AttachmentScope, ChatHit, ContextView, Deleted, DeletedPreset, DeletedProject, FoundServer, Health, Memory, MemoryPatch, MemoryStatusQuery, Message,
  MessagePage, MessageQuery, ModelInfo, NewMemory, NewPreset, NewProject, NewSession, Preset,
  PresetPatch, Project, ProjectPatch, Session, SessionPage, SessionPatch, SessionQuery,
  SettingsPatch, SettingsView, Stopped, TurnEvent,
} from './types';
import type { ChatExport, ExportFormat } from './types';
import type { DemoModel } from './generated/DemoModel';

/** A file the server sent to save: its bytes and the name it gave (Content-Disposition). */
export interface DownloadedFile {
  blob: Blob;
  name: string;
}

/** Receives a turn's events as they arrive. */
export type TurnSink = (event: TurnEvent) => void;

export interface Backend {
  health(): Promise<Health>;

  listProjects(): Promise<Project[]>;
  createProject(project: NewProject): Promise<Project>;
  updateProject(id: number, patch: ProjectPatch): Promise<Project>;
  deleteProject(id: number): Promise<DeletedProject>;

  listSessions(query: SessionQuery): Promise<SessionPage>;
  createSession(session: NewSession): Promise<Session>;
  getSession(id: number): Promise<Session>;
  updateSession(id: number, patch: SessionPatch): Promise<Session>;
  deleteSession(id: number): Promise<void>;

  listMessages(sessionId: number, query?: MessageQuery): Promise<MessagePage>;
  editMessage(id: number, content: string): Promise<Message>;
  deleteMessage(id: number): Promise<void>;
  /** Shows another version of a message; the newest page of the chat as it then reads. */
  chooseVersion(id: number): Promise<MessagePage>;

  getSettings(): Promise<SettingsView>;
  updateSettings(patch: SettingsPatch): Promise<SettingsView>;

  /**
   * Long-term memory. The accepted facts (the ones section ⑤ uses) by default; `'pending'`: the
   * model's proposals waiting for the user; `'all'`: both. A fact that looks like a secret is
   * refused everywhere with `secret_refused`.
   */
  listMemories(status?: MemoryStatusQuery['status']): Promise<Memory[]>;
  createMemory(memory: NewMemory): Promise<Memory>;
  /** Edits a fact or a proposal (a proposal stays pending). */
  updateMemory(id: number, patch: MemoryPatch): Promise<Memory>;
  /** Accepts a proposal: from the next prompt on it is in section ⑤. */
  acceptMemory(id: number): Promise<Memory>;
  /** Deletes a fact, or dismisses a proposal. */
  deleteMemory(id: number): Promise<void>;

  listPresets(): Promise<Preset[]>;
  createPreset(preset: NewPreset): Promise<Preset>;
  updatePreset(id: number, patch: PresetPatch): Promise<Preset>;
  deletePreset(id: number): Promise<DeletedPreset>;

  listModels(): Promise<ModelInfo[]>;
  probeServers(): Promise<FoundServer[]>;
  /** The small demo model: whether it can run on this machine, and its address while it runs. */
  demoModel(): Promise<DemoModel>;
  /** Starts it (once) and resolves when it answers; point the settings at `base_url` to use it. */
  startDemoModel(): Promise<DemoModel>;

  context(sessionId: number): Promise<ContextView>;

  /**
   * Files. A chat sees its own files and its project's; `scope` names exactly one of the two.
   * An upload answers at once with `status: 'indexing'`; poll `getAttachment` until it is
   * `ready` or `failed` (with a `note`). A refused file rejects with the server's `ApiError`
   * (`empty_file`, `binary_file`, `type_mismatch`, `file_too_large`, `scope_full`, …).
   */
  uploadAttachment(scope: AttachmentScope, file: Blob, name: string): Promise<Attachment>;
  listAttachments(scope: AttachmentScope): Promise<Attachment[]>;
  getAttachment(id: number): Promise<Attachment>;
  deleteAttachment(id: number): Promise<Deleted>;
  /** The file's bytes as attached (the route needs the token, so a plain link cannot fetch it). */
  downloadAttachment(id: number): Promise<Blob>;

  /** A chat as Markdown (to read) or JSON (to import again), a project as a zip, and everything as
   *  one backup zip (without the API key; `maru restore` puts it back). Through fetch: the token. */
  exportChat(sessionId: number, format: ExportFormat): Promise<DownloadedFile>;
  exportProject(projectId: number): Promise<DownloadedFile>;
  backup(): Promise<DownloadedFile>;
  /** Adds a chat exported by Maru as JSON as a new chat, in its project when one of that name
   *  exists, else in Default (refused: `unsupported_import`, `unsupported_import_version`). */
  importChat(chat: ChatExport): Promise<Session>;

  /** Chats across every project whose messages or title match `q`, best first. */
  searchChats(q: string, limit?: number): Promise<ChatHit[]>;

  /**
   * Turns. Each resolves when the turn's stream has ended (after `done` or `error` reached the
   * sink, or the connection closed early); a refused turn rejects with an `ApiError` before any
   * event (e.g. `turn_running`, `empty_message`).
   */
  /** `images`: image attachments of the chat or its project to send with it, for models that see. */
  sendMessage(sessionId: number, content: string, sink: TurnSink, images?: number[]): Promise<void>;
  regenerate(sessionId: number, sink: TurnSink): Promise<void>;
  resend(messageId: number, content: string, sink: TurnSink): Promise<void>;
  stop(sessionId: number): Promise<Stopped>;
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
