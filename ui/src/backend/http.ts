// `Backend` over the typed client of api.ts: each method is one call of an operation of the
// generated `paths` (its path, parameters and body are checked against the server's OpenAPI
// document; the methods' own types come from `Backend`). The client speaks HTTP to `maru serve`,
// or the same requests over Tauri IPC in the desktop window (`fetch: ipcFetch`). Turns are
// Server-Sent Events answering a POST (or the GET of `/events`), read from the response's body,
// since EventSource cannot POST.

import type { Change, ChatExport, ChatHit, DownloadedFile, ExportFormat, FileHit, ImportJob, Session, TurnEvent, TurnSink } from './types';
import { createApi, present, type Body, type Ok, type Query } from './api';
import { ApiError, serverCode } from '../lib/apiError';
import { readSse } from './sse';

export interface HttpBackendOptions {
  /** Where `maru serve` answers; the page's own origin by default. */
  baseUrl?: string;
  token: string;
  /** Told whenever a request reaches the server (true) or cannot (false). */
  onReachable?: (reachable: boolean) => void;
  /** The transport: `fetch` by default, ipc.ts's `ipcFetch` in the desktop window. */
  fetch?: (request: Request) => Promise<Response>;
}

const CHANGES = new Set<string>(['session_changed', 'session_deleted', 'projects_changed', 'turn_started', 'turn_ended', 'resync'] satisfies Change['type'][]);

const TURN_EVENTS = new Set(['token', 'reasoning', 'tool_call', 'tool_result', 'usage', 'approval_needed', 'approval_decided', 'done', 'error']);

/** A turn's answer: the event stream's bytes. */
const STREAM = { parseAs: 'stream', headers: { Accept: 'text/event-stream' } } as const;
/** A file's answer: its bytes, whatever their type. */
const FILE = { parseAs: 'blob', headers: { Accept: '*/*' } } as const;

/** A `ProjectZip` or `BackupZip` body as multipart: the zip in a part named `file`. */
const zipPart = (name: string) => (form: { file: Blob }) => {
  const parts = new FormData();
  parts.append('file', form.file, name);
  return parts;
};

/** What a call answered. The transport (api.ts) has thrown for every failure, so an `error` never
 *  arrives here. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> {
  const { data, error } = await call;
  if (error !== undefined) throw error;
  return data as T;
}

/** The transport's answers, for the two kinds that are not JSON. */
type Streamed = Promise<{ data?: ReadableStream<Uint8Array> | null; response: Response }>;
type Downloaded = Promise<{ data?: Blob; response: Response }>;

/** Maru's API as the UI calls it: one method per operation, typed by the generated `paths`. */
export type Backend = ReturnType<typeof httpBackend>;

