// `Backend` over `maru serve`: JSON routes under /api with a bearer token, and turns as
// Server-Sent Events answering a POST (read with fetch, since EventSource cannot POST).

import { ApiError, type Backend, type DownloadedFile, type TurnSink } from './backend';
import { readSse } from './sse';
import type {
  Attachment, AttachmentScope, ChatHit, ContextView, Deleted, DeletedPreset, DeletedProject, FoundServer, Health, Memory, MemoryPatch,
  MemoryStatusQuery, Message, MessageEdit, MessagePage, MessageQuery, ModelInfo, NewMemory, NewPreset, NewProject, NewSession,
  NewTurn, Preset, PresetPatch, Project, ProjectPatch, SearchQuery, Session, SessionPage, SessionPatch, SessionQuery,
  SettingsPatch, SettingsView, Stopped, TurnEvent,
} from './types';
import type { ChatExport, ExportFormat } from './types';
import type { DemoModel } from './generated/DemoModel';

export interface HttpBackendOptions {
  /** Where `maru serve` answers; the page's own origin by default. */
  baseUrl?: string;
  token: string;
  /** Told whenever a request reaches the server (true) or cannot (false). */
  onReachable?: (reachable: boolean) => void;
  fetch?: typeof fetch;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const TURN_EVENTS = new Set(['token', 'reasoning', 'tool_call', 'tool_result', 'usage', 'done', 'error']);

export class HttpBackend implements Backend {
  private readonly base: string;
  private readonly token: string;
  private readonly onReachable: (reachable: boolean) => void;
  private readonly fetchFn: typeof fetch;

  constructor(opts: HttpBackendOptions) {
    this.base = (opts.baseUrl ?? window.location.origin).replace(/\/$/, '');
    this.token = opts.token;
    this.onReachable = opts.onReachable ?? (() => {});
    this.fetchFn = opts.fetch ?? window.fetch.bind(window);
  }

  // ---- plumbing

  private async send(method: Method, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: accept };
    // A form (an upload) sets its own multipart Content-Type, boundary included.
    const form = body instanceof FormData;
    if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchFn(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : form ? body : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      this.onReachable(false);
      throw new ApiError('offline', `Cannot reach Maru at ${this.base}. Is \`maru serve\` still running?`);
    }
    this.onReachable(true);
    if (!res.ok) throw await errorFrom(res);
    return res;
  }

