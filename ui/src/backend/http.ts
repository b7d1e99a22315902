// `Backend` over the typed client of api.ts: each method is one call of an operation of the
// generated `paths` (its path, parameters and body are checked against the server's OpenAPI
// document; the methods' own types come from `Backend`). The client speaks HTTP to `maru serve`,
// or the same requests over Tauri IPC in the desktop window (`fetch: ipcFetch`). Turns are
// Server-Sent Events answering a POST (or the GET of `/events`), read from the response's body,
// since EventSource cannot POST.

import type { ChatHit, TurnEvent } from './types';
import { createApi, present, type Ok } from './api';
import { ApiError, type Backend, type DownloadedFile, type TurnSink } from './backend';
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

const TURN_EVENTS = new Set(['token', 'reasoning', 'tool_call', 'tool_result', 'usage', 'done', 'error']);

/** A turn's answer: the event stream's bytes. */
const STREAM = { parseAs: 'stream', headers: { Accept: 'text/event-stream' } } as const;
/** A file's answer: its bytes, whatever their type. */
const FILE = { parseAs: 'blob', headers: { Accept: '*/*' } } as const;

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

export function httpBackend(opts: HttpBackendOptions): Backend {
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
    createProject: (project) => ok(api.POST('/api/projects', { body: project })),
    updateProject: (projectId, patch) => ok(api.PATCH('/api/projects/{id}', { ...byId(projectId), body: patch })),
    deleteProject: (projectId) => ok(api.DELETE('/api/projects/{id}', byId(projectId))),

    listSessions: (query) => ok(api.GET('/api/sessions', { params: { query: present(query) } })),
    createSession: (session) => ok(api.POST('/api/sessions', { body: session })),
    getSession: (sessionId) => ok(api.GET('/api/sessions/{id}', byId(sessionId))),
    updateSession: (sessionId, patch) => ok(api.PATCH('/api/sessions/{id}', { ...byId(sessionId), body: patch })),
    deleteSession: async (sessionId) => {
      await ok(api.DELETE('/api/sessions/{id}', byId(sessionId)));
    },

    listMessages: (sessionId, query = {}) =>
      ok(api.GET('/api/sessions/{id}/messages', { params: { path: { id: sessionId }, query: present(query) } })),
    editMessage: (messageId, content) => ok(api.PATCH('/api/messages/{id}', { ...byId(messageId), body: { content } })),
    deleteMessage: async (messageId) => {
      await ok(api.DELETE('/api/messages/{id}', byId(messageId)));
    },
    chooseVersion: (messageId) => ok(api.POST('/api/messages/{id}/choose', byId(messageId))),

    getSettings: () => ok(api.GET('/api/settings')),
    updateSettings: (patch) => ok(api.PATCH('/api/settings', { body: patch })),

    listMemories: (status) => ok(api.GET('/api/memories', { params: { query: present({ status }) } })),
    createMemory: (memory) => ok(api.POST('/api/memories', { body: memory })),
    updateMemory: (memoryId, patch) => ok(api.PATCH('/api/memories/{id}', { ...byId(memoryId), body: patch })),
    acceptMemory: (memoryId) => ok(api.POST('/api/memories/{id}/accept', byId(memoryId))),
    deleteMemory: async (memoryId) => {
      await ok(api.DELETE('/api/memories/{id}', byId(memoryId)));
    },

    listPresets: () => ok(api.GET('/api/presets')),
    createPreset: (preset) => ok(api.POST('/api/presets', { body: preset })),
    updatePreset: (presetId, patch) => ok(api.PATCH('/api/presets/{id}', { ...byId(presetId), body: patch })),
    deletePreset: (presetId) => ok(api.DELETE('/api/presets/{id}', byId(presetId))),

    listModels: () => ok(api.GET('/api/models')),
    probeServers: () => ok(api.GET('/api/servers')),
    demoModel: () => ok(api.GET('/api/demo')),
    startDemoModel: () => ok(api.POST('/api/demo')),

    // openapi-fetch's `Readable` (for readOnly/writeOnly markers, of which Maru's document has
    // none) widens tuples to arrays: `TemplateInfo.meta`'s `[key, value]` pairs would read `string[][]`.
    context: async (sessionId) =>
      (await ok(api.GET('/api/sessions/{id}/context', byId(sessionId)))) as Ok<'/api/sessions/{id}/context', 'get'>,
    compact: (sessionId) => ok(api.POST('/api/sessions/{id}/compact', byId(sessionId))),

    uploadAttachment: (scope, file, name) => {
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
    listAttachments: (scope) => ok(api.GET('/api/attachments', { params: { query: present(scope) } })),
    getAttachment: (attachmentId) => ok(api.GET('/api/attachments/{id}', byId(attachmentId))),
    deleteAttachment: (attachmentId) => ok(api.DELETE('/api/attachments/{id}', byId(attachmentId))),
    downloadAttachment: async (attachmentId) =>
      (await download(api.GET('/api/attachments/{id}/content', { ...byId(attachmentId), ...FILE }), '')).blob,

    exportChat: (sessionId, format) =>
      download(
        api.GET('/api/sessions/{id}/export', { params: { path: { id: sessionId }, query: { format } }, ...FILE }),
        `chat-${sessionId}.${format === 'json' ? 'json' : 'md'}`,
      ),
    exportProject: (projectId) => download(api.GET('/api/projects/{id}/export', { ...byId(projectId), ...FILE }), `project-${projectId}.zip`),
    backup: () => download(api.GET('/api/backup', FILE), 'maru-backup.zip'),
    importChat: (chat) => ok(api.POST('/api/import', { body: chat })),

    // ts-rs's `ChatHit`: the document types `highlights` as `number[][]`, not as pairs.
    searchChats: async (q, limit) => (await ok(api.GET('/api/search', { params: { query: present({ q, limit }) } }))) as ChatHit[],

    sendMessage: (sessionId, content, sink, images = []) =>
      turn(api.POST('/api/sessions/{id}/messages', { ...byId(sessionId), body: images.length ? { content, images } : { content }, ...STREAM }), sink),
    regenerate: (sessionId, sink) => turn(api.POST('/api/sessions/{id}/regenerate', { ...byId(sessionId), ...STREAM }), sink),
    resend: (messageId, content, sink) => turn(api.POST('/api/messages/{id}/resend', { ...byId(messageId), body: { content }, ...STREAM }), sink),
    stop: (sessionId) => ok(api.POST('/api/sessions/{id}/stop', byId(sessionId))),
    attach: (sessionId, sink) => turn(api.GET('/api/sessions/{id}/events', { ...byId(sessionId), ...STREAM }), sink),
  };
}

/** A turn's events, handed to `sink` as they arrive, until `done` or `error` (or an early close). */
async function turn(call: Streamed, sink: TurnSink): Promise<void> {
  const { data: body, response: res } = await call;
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !body) {
    throw new ApiError('bad_response', 'The server did not answer the turn with a stream of events.', res.status);
  }
  let ended = false;
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
      sink(event);
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
    });
  }
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