export function httpBackend(opts: HttpBackendOptions) {
  const api = createApi({
    baseUrl: opts.baseUrl ?? window.location.origin,
    token: opts.token,
    onReachable: opts.onReachable ?? (() => {}),
    fetch: opts.fetch ?? window.fetch.bind(window),
  });
  /** The params of an operation on one object, `/…/{id}`. */
  const byId = (id: number) => ({ params: { path: { id } } });

  return {
    health: () => ok(api.GET('/api/health')),

    listProjects: () => ok(api.GET('/api/projects')),
    createProject: (project: Body<'/api/projects', 'post'>) => ok(api.POST('/api/projects', { body: project })),
    updateProject: (projectId: number, patch: Body<'/api/projects/{id}', 'patch'>) =>
      ok(api.PATCH('/api/projects/{id}', { ...byId(projectId), body: patch })),
    /** `keepalive` (here and in the other deletes): sent as the page closes, and to outlive it. */
    folderSync: (projectId: number) => ok(api.GET('/api/projects/{id}/folder', byId(projectId))),
    projectInstructions: (projectId: number) => ok(api.GET('/api/projects/{id}/instructions', byId(projectId))),
    deleteProject: (projectId: number, keepalive?: boolean) => ok(api.DELETE('/api/projects/{id}', { ...byId(projectId), keepalive })),

    listSessions: (query: Query<'/api/sessions', 'get'>) => ok(api.GET('/api/sessions', { params: { query: present(query) } })),
    createSession: (session: Body<'/api/sessions', 'post'>) => ok(api.POST('/api/sessions', { body: session })),
    getSession: (sessionId: number) => ok(api.GET('/api/sessions/{id}', byId(sessionId))),
    updateSession: (sessionId: number, patch: Body<'/api/sessions/{id}', 'patch'>) =>
      ok(api.PATCH('/api/sessions/{id}', { ...byId(sessionId), body: patch })),
    deleteSession: async (sessionId: number, keepalive?: boolean): Promise<void> => {
      await ok(api.DELETE('/api/sessions/{id}', { ...byId(sessionId), keepalive }));
    },

    listMessages: (sessionId: number, query: Query<'/api/sessions/{id}/messages', 'get'> = {}) =>
      ok(api.GET('/api/sessions/{id}/messages', { params: { path: { id: sessionId }, query: present(query) } })),
    editMessage: (messageId: number, content: string) => ok(api.PATCH('/api/messages/{id}', { ...byId(messageId), body: { content } })),
    deleteMessage: async (messageId: number): Promise<void> => {
      await ok(api.DELETE('/api/messages/{id}', byId(messageId)));
    },
    /** Shows another version of a message; the newest page of the chat as it then reads. */
    chooseVersion: (messageId: number) => ok(api.POST('/api/messages/{id}/choose', byId(messageId))),
    /** Keeps a temporary chat: listed, searched, titled and remembered from now on. */
    keepSession: (sessionId: number) => ok(api.POST('/api/sessions/{id}/keep', byId(sessionId))),
    /** A new title by the model for the chat (it replaces any title). */
    regenerateTitle: (sessionId: number) => ok(api.POST('/api/sessions/{id}/title', byId(sessionId))),
    /** A new chat in the same project from this message: it and those it follows (their versions
     *  on its way only), with the chat's preset and model; the original is unchanged. */
    forkMessage: (messageId: number) => ok(api.POST('/api/messages/{id}/fork', byId(messageId))),

    getSettings: () => ok(api.GET('/api/settings')),
    updateSettings: (patch: Body<'/api/settings', 'patch'>) => ok(api.PATCH('/api/settings', { body: patch })),
    /** How far the files' passages are embedded by the chosen model, and why the last batch failed. */
    embeddingProgress: () => ok(api.GET('/api/embeddings')),
    /** The calls other apps made of the tools the user shares (`maru mcp`, `/mcp`), newest first. */
    sharedCalls: (limit?: number) => ok(api.GET('/api/sharing/calls', { params: { query: present({ limit }) } })),

    /**
     * Long-term memory. The accepted facts (the ones the prompt's memory part uses) by default;
     * `'pending'`: the model's proposals waiting for the user; `'all'`: both. A fact that looks
     * like a secret is refused everywhere with `secret_refused`.
     */
    listMemories: (status?: Query<'/api/memories', 'get'>['status']) => ok(api.GET('/api/memories', { params: { query: present({ status }) } })),
    createMemory: (memory: Body<'/api/memories', 'post'>) => ok(api.POST('/api/memories', { body: memory })),
    /** Edits a fact or a proposal (a proposal stays pending). */
    updateMemory: (memoryId: number, patch: Body<'/api/memories/{id}', 'patch'>) =>
      ok(api.PATCH('/api/memories/{id}', { ...byId(memoryId), body: patch })),
    /** Accepts a proposal: from the next prompt on it is in the prompt's memory part. */
    acceptMemory: (memoryId: number) => ok(api.POST('/api/memories/{id}/accept', byId(memoryId))),
    /** Deletes a fact, or dismisses a proposal. */
    deleteMemory: async (memoryId: number, keepalive?: boolean): Promise<void> => {
      await ok(api.DELETE('/api/memories/{id}', { ...byId(memoryId), keepalive }));
    },

    listPresets: () => ok(api.GET('/api/presets')),
    createPreset: (preset: Body<'/api/presets', 'post'>) => ok(api.POST('/api/presets', { body: preset })),
    updatePreset: (presetId: number, patch: Body<'/api/presets/{id}', 'patch'>) =>
      ok(api.PATCH('/api/presets/{id}', { ...byId(presetId), body: patch })),
    deletePreset: (presetId: number) => ok(api.DELETE('/api/presets/{id}', byId(presetId))),

    /**
     * Skills: each a SKILL.md (front matter `name` and `description`, then the procedure) with its
     * reference files, global (`project_id` absent) or a project's. A skill the server cannot read
     * is refused with `invalid_skill` (its message says why), a name used in the same place with
     * `name_taken`. A patch's `files` replaces them all.
     */
    listSkills: () => ok(api.GET('/api/skills')),
    createSkill: (skill: Body<'/api/skills', 'post'>) => ok(api.POST('/api/skills', { body: skill })),
    updateSkill: (skillId: number, patch: Body<'/api/skills/{id}', 'patch'>) =>
      ok(api.PATCH('/api/skills/{id}', { ...byId(skillId), body: patch })),
    deleteSkill: (skillId: number) => ok(api.DELETE('/api/skills/{id}', byId(skillId))),

    /**
     * The user's model servers, the default one first, their keys left out (`api_key_set` only).
     * A patch's `api_key`: a string sets it, `null` or "" removes it. The default server can be
     * neither turned off nor deleted (`default_connection`); a deleted server's chats go back to
     * the default server and its default model.
     */
    listConnections: () => ok(api.GET('/api/connections')),
    createConnection: (connection: Body<'/api/connections', 'post'>) => ok(api.POST('/api/connections', { body: connection })),
    updateConnection: (connectionId: number, patch: Body<'/api/connections/{id}', 'patch'>) =>
      ok(api.PATCH('/api/connections/{id}', { ...byId(connectionId), body: patch })),
    deleteConnection: (connectionId: number) => ok(api.DELETE('/api/connections/{id}', byId(connectionId))),
    /** The models of one server (the default one without `connectionId`); its `model_server.*`
     *  errors' messages start with the server's name. One request per server: a slow one holds up
     *  no other. */
    listModels: (connectionId?: number) =>
      ok(api.GET('/api/models', { params: { query: present({ connection_id: connectionId ?? null }) } })),
    probeServers: () => ok(api.GET('/api/servers')),
    /** The small demo model: whether it can run on this machine, and its address while it runs. */
    demoModel: () => ok(api.GET('/api/demo')),
    /** Starts it (once) and resolves when it answers; point the settings at `base_url` to use it. */
    startDemoModel: () => ok(api.POST('/api/demo')),

    // openapi-fetch's `Readable` (for readOnly/writeOnly markers, of which Maru's document has
    // none) widens tuples to arrays: `TemplateInfo.meta`'s `[key, value]` pairs would read `string[][]`.
    context: async (sessionId: number) =>
      (await ok(api.GET('/api/sessions/{id}/context', byId(sessionId)))) as Ok<'/api/sessions/{id}/context', 'get'>,
    /** Summarises everything but the last turn now; `compacted` is false when nothing was older. */
    compact: (sessionId: number) => ok(api.POST('/api/sessions/{id}/compact', byId(sessionId))),
    /** Undoes compaction: the summaries go and the next request sends the whole chat; `deleted` is false when there were none. */
    uncompact: (sessionId: number) => ok(api.DELETE('/api/sessions/{id}/summaries', byId(sessionId))),

    /**
     * Files. A chat sees its own files and its project's; `scope` names exactly one of the two.
     * An upload answers at once with `status: 'indexing'`; poll `getAttachment` until it is
     * `ready` or `failed` (with a `note`). A refused file rejects with the server's `ApiError`
     * (`empty_file`, `binary_file`, `type_mismatch`, `file_too_large`, `scope_full`, …).
     */
    uploadAttachment: (scope: Query<'/api/attachments', 'get'>, file: Blob, name: string) => {
      // As a File of that name: the part's file name is what the server shows.
      const part = file instanceof File && file.name === name ? file : new File([file], name, { type: file.type });
      return ok(api.POST('/api/attachments', {
        body: { ...present(scope), file: part },
        // `UploadForm` as multipart parts: the scope's one id, then the file.
        bodySerializer(form) {
          const parts = new FormData();
          if (form.session_id != null) parts.append('session_id', String(form.session_id));
          if (form.project_id != null) parts.append('project_id', String(form.project_id));
          parts.append('file', form.file, name);
          return parts;
        },
      }));
    },
    listAttachments: (scope: Query<'/api/attachments', 'get'>) => ok(api.GET('/api/attachments', { params: { query: present(scope) } })),
    getAttachment: (attachmentId: number) => ok(api.GET('/api/attachments/{id}', byId(attachmentId))),
    deleteAttachment: (attachmentId: number) => ok(api.DELETE('/api/attachments/{id}', byId(attachmentId))),
    /** The file's bytes as attached (the route needs the token, so a plain link cannot fetch it). */
    downloadAttachment: async (attachmentId: number): Promise<Blob> =>
      (await download(api.GET('/api/attachments/{id}/content', { ...byId(attachmentId), ...FILE }), '')).blob,

    /** A chat as Markdown (to read) or JSON (to import again), a project as a zip, and everything as
     *  one backup zip (without the API key; `restoreBackup` or `maru restore` puts it back). Through fetch: the token. */
    exportChat: (sessionId: number, format: ExportFormat) =>
      download(
        api.GET('/api/sessions/{id}/export', { params: { path: { id: sessionId }, query: { format } }, ...FILE }),
        `chat-${sessionId}.${format === 'json' ? 'json' : 'md'}`,
      ),
    exportProject: (projectId: number) =>
      download(api.GET('/api/projects/{id}/export', { ...byId(projectId), ...FILE }), `project-${projectId}.zip`),
    backup: async (onProgress?: (got: number, total: number | null) => void): Promise<DownloadedFile> => {
      // Read as it arrives, so the page can say how far it got (a backup is tens of MB).
      const { data, response } = await api.GET('/api/backup', { parseAs: 'stream', headers: { Accept: '*/*' } });
      const total = Number(response.headers.get('content-length')) || null;
      const chunks: Uint8Array[] = [];
      let got = 0;
      const reader = (data as ReadableStream<Uint8Array> | null | undefined)?.getReader();
      for (;;) {
        const next = reader ? await reader.read() : { done: true as const, value: undefined };
        if (next.done) break;
        chunks.push(next.value);
        got += next.value.length;
        onProgress?.(got, total);
      }
      return { blob: new Blob(chunks as BlobPart[], { type: 'application/zip' }), name: fileName(response.headers.get('content-disposition'), 'maru-backup.zip') };
    },
    /** Adds a chat exported by Maru as JSON as a new chat, in its project when one of that name
     *  exists, else in Default (refused: `unsupported_import`, `unsupported_import_version`). */
    importChat: async (chat: ChatExport) => (await ok(api.POST('/api/import', { body: chat }))) as Session,
    /** Imports a file as the user chose it: a chat Maru exported as JSON (added at once: the new
     *  chat), or ChatGPT's or Claude's export as downloaded or its conversations.json, checked
     *  whole and then stored in the background into `projectId` (else their own "Imported from …"
     *  project): the import to follow with `importJob`. A bad file changes nothing
     *  (`invalid_import`, `unsupported_import`, `empty_file`, `file_too_large`, …). */
    importFile: (file: Blob, projectId: number | null = null, name = file instanceof File ? file.name : 'conversations.json') =>
      ok(api.POST('/api/import', {
        body: { file, project_id: projectId } as unknown as ChatExport,
        bodySerializer: () => {
          const parts = new FormData();
          parts.append('file', file, name);
          if (projectId != null) parts.append('project_id', String(projectId));
          return parts;
        },
      })) as Promise<Session | ImportJob>,
    /** How far an import of another app's export is (`not_found` once Maru restarted). */
    importJob: (jobId: number) => ok(api.GET('/api/import/jobs/{id}', byId(jobId))),
    /** Adds a project exported by Maru as a zip (`exportProject`) as a new project, numbered when
     *  its name is taken, with its chats and files; entries that cannot be stored are left out and
     *  listed in `skipped`. A zip that is not a Maru project adds nothing (`invalid_import`,
     *  `unsupported_import`, `unsupported_import_version`, `file_too_large`, …). */
    importProject: (file: Blob, name = file instanceof File ? file.name : 'project.zip') =>
      ok(api.POST('/api/import/project', { body: { file }, bodySerializer: zipPart(name) })),

    /** Imports the skills of a zip (a skill's folder, or a folder of them, as the official
     *  collection is): every folder with a SKILL.md becomes a skill, global or `projectId`'s, all
     *  of them or none; fonts, images and hidden files are left out and listed in `left_out`
     *  (`invalid_import`, `invalid_skill`, `name_taken`, `file_too_large`). */
    importSkills: (file: Blob, projectId: number | null = null, name = file instanceof File ? file.name : 'skills.zip') =>
      ok(api.POST('/api/skills/import', {
        body: { file, project_id: projectId },
        bodySerializer: (form: { file: Blob; project_id?: number | null }) => {
          const parts = new FormData();
          parts.append('file', form.file, name);
          if (form.project_id != null) parts.append('project_id', String(form.project_id));
          return parts;
        },
      })),

    /** Puts a backup (`backup`) in place of the data. It is checked whole first: one that is not a
     *  Maru backup, or is damaged, changes nothing (`not_a_backup`, `backup_damaged`,
     *  `unsafe_backup_entry`, `invalid_upload`, `file_too_large`). Right after the answer Maru
     *  closes and starts again on it, keeping the data it replaced as `kept_as`: `maru serve` on
     *  the same address and token, the desktop app in a new window. */
    restoreBackup: (file: Blob, name = file instanceof File ? file.name : 'maru-backup.zip') =>
      ok(api.POST('/api/restore', { body: { file }, bodySerializer: zipPart(name) })),

    /** Chats across every project whose messages or title match `q`, best first; `versions`: also
     *  earlier versions of messages (each such hit marked `earlier_version`). */
    searchChats: async (q: Query<'/api/search', 'get'>['q'], limit?: Query<'/api/search', 'get'>['limit'], versions?: boolean) =>
      (await ok(api.GET('/api/search', { params: { query: present({ q, limit, versions: versions || null }) } }))) as ChatHit[],
    /** Passages of the files of every chat and project matching `q`, best first, each with its page
     *  or line (`session_id` null: a project's own file). `highlights` as for `searchChats`. */
    searchFiles: async (q: Query<'/api/search/files', 'get'>['q'], limit?: Query<'/api/search/files', 'get'>['limit']) =>
      (await ok(api.GET('/api/search/files', { params: { query: present({ q, limit }) } }))) as FileHit[],

    /**
     * The user's MCP tool servers, their secrets left out (`env_keys`, `header_keys`: names only).
     * A server starts when first needed (a turn, or `toolServerTools`), not when added. `env` and
     * `headers` of a patch are merged: a name set to a string sets it, to `null` removes it, and a
     * name left out keeps its unseen value.
     */
    listToolServers: () => ok(api.GET('/api/tool-servers')),
    createToolServer: (server: Body<'/api/tool-servers', 'post'>) => ok(api.POST('/api/tool-servers', { body: server })),
    updateToolServer: (serverId: number, patch: Body<'/api/tool-servers/{id}', 'patch'>) =>
      ok(api.PATCH('/api/tool-servers/{id}', { ...byId(serverId), body: patch })),
    deleteToolServer: (serverId: number) => ok(api.DELETE('/api/tool-servers/{id}', byId(serverId))),
    /** Its tools, starting it first (rejects with `tool_server_failed` in its own words, or `tool_server_off`). */
    toolServerTools: (serverId: number) => ok(api.GET('/api/tool-servers/{id}/tools', byId(serverId))),
    /** A pasted command line split by shell rules into the program and each argument
     *  (`invalid_command_line` when a quote is left open). */
    splitCommandLine: (line: string) => ok(api.POST('/api/tool-servers/command-line', { body: { line } })),
    /** What adding from an mcp.json's text would add, server by server; adds nothing. */
    previewToolServerImport: (text: string) => ok(api.POST('/api/tool-servers/import/preview', { body: { text } })),
    /** Adds the chosen servers of an mcp.json (by their names in the file) at once: all or none. */
    importToolServers: (text: string, chosen: string[]) => ok(api.POST('/api/tool-servers/import', { body: { text, chosen } })),
    /** Answers a turn's `approval_needed`: run the call (`always`: and this tool from now on without
     *  asking), or not. `not_pending` (409): answered already (another window), or the turn stopped. */
    approveToolCall: (approval: string, always = false) =>
      ok(api.POST('/api/tool-calls/{approval}/approve', { params: { path: { approval } }, body: always ? { always: true } : {} })),
    denyToolCall: (approval: string) => ok(api.POST('/api/tool-calls/{approval}/deny', { params: { path: { approval } } })),

    // Turns. Each resolves when the turn's stream has ended (after `done` or `error` reached the
    // sink, or the connection closed early); a refused turn rejects with an `ApiError` before any
    // event (e.g. `turn_running`, `empty_message`), or after its first words when it stored
    // nothing (an `error` with `nothing_stored`: a new message is not in the chat, to be sent again).
    /** `images`: image attachments of the chat or its project to send with it, for models that see. */
    /** `skills`: loaded with the message (`/` in the composer), by name. */
    sendMessage: (sessionId: number, content: string, sink: TurnSink, images: number[] = [], skills: string[] = []) =>
      turn(api.POST('/api/sessions/{id}/messages', { ...byId(sessionId), body: { content, ...(images.length ? { images } : {}), ...(skills.length ? { skills } : {}) }, ...STREAM }), sink),
    regenerate: (sessionId: number, sink: TurnSink) => turn(api.POST('/api/sessions/{id}/regenerate', { ...byId(sessionId), ...STREAM }), sink),
    resend: (messageId: number, content: string, sink: TurnSink) =>
      turn(api.POST('/api/messages/{id}/resend', { ...byId(messageId), body: { content }, ...STREAM }), sink),
    stop: (sessionId: number) => ok(api.POST('/api/sessions/{id}/stop', byId(sessionId))),
    /**
     * Follows the turn running in a chat (started by another window, or before a reload): replays
     * what streamed so far, then the rest as it comes. Rejects with `no_turn_running` (409) when
     * nothing is being written.
     */
    attach: (sessionId: number, sink: TurnSink) => turn(api.GET('/api/sessions/{id}/events', { ...byId(sessionId), ...STREAM }), sink),

    /**
     * What changes, live, whoever changed it (another tab, the API, a turn): each `Change` to
     * `sink` as it comes, after `opened` (the server answered). Resolves when the stream ends (the
     * server stopped) or `signal` aborts; rejects when it could not be opened.
     */
    changes: (sink: (change: Change) => void, opened: () => void = () => {}, signal?: AbortSignal) =>
      changes(api.GET('/api/events', STREAM), sink, opened, signal),
  };
}