  private async json<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError('bad_response', `The server sent something that is not JSON for ${path}.`, res.status);
    }
  }

  private async turn(path: string, body: unknown, sink: TurnSink, method: Method = 'POST'): Promise<void> {
    const res = await this.send(method, path, body, 'text/event-stream');
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') || !res.body) {
      throw new ApiError('bad_response', 'The server did not answer the turn with a stream of events.', res.status);
    }
    let ended = false;
    try {
      for await (const ev of readSse(res.body)) {
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

  // ---- the API

  health(): Promise<Health> {
    return this.json('GET', '/api/health');
  }

  listProjects(): Promise<Project[]> {
    return this.json('GET', '/api/projects');
  }
  createProject(project: NewProject): Promise<Project> {
    return this.json('POST', '/api/projects', project);
  }
  updateProject(id: number, patch: ProjectPatch): Promise<Project> {
    return this.json('PATCH', `/api/projects/${id}`, patch);
  }
  deleteProject(id: number): Promise<DeletedProject> {
    return this.json('DELETE', `/api/projects/${id}`);
  }

  listSessions(q: SessionQuery): Promise<SessionPage> {
    return this.json('GET', `/api/sessions${query({ project_id: q.project_id, cursor: q.cursor, limit: q.limit })}`);
  }
  createSession(session: NewSession): Promise<Session> {
    return this.json('POST', '/api/sessions', session);
  }
  getSession(id: number): Promise<Session> {
    return this.json('GET', `/api/sessions/${id}`);
  }
  updateSession(id: number, patch: SessionPatch): Promise<Session> {
    return this.json('PATCH', `/api/sessions/${id}`, patch);
  }
  async deleteSession(id: number): Promise<void> {
    await this.json<Deleted>('DELETE', `/api/sessions/${id}`);
  }

  listMessages(sessionId: number, q: MessageQuery = {}): Promise<MessagePage> {
    return this.json('GET', `/api/sessions/${sessionId}/messages${query({ before: q.before, limit: q.limit })}`);
  }
  editMessage(id: number, content: string): Promise<Message> {
    const edit: MessageEdit = { content };
    return this.json('PATCH', `/api/messages/${id}`, edit);
  }
  async deleteMessage(id: number): Promise<void> {
    await this.json<Deleted>('DELETE', `/api/messages/${id}`);
  }
  chooseVersion(id: number): Promise<MessagePage> {
    return this.json('POST', `/api/messages/${id}/choose`);
  }

  getSettings(): Promise<SettingsView> {
    return this.json('GET', '/api/settings');
  }
  updateSettings(patch: SettingsPatch): Promise<SettingsView> {
    return this.json('PATCH', '/api/settings', patch);
  }

  listMemories(status?: MemoryStatusQuery['status']): Promise<Memory[]> {
    const q: MemoryStatusQuery = { status };
    return this.json('GET', `/api/memories${query({ status: q.status })}`);
  }
  createMemory(memory: NewMemory): Promise<Memory> {
    return this.json('POST', '/api/memories', memory);
  }
  updateMemory(id: number, patch: MemoryPatch): Promise<Memory> {
    return this.json('PATCH', `/api/memories/${id}`, patch);
  }
  acceptMemory(id: number): Promise<Memory> {
    return this.json('POST', `/api/memories/${id}/accept`);
  }
  async deleteMemory(id: number): Promise<void> {
    await this.json<Deleted>('DELETE', `/api/memories/${id}`);
  }

  listPresets(): Promise<Preset[]> {
    return this.json('GET', '/api/presets');
  }
  createPreset(preset: NewPreset): Promise<Preset> {
    return this.json('POST', '/api/presets', preset);
  }
  updatePreset(id: number, patch: PresetPatch): Promise<Preset> {
    return this.json('PATCH', `/api/presets/${id}`, patch);
  }
  deletePreset(id: number): Promise<DeletedPreset> {
    return this.json('DELETE', `/api/presets/${id}`);
  }

  listModels(): Promise<ModelInfo[]> {
    return this.json('GET', '/api/models');
  }
  probeServers(): Promise<FoundServer[]> {
    return this.json('GET', '/api/servers');
  }

  demoModel(): Promise<DemoModel> {
    return this.json('GET', '/api/demo');
  }

  startDemoModel(): Promise<DemoModel> {
    return this.json('POST', '/api/demo');
  }

  context(sessionId: number): Promise<ContextView> {
    return this.json('GET', `/api/sessions/${sessionId}/context`);
  }

  uploadAttachment(scope: AttachmentScope, file: Blob, name: string): Promise<Attachment> {
    // The parts of `UploadForm`: the file (its file name is the display name) and one id.
    const form = new FormData();
    if (scope.session_id != null) form.append('session_id', String(scope.session_id));
    if (scope.project_id != null) form.append('project_id', String(scope.project_id));
    // As a File of that name: the part's file name is what the server shows.
    const part = file instanceof File && file.name === name ? file : new File([file], name, { type: file.type });
    form.append('file', part, name);
    return this.json('POST', '/api/attachments', form);
  }
  listAttachments(scope: AttachmentScope): Promise<Attachment[]> {
    return this.json('GET', `/api/attachments${query({ session_id: scope.session_id, project_id: scope.project_id })}`);
  }
  getAttachment(id: number): Promise<Attachment> {
    return this.json('GET', `/api/attachments/${id}`);
  }
  deleteAttachment(id: number): Promise<Deleted> {
    return this.json('DELETE', `/api/attachments/${id}`);
  }
  async downloadAttachment(id: number): Promise<Blob> {
    const res = await this.send('GET', `/api/attachments/${id}/content`, undefined, '*/*');
    return res.blob();
  }

  exportChat(sessionId: number, format: ExportFormat): Promise<DownloadedFile> {
    return this.download(`/api/sessions/${sessionId}/export?format=${format}`, `chat-${sessionId}.${format === 'json' ? 'json' : 'md'}`);
  }
  exportProject(projectId: number): Promise<DownloadedFile> {
    return this.download(`/api/projects/${projectId}/export`, `project-${projectId}.zip`);
  }
  backup(): Promise<DownloadedFile> {
    return this.download('/api/backup', 'maru-backup.zip');
  }
  importChat(chat: ChatExport): Promise<Session> {
    return this.json('POST', '/api/import', chat);
  }
  private async download(path: string, fallback: string): Promise<DownloadedFile> {
    const res = await this.send('GET', path, undefined, '*/*');
    return { blob: await res.blob(), name: fileName(res.headers.get('content-disposition'), fallback) };
  }

  searchChats(q: string, limit?: number): Promise<ChatHit[]> {
    const search: SearchQuery = { q, limit };
    return this.json('GET', `/api/search${query({ q: search.q, limit: search.limit })}`);
  }

  sendMessage(sessionId: number, content: string, sink: TurnSink, images: number[] = []): Promise<void> {
    const turn: NewTurn = images.length ? { content, images } : { content };
    return this.turn(`/api/sessions/${sessionId}/messages`, turn, sink);
  }
  regenerate(sessionId: number, sink: TurnSink): Promise<void> {
    return this.turn(`/api/sessions/${sessionId}/regenerate`, undefined, sink);
  }
  resend(messageId: number, content: string, sink: TurnSink): Promise<void> {
    const turn: NewTurn = { content };
    return this.turn(`/api/messages/${messageId}/resend`, turn, sink);
  }
  stop(sessionId: number): Promise<Stopped> {
    return this.json('POST', `/api/sessions/${sessionId}/stop`);
  }
  attach(sessionId: number, sink: TurnSink): Promise<void> {
    return this.turn(`/api/sessions/${sessionId}/events`, undefined, sink, 'GET');
  }
}

/** `?a=1&b=x` from the defined values, or "". */
function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The server's `{code, message}`, or a readable stand-in when the body is something else. */
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

async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; params?: unknown };
    if (typeof body.message === 'string') {
      const params = body.params && typeof body.params === 'object' ? (body.params as Record<string, string>) : {};
      return new ApiError(typeof body.code === 'string' ? body.code : 'error', body.message, res.status, params);
    }
  } catch {
    // not JSON
  }
  const detail = text.trim().slice(0, 200);
  return new ApiError('http_' + res.status, `The server answered ${res.status} ${res.statusText}${detail ? `: ${detail}` : ''}`, res.status);
}