/** The changes' event stream, each handed to `sink`, until it ends. */
async function changes(call: Streamed, sink: (change: Change) => void, opened: () => void, signal?: AbortSignal): Promise<void> {
  const { data: body, response: res } = await call;
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !body) {
    throw new ApiError('bad_response', 'The server did not answer /api/events with a stream of events.', res.status);
  }
  opened();
  try {
    for await (const ev of readSse(body, signal)) {
      if (!CHANGES.has(ev.event)) continue;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(ev.data) as Record<string, unknown>;
      } catch {
        continue;
      }
      sink({ ...data, type: ev.event } as Change);
    }
  } catch {
    // The connection broke: ended, like a server that stopped.
  }
}

/** A turn's events, handed to `sink` as they arrive, until `done` or `error` (or an early close). */
async function turn(call: Streamed, sink: TurnSink): Promise<void> {
  const { data: body, response: res } = await call;
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !body) {
    throw new ApiError('bad_response', 'The server did not answer the turn with a stream of events.', res.status);
  }
  let ended = false;
  let refused: ApiError | null = null;
  try {
    for await (const ev of readSse(body)) {
      if (!TURN_EVENTS.has(ev.event)) continue;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(ev.data) as Record<string, unknown>;
      } catch {
        continue;
      }
      const event = { ...data, type: ev.event } as TurnEvent;
      if (event.type === 'done' || event.type === 'error') ended = true;
      if (event.type === 'error' && event.nothing_stored) refused = new ApiError(serverCode(event.code), event.message);
      else sink(event);
    }
  } catch {
    // The connection broke mid-stream: reported below like an early close.
  }
  if (!ended) {
    sink({
      type: 'error',
      code: 'stream_closed',
      message: 'The connection to Maru closed before the reply finished. The reply may still be running; it will show when it is saved.',
      message_id: null,
      nothing_stored: false,
    });
  }
  if (refused) throw refused;
}

/** A file the server sent, named as its Content-Disposition says (else `fallback`). */
async function download(call: Downloaded, fallback: string): Promise<DownloadedFile> {
  const { data, response } = await call;
  return { blob: data ?? new Blob([]), name: fileName(response.headers.get('content-disposition'), fallback) };
}

/** The file name a Content-Disposition gives: its UTF-8 form (RFC 5987) first, then the plain one. */
export function fileName(disposition: string | null, fallback: string): string {
  const encoded = disposition?.match(/filename\*=UTF-8''([^;]+)/i)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // a malformed escape: fall through to the plain name
    }
  }
  return disposition?.match(/filename="([^"]+)"/i)?.[1] ?? fallback;
}
