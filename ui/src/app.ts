// The UI's state and every action on it. Views read the state, call these actions, and redraw
// when a topic they listen to is emitted. Nothing here touches the DOM except the address bar.

import { ApiError, errorMessage, type Backend } from './backend/backend';
import type {
  Attachment, AttachmentScope, ChatHit, ContextView, FoundServer, Memory, MemoryPatch, Message, Preset, PresetPatch, Project, ProjectPatch,
  Session, SettingsPatch, SettingsView, TurnEvent, Usage,
} from './backend/types';
import { setLanguage, t } from './lib/i18n';
import { applyTheme } from './lib/theme';
import { toast } from './views/toast';

export type Topic = 'sidebar' | 'chat' | 'live' | 'panel' | 'settings' | 'presets' | 'memories' | 'context' | 'connection' | 'serverOffer' | 'files';

export interface ProjectEntry {
  project: Project;
  sessions: Session[];
  nextCursor: string | null;
  loaded: boolean;
  loading: boolean;
  expanded: boolean;
}

export interface LiveTool {
  id: string;
  name: string;
  arguments: string;
  result?: string;
  isError?: boolean;
}

/** A turn in flight, drawn as the reply being written. */
export interface LiveTurn {
  sessionId: number;
  text: string;
  reasoning: string;
  tools: LiveTool[];
  usage: Usage | null;
  error: { code: string; message: string } | null;
  /** Messages after this id are being replaced (regenerate, resend) and are hidden meanwhile. */
  cutAfter: number | null;
  startedAt: number;
  firstTokenAt: number | null;
  stopping: boolean;
  /** Followed from `attach` (started by another window, or before a reload), not started here. */
  attached: boolean;
}

export type Panel = 'context' | 'memory' | 'files' | null;

/** A file given to the open chat from this window, shown as a chip until the next message is sent. */
export interface Upload {
  /** Local, for the view. */
  key: number;
  sessionId: number;
  name: string;
  size: number;
  /** Null while it is being sent; then the server's record, kept current while it is indexed. */
  attachment: Attachment | null;
}

/** A file to attach: its content and the name it is shown under. */
export interface FileToAttach {
  blob: Blob;
  name: string;
}

/** Offered at start when the configured model server cannot be used: what answers nearby. */
export interface ServerOffer {
  /** The configured server does not answer, or it lists no model and none is set. */
  reason: 'unreachable' | 'no_model';
  /** The configured address. */
  endpoint: string;
  /** Servers on the usual local ports (8000, 8080, 11434, 1234), the configured one left out. */
  servers: FoundServer[];
}

/** `/api/models` error codes that mean the configured model server cannot be reached at all. */
const UNREACHABLE_CODES = new Set(['unreachable', 'dns', 'network', 'timeout_connect', 'invalid_url'].map((c) => `model_server.${c}`));

/** How often an attachment being indexed is asked about, at first and at most, and for how long. */
const INDEX_POLL_MS = [400, 2000];
const INDEX_WATCH_MAX_MS = 30 * 60_000;
/** Older pages loaded, at most, to reach a message a search result points at. */
const FIND_PAGES = 10;
const SESSION_PAGE = 30;
const MESSAGE_PAGE = 50;
const POLL_MS = 1500;

export class App {
  projects: ProjectEntry[] = [];
  /** The open chat, or null for a new chat not yet sent (a draft). */
  session: Session | null = null;
  draftProjectId: number | null = null;
  draftPreset: string | null = null;
  /** The open chat's messages, oldest first. */
  messages: Message[] = [];
  olderBefore: number | null = null;
  loadingMessages = false;
  live = new Map<number, LiveTurn>();
  settings: SettingsView | null = null;
  presets: Preset[] = [];
  /** The accepted facts (section ⑤ uses them). */
  memories: Memory[] = [];
  /** The model's proposals waiting for the user (memory in review mode); counted on the Memory buttons. */
  pendingMemories: Memory[] = [];
  memoriesLoaded = false;
  memoriesError: string | null = null;
  /** Titles of the chats facts came from, by id, for the ones not in the sidebar's lists. */
  sourceTitles = new Map<number, string | null>();
  panel: Panel = null;
  context: ContextView | null = null;
  contextError: string | null = null;
  contextLoading = false;
  reachable = true;
  unauthorized = false;
  serverOffer: ServerOffer | null = null;
  version = '';
  /** Files by scope (`scopeKey`): a chat's own, a project's. Missing until loaded. */
  files = new Map<string, Attachment[]>();
  /** Files given to chats from this window since their last message was sent. */
  uploads: Upload[] = [];
  /** The codes of replies that failed while this window watched: a stored reply keeps only the
   *  server's English text, and its code lets the chat show it in the UI's language. */
  readonly replyErrors = new Map<number, { code: string; message: string }>();
  /** A message to bring into view once the open chat shows it (from a search result). */
  focusMessageId: number | null = null;

  private listeners = new Map<Topic, Set<() => void>>();
  private pollTimer: number | undefined;
  private healthTimer: number | undefined;
  private openToken = 0;
  private creating: Promise<Session | undefined> | null = null;
  private watched = new Set<number>();
  private uploadKey = 0;
  private memoriesAsked = 0;

  constructor(readonly backend: Backend) {}

  // ---- change notification

  /** Listens to a topic; returns what stops listening. */
  on(topic: Topic, fn: () => void): () => void {
    if (!this.listeners.has(topic)) this.listeners.set(topic, new Set());
    this.listeners.get(topic)!.add(fn);
    return () => this.listeners.get(topic)?.delete(fn);
  }

  emit(...topics: Topic[]): void {
    for (const topic of new Set(topics)) for (const fn of this.listeners.get(topic) ?? []) fn();
  }

  /** Runs an action; a failure is shown to the user and reported as `undefined`. */
  async attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  fail(e: unknown): void {
    if (e instanceof ApiError && e.status === 401) {
      this.unauthorized = true;
      this.emit('connection');
      return;
    }
    if (e instanceof ApiError && e.offline) {
      this.setReachable(false);
      return;
    }
    toast(errorMessage(e), 'error');
  }

  /** Called by the backend on every request: shows or clears the "server is down" banner. */
  setReachable(reachable: boolean): void {
    if (this.reachable === reachable) return;
    this.reachable = reachable;
    this.emit('connection');
    if (!reachable) this.watchHealth();
  }

  private watchHealth(): void {
    window.clearTimeout(this.healthTimer);
    this.healthTimer = window.setTimeout(async () => {
      try {
        await this.backend.health();
        await this.reload();
      } catch {
        if (!this.reachable) this.watchHealth();
      }
    }, 3000);
  }

  // ---- start and navigation

  async start(): Promise<void> {
    window.addEventListener('popstate', () => void this.route());
    try {
      await this.reload(true);
    } catch (e) {
      this.fail(e);
      this.emit('sidebar', 'chat', 'settings');
      return;
    }
    void this.checkModelServer();
  }

  /** Everything from the server: at start, and again after the server came back. */
  async reload(initial = false): Promise<void> {
    const [health, settings, presets, projects] = await Promise.all([
      this.backend.health(),
      this.backend.getSettings(),
      this.backend.listPresets(),
      this.backend.listProjects(),
    ]);
    this.version = health.version;
    this.applySettings(settings);
    this.presets = presets;
    const first = this.projects.length === 0;
    this.setProjects(projects);
    if (first) {
      const def = this.projects.find((p) => p.project.is_default);
      if (def) def.expanded = true;
    }
    this.setReachable(true);
    this.emit('sidebar', 'settings', 'presets', 'chat');
    if (initial || first) await this.route();
    else if (this.session) await this.loadMessages(this.session.id);
    if (!initial && !first) void this.loadChatFiles();
    // The Memory buttons count the proposals waiting, so they are loaded at start.
    if (this.panel !== 'memory') void this.loadMemories(true);
    await Promise.all(this.projects.filter((p) => p.expanded).map((p) => this.loadSessions(p.project.id)));
    if (this.panel === 'context') await this.loadContext();
    if (this.panel === 'memory') await this.loadMemories();
  }

  private async route(): Promise<void> {
    const m = /^#\/chat\/(\d+)$/.exec(window.location.hash);
    if (m) await this.openSession(Number(m[1]), false);
    else this.newChat(this.draftProjectId ?? undefined, false);
  }

  private setUrl(sessionId: number | null, push: boolean): void {
    const url = window.location.pathname + window.location.search + (sessionId ? `#/chat/${sessionId}` : '');
    if (url === window.location.pathname + window.location.search + window.location.hash) return;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }

  /** Opens a chat; `focusMessageId` (from a search result) is brought into view once shown. */
  async openSession(id: number, push = true, focusMessageId: number | null = null): Promise<void> {
    const token = ++this.openToken;
    try {
      const session = await this.backend.getSession(id);
      if (token !== this.openToken) return;
      this.session = session;
      this.messages = [];
      this.olderBefore = null;
      this.focusMessageId = focusMessageId;
      this.setUrl(id, push);
      void this.loadChatFiles();
      const entry = this.entry(session.project_id);
      if (entry && !entry.expanded) {
        entry.expanded = true;
        if (!entry.loaded) void this.loadSessions(entry.project.id);
      }
      this.emit('chat', 'sidebar');
      await this.loadMessages(id);
      if (focusMessageId !== null) await this.loadUntil(id, focusMessageId);
      if (this.panel === 'context') void this.loadContext();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') {
        this.newChat(undefined, false);
        toast(errorMessage(e), 'error');
        return;
      }
      this.fail(e);
    }
  }

  /** Loads older pages (a few at most) until the message is among those shown. */
  private async loadUntil(sessionId: number, messageId: number): Promise<void> {
    for (let i = 0; i < FIND_PAGES; i++) {
      if (this.session?.id !== sessionId || this.focusMessageId !== messageId) return;
      if (this.messages.some((m) => m.id === messageId) || this.olderBefore === null) break;
      await this.loadOlder();
    }
    // Not found (deleted since, or too far back): the chat simply opens.
    if (this.focusMessageId === messageId && !this.messages.some((m) => m.id === messageId)) this.focusMessageId = null;
  }

  /** A new chat: nothing is created until the first message is sent (or a file attached). */
  newChat(projectId?: number, push = true): void {
    this.openToken++;
    this.session = null;
    this.messages = [];
    this.olderBefore = null;
    this.focusMessageId = null;
    this.draftProjectId = projectId ?? this.defaultProjectId();
    this.draftPreset = null;
    this.context = null;
    this.setUrl(null, push);
    this.emit('chat', 'sidebar', 'context');
    void this.loadChatFiles();
  }

  defaultProjectId(): number | null {
    return this.projects.find((p) => p.project.is_default)?.project.id ?? null;
  }

  /** The project the open chat (or draft) belongs to. */
  currentProject(): Project | null {
    const id = this.session ? this.session.project_id : this.draftProjectId;
    return this.entry(id ?? -1)?.project ?? null;
  }

  entry(projectId: number): ProjectEntry | undefined {
    return this.projects.find((p) => p.project.id === projectId);
  }

  // ---- projects

  private setProjects(projects: Project[]): void {
    const old = new Map(this.projects.map((e) => [e.project.id, e]));
    this.projects = projects.map((project) => {
      const prev = old.get(project.id);
      return prev ? { ...prev, project } : { project, sessions: [], nextCursor: null, loaded: false, loading: false, expanded: false };
    });
  }

  async refreshProjects(): Promise<void> {
    this.setProjects(await this.backend.listProjects());
    this.emit('sidebar', 'chat');
  }

  toggleProject(id: number): void {
    const e = this.entry(id);
    if (!e) return;
    e.expanded = !e.expanded;
    this.emit('sidebar');
    if (e.expanded && !e.loaded) void this.attempt(() => this.loadSessions(id));
  }

  async createProject(name: string, instructions: string): Promise<Project | undefined> {
    return this.attempt(async () => {
      const p = await this.backend.createProject({ name, instructions });
      await this.refreshProjects();
      const e = this.entry(p.id);
      if (e) {
        e.expanded = true;
        e.loaded = true;
      }
      this.emit('sidebar');
      return p;
    });
  }

  async updateProject(id: number, patch: ProjectPatch): Promise<boolean> {
    const ok = await this.attempt(async () => {
      await this.backend.updateProject(id, patch);
      await this.refreshProjects();
      return true;
    });
    if (ok) this.contextChanged();
    return !!ok;
  }

  async deleteProject(id: number): Promise<void> {
    await this.attempt(async () => {
      const res = await this.backend.deleteProject(id);
      toast(t('deleteProjectDone', { n: res.moved_sessions }));
      if (this.draftProjectId === id) this.draftProjectId = res.default_project_id;
      await this.refreshProjects();
      await this.loadSessions(res.default_project_id);
      this.files.delete(scopeKey({ project_id: id }));
      if (this.session && this.session.project_id === id) {
        this.session = { ...this.session, project_id: res.default_project_id };
        this.emit('chat');
        this.contextChanged();
      }
      void this.loadChatFiles();
    });
  }

  // ---- sessions

  /** The first page of a project's chats (or as many as are shown, to keep the list stable). */
  async loadSessions(projectId: number): Promise<void> {
    const e = this.entry(projectId);
    if (!e) return;
    e.loading = true;
    this.emit('sidebar');
    try {
      const limit = Math.min(200, Math.max(SESSION_PAGE, e.sessions.length));
      const page = await this.backend.listSessions({ project_id: projectId, limit });
      e.sessions = page.sessions;
      e.nextCursor = page.next_cursor;
      e.loaded = true;
    } finally {
      e.loading = false;
      this.emit('sidebar');
    }
  }

  async loadMoreSessions(projectId: number): Promise<void> {
    const e = this.entry(projectId);
    if (!e || !e.nextCursor || e.loading) return;
    e.loading = true;
    this.emit('sidebar');
    await this.attempt(async () => {
      const page = await this.backend.listSessions({ project_id: projectId, cursor: e.nextCursor, limit: SESSION_PAGE });
      const known = new Set(e.sessions.map((s) => s.id));
      e.sessions.push(...page.sessions.filter((s) => !known.has(s.id)));
      e.nextCursor = page.next_cursor;
    });
    e.loading = false;
    this.emit('sidebar');
  }

  findSession(id: number): Session | undefined {
    if (this.session?.id === id) return this.session;
    for (const e of this.projects) {
      const s = e.sessions.find((x) => x.id === id);
      if (s) return s;
    }
    return undefined;
  }

  private sessionChanged(s: Session): void {
    if (this.session?.id === s.id) this.session = s;
    for (const e of this.projects) {
      const i = e.sessions.findIndex((x) => x.id === s.id);
      if (i !== -1) e.sessions[i] = s;
    }
    this.emit('sidebar', 'chat');
  }

  async renameSession(id: number, title: string): Promise<void> {
    await this.attempt(async () => {
      const s = await this.backend.updateSession(id, { title });
      this.sessionChanged(s);
      await this.loadSessions(s.project_id);
    });
  }

  async moveSession(id: number, projectId: number): Promise<void> {
    const before = this.findSession(id);
    if (!before || before.project_id === projectId) return;
    await this.attempt(async () => {
      const s = await this.backend.updateSession(id, { project_id: projectId });
      this.sessionChanged(s);
      const target = this.entry(projectId);
      if (target) target.expanded = true;
      await this.refreshProjects();
      await Promise.all([this.loadSessions(before.project_id), this.loadSessions(projectId)]);
      toast(t('moved', { project: this.projectName(target?.project) }));
      if (this.session?.id === id) {
        this.contextChanged();
        void this.loadChatFiles();
      }
    });
  }

  async deleteSession(id: number): Promise<void> {
    const s = this.findSession(id);
    await this.attempt(async () => {
      await this.backend.deleteSession(id);
      if (this.session?.id === id) this.newChat(s?.project_id);
      await this.refreshProjects();
      if (s) await this.loadSessions(s.project_id);
    });
  }

  async setPreset(key: string | null): Promise<void> {
    if (!this.session) {
      this.draftPreset = key;
      this.emit('chat');
      return;
    }
    const id = this.session.id;
    await this.attempt(async () => {
      this.sessionChanged(await this.backend.updateSession(id, { preset: key }));
      this.contextChanged();
    });
  }

  projectName(p: Project | undefined | null): string {
    if (!p) return '';
    return p.is_default ? t('defaultProject') : p.name;
  }

  // ---- messages

  async loadMessages(sessionId: number, follow = true): Promise<void> {
    window.clearTimeout(this.pollTimer);
    this.loadingMessages = true;
    this.emit('chat');
    try {
      const shown = this.messages.filter((m) => m.id > 0 && m.session_id === sessionId).length;
      const page = await this.backend.listMessages(sessionId, { limit: Math.min(500, Math.max(MESSAGE_PAGE, shown)) });
      if (this.session?.id !== sessionId) return;
      this.messages = page.messages.slice().reverse();
      this.olderBefore = page.next_before;
    } catch (e) {
      this.fail(e);
    } finally {
      this.loadingMessages = false;
      this.emit('chat');
    }
    if (follow) void this.followIfStreaming(sessionId);
    else this.pollIfStreaming(sessionId);
  }

  /** The open chat's messages as shown: while a reply is written, the live reply stands for it. */
  shownMessages(): Message[] {
    const live = this.currentLive();
    if (!live) return this.messages;
    // The messages being replaced (regenerate, resend), or else those of the running turn (after
    // the last saved message of the user), and the saved copy of the reply itself.
    let cut = live.cutAfter;
    if (cut === null) {
      const lastUser = [...this.messages].reverse().find((m) => m.role === 'user');
      if (lastUser && lastUser.id > 0) cut = lastUser.id;
    }
    return this.messages.filter((m) => m.status !== 'streaming' && !(cut !== null && m.id > cut));
  }

  /**
   * A reply still being written (by another window, or before a reload): followed live, with
   * Stop, from what streamed so far; the messages are loaded again when it ends.
   */
  private async followIfStreaming(sessionId: number): Promise<void> {
    if (this.live.has(sessionId) || this.session?.id !== sessionId) return;
    if (this.messages.at(-1)?.status !== 'streaming') return;
    const live = this.begin(sessionId, null);
    live.attached = true;
    try {
      await this.backend.attach(sessionId, (ev) => this.onEvent(live, ev));
    } catch (e) {
      if (this.live.get(sessionId) === live) this.live.delete(sessionId);
      this.emit('chat', 'sidebar');
      if (e instanceof ApiError && e.code === 'no_turn_running') {
        // Ended meanwhile: the saved messages are the reply (asked again, without following).
        if (this.session?.id === sessionId) await this.loadMessages(sessionId, false);
        return;
      }
      if (e instanceof ApiError && e.code === 'not_found') return;
      this.fail(e);
      return;
    }
    await this.finish(live);
  }

  /** A reply marked as being written that no turn follows: shows up as it is saved. */
  private pollIfStreaming(sessionId: number): void {
    if (this.live.has(sessionId)) return;
    if (!this.messages.some((m) => m.status === 'streaming')) return;
    this.pollTimer = window.setTimeout(() => {
      if (this.session?.id === sessionId && !this.live.has(sessionId)) void this.loadMessages(sessionId);
    }, POLL_MS);
  }

  async loadOlder(): Promise<void> {
    const s = this.session;
    if (!s || this.olderBefore === null) return;
    await this.attempt(async () => {
      const page = await this.backend.listMessages(s.id, { before: this.olderBefore, limit: MESSAGE_PAGE });
      if (this.session?.id !== s.id) return;
      this.messages = page.messages.slice().reverse().concat(this.messages);
      this.olderBefore = page.next_before;
      this.emit('chat');
    });
  }

  // ---- turns

  private begin(sessionId: number, cutAfter: number | null): LiveTurn {
    const live: LiveTurn = {
      sessionId, text: '', reasoning: '', tools: [], usage: null, error: null, cutAfter,
      startedAt: performance.now(), firstTokenAt: null, stopping: false, attached: false,
    };
    this.live.set(sessionId, live);
    window.clearTimeout(this.pollTimer);
    this.emit('chat', 'sidebar');
    return live;
  }

  private onEvent(live: LiveTurn, ev: TurnEvent): void {
    switch (ev.type) {
      case 'token':
        live.firstTokenAt ??= performance.now();
        live.text += ev.text;
        break;
      case 'reasoning':
        live.firstTokenAt ??= performance.now();
        live.reasoning += ev.text;
        break;
      case 'tool_call':
        live.tools.push({ id: ev.id, name: ev.name, arguments: ev.arguments });
        // The text so far was the model's preamble to its tool call; the next reply follows.
        break;
      case 'tool_result': {
        const call = live.tools.find((c) => c.id === ev.id);
        if (call) {
          call.result = ev.content;
          call.isError = ev.is_error;
        }
        break;
      }
      case 'usage':
        live.usage = ev.usage;
        break;
      case 'error':
        live.error = { code: ev.code, message: ev.message };
        if (ev.message_id !== null) this.replyErrors.set(ev.message_id, { code: ev.code, message: ev.message });
        break;
      case 'done':
        break;
    }
    if (this.session?.id === live.sessionId) this.emit('live');
  }

  private async finish(live: LiveTurn): Promise<void> {
    const sid = live.sessionId;
    try {
      if (this.session?.id === sid) {
        const session = await this.backend.getSession(sid);
        this.sessionChanged(session);
        await this.loadMessages(sid, false);
      }
    } catch (e) {
      this.fail(e);
    }
    if (this.live.get(sid) === live) this.live.delete(sid);
    this.emit('chat', 'sidebar');
    // The model may have proposed (or, in automatic mode, saved) a fact during the turn.
    void this.loadMemories(true);
    if (this.session?.id === sid) {
      // A reply followed from elsewhere that still shows as being written is asked again later.
      if (live.attached) this.pollIfStreaming(sid);
      else void this.followIfStreaming(sid);
    }
    const s = this.findSession(sid);
    if (s) void this.attempt(() => this.loadSessions(s.project_id));
    if (this.session?.id === sid) this.contextChanged();
  }

  private refused(sid: number, e: unknown): void {
    this.live.delete(sid);
    if (e instanceof ApiError && e.code === 'turn_running') toast(t('turnRunning'), 'error');
    else this.fail(e);
    this.emit('chat', 'sidebar');
  }

  /** Sends a message (creating the chat first if this is a draft). False if it was refused. */
  async send(content: string): Promise<boolean> {
    if (!content.trim()) {
      toast(t('nothingToSend'), 'error');
      return false;
    }
    const session = await this.ensureSession();
    if (!session) return false;
    const sid = session.id;
    if (this.live.has(sid)) {
      toast(t('turnRunning'), 'error');
      return false;
    }
    const now = Date.now();
    // Images uploaded in the composer go with the message (the model sees them); other files are
    // read by the model through search.
    const images = this.uploads
      .filter((u) => u.sessionId === sid && u.attachment?.kind === 'image' && u.attachment.status === 'ready')
      .map((u) => u.attachment!.id);
    const pending: Message = {
      id: -now, session_id: sid, role: 'user', content, status: 'complete', error: null, model: null,
      prompt_tokens: null, completion_tokens: null, cached_tokens: null, ttft_ms: null, tokens_per_second: null,
      runtime_note: null, reasoning: null, tool_calls: [], tool_call_id: null, tool_name: null, images, created_at: now, updated_at: now,
    };
    this.messages.push(pending);
    const live = this.begin(sid, null);
    // A new chat gets its title (and its project's count) from its first message, stored by the
    // time the reply's first event arrives.
    let untitled = !session.title.trim();
    const sink = (ev: TurnEvent) => {
      this.onEvent(live, ev);
      if (untitled) {
        untitled = false;
        void this.firstMessageStored(sid);
      }
    };
    try {
      await this.backend.sendMessage(sid, content, sink, images);
    } catch (e) {
      this.messages = this.messages.filter((m) => m !== pending);
      this.refused(sid, e);
      return false;
    }
    this.uploads = this.uploads.filter((u) => u.sessionId !== sid);
    this.emit('files');
    await this.finish(live);
    return true;
  }

  /** A new chat's first message is stored: its title and its project's count are shown. */
  private async firstMessageStored(sid: number): Promise<void> {
    try {
      this.sessionChanged(await this.backend.getSession(sid));
      await this.refreshProjects();
    } catch {
      // Shown again when the reply ends.
    }
  }

  /** The open chat, created first when it is a draft (once, however many ask at the same time). */
  async ensureSession(): Promise<Session | undefined> {
    if (this.session) return this.session;
    this.creating ??= this.createDraft().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  private async createDraft(): Promise<Session | undefined> {
    const token = this.openToken;
    const created = await this.attempt(async () => {
      let s = await this.backend.createSession({ project_id: this.draftProjectId });
      if (this.draftPreset) s = await this.backend.updateSession(s.id, { preset: this.draftPreset });
      return s;
    });
    if (!created) return undefined;
    const e = this.entry(created.project_id);
    if (e) {
      e.sessions.unshift(created);
      e.expanded = true;
    }
    // The project counts it.
    void this.attempt(() => this.refreshProjects());
    // Another chat was opened meanwhile: this one exists now, but is not the one shown.
    if (token !== this.openToken) {
      this.emit('sidebar');
      return undefined;
    }
    this.session = created;
    this.messages = [];
    this.files.set(scopeKey({ session_id: created.id }), []);
    this.setUrl(created.id, true);
    this.emit('chat', 'sidebar', 'files');
    return created;
  }

  /** Answers the last message again, replacing the reply after it. */
  async regenerate(): Promise<void> {
    const s = this.session;
    if (!s || this.live.has(s.id)) return;
    const lastUser = [...this.messages].reverse().find((m) => m.role === 'user');
    const live = this.begin(s.id, lastUser?.id ?? null);
    try {
      await this.backend.regenerate(s.id, (ev) => this.onEvent(live, ev));
    } catch (e) {
      this.refused(s.id, e);
      return;
    }
    await this.finish(live);
  }

  /** Edits one of the user's messages and answers it again; what came after is replaced. */
  async resend(messageId: number, content: string): Promise<boolean> {
    const s = this.session;
    if (!s || this.live.has(s.id)) return false;
    if (!content.trim()) {
      toast(t('nothingToSend'), 'error');
      return false;
    }
    const msg = this.messages.find((m) => m.id === messageId);
    const previous = msg?.content;
    if (msg) msg.content = content;
    const live = this.begin(s.id, messageId);
    try {
      await this.backend.resend(messageId, content, (ev) => this.onEvent(live, ev));
    } catch (e) {
      if (msg && previous !== undefined) msg.content = previous;
      this.refused(s.id, e);
      return false;
    }
    await this.finish(live);
    return true;
  }

  async stop(): Promise<void> {
    const s = this.session;
    const live = s && this.live.get(s.id);
    if (!s || !live) return;
    live.stopping = true;
    this.emit('live');
    await this.attempt(() => this.backend.stop(s.id));
  }

  currentLive(): LiveTurn | undefined {
    return this.session ? this.live.get(this.session.id) : undefined;
  }

  // ---- settings and presets

  private applySettings(s: SettingsView): void {
    this.settings = s;
    setLanguage(s.language);
    applyTheme(s.theme);
  }

  async saveSettings(patch: SettingsPatch): Promise<boolean> {
    const s = await this.attempt(() => this.backend.updateSettings(patch));
    if (!s) return false;
    const langChanged = s.language !== this.settings?.language;
    this.applySettings(s);
    this.emit('settings');
    // A new address answers the offer of a found server.
    if (patch.endpoint_url !== undefined) this.dismissServerOffer();
    if (langChanged) this.emit('sidebar', 'chat', 'panel', 'memories', 'context');
    this.contextChanged();
    return true;
  }

  // ---- finding a model server

  /**
   * At start: when the configured model server cannot be reached (or lists no model and none is
   * set), looks on the usual local ports and offers what answers, or says that nothing does.
   */
  async checkModelServer(): Promise<void> {
    const endpoint = this.settings?.endpoint_url ?? '';
    let reason: ServerOffer['reason'];
    try {
      const models = await this.backend.listModels();
      if (models.length > 0 || this.settings?.model) return;
      reason = 'no_model';
    } catch (e) {
      if (!(e instanceof ApiError && UNREACHABLE_CODES.has(e.code))) return;
      reason = 'unreachable';
    }
    let servers: FoundServer[];
    try {
      servers = (await this.backend.probeServers()).filter((s) => s.base_url !== endpoint);
    } catch {
      return;
    }
    // A server that answers but lists no model: only worth a banner when there is another to use.
    if (reason === 'no_model' && servers.length === 0) return;
    // The user may have set an address meanwhile.
    if ((this.settings?.endpoint_url ?? '') !== endpoint) return;
    this.serverOffer = { reason, endpoint, servers };
    this.emit('serverOffer');
  }

  /** Switches to a found server (and its first model) and drops the offer. */
  async useServer(server: FoundServer): Promise<boolean> {
    const ok = await this.saveSettings({ endpoint_url: server.base_url, model: server.models[0] ?? null });
    if (ok) this.dismissServerOffer();
    return ok;
  }

  dismissServerOffer(): void {
    if (!this.serverOffer) return;
    this.serverOffer = null;
    this.emit('serverOffer');
  }

  async refreshPresets(): Promise<void> {
    this.presets = await this.backend.listPresets();
    this.emit('presets', 'chat');
  }

  async createPreset(name: string, description: string, prompt: string): Promise<boolean> {
    return !!(await this.attempt(async () => {
      await this.backend.createPreset({ name, description, prompt });
      await this.refreshPresets();
      return true;
    }));
  }

  async updatePreset(id: number, patch: PresetPatch): Promise<boolean> {
    const ok = !!(await this.attempt(async () => {
      await this.backend.updatePreset(id, patch);
      await this.refreshPresets();
      return true;
    }));
    if (ok) this.contextChanged();
    return ok;
  }

  async deletePreset(id: number): Promise<void> {
    await this.attempt(async () => {
      await this.backend.deletePreset(id);
      await this.refreshPresets();
      if (this.session) this.sessionChanged(await this.backend.getSession(this.session.id));
      this.contextChanged();
    });
  }

  presetName(key: string | null): string {
    if (!key) return t('basePrompt');
    return this.presets.find((p) => p.key === key)?.name ?? key;
  }

  // ---- memory

  /**
   * The accepted facts and the proposals waiting. `quiet` (at start, after a turn): a failure
   * is not shown, the lists simply stay as they were.
   */
  async loadMemories(quiet = false): Promise<void> {
    const asked = ++this.memoriesAsked;
    try {
      const [accepted, pending] = await Promise.all([this.backend.listMemories(), this.backend.listMemories('pending')]);
      // A later load (another change meanwhile) has the newer lists.
      if (asked !== this.memoriesAsked) return;
      this.memories = accepted;
      this.pendingMemories = pending.filter((m) => m.status === 'pending');
      this.memoriesLoaded = true;
      this.memoriesError = null;
      void this.loadSourceTitles();
    } catch (e) {
      if (quiet || asked !== this.memoriesAsked) return;
      this.memoriesError = errorMessage(e);
      this.fail(e);
    }
    this.emit('memories');
  }

  /** How many of the model's proposals wait for the user. */
  get pendingCount(): number {
    return this.pendingMemories.length;
  }

  /** The title of the chat a fact came from: from the sidebar's lists, else asked once. */
  sourceTitle(sessionId: number): string | null {
    const s = this.findSession(sessionId);
    if (s) return s.title.trim() || t('untitled');
    return this.sourceTitles.get(sessionId) ?? null;
  }

  private async loadSourceTitles(): Promise<void> {
    const ids = new Set<number>();
    for (const m of [...this.pendingMemories, ...this.memories]) {
      const id = m.source_session_id;
      if (id != null && !this.findSession(id) && !this.sourceTitles.has(id)) ids.add(id);
    }
    if (ids.size === 0) return;
    await Promise.all([...ids].slice(0, 30).map(async (id) => {
      try {
        const s = await this.backend.getSession(id);
        this.sourceTitles.set(id, s.title.trim() || t('untitled'));
      } catch {
        // Deleted since: the fact shows its chat by number.
        this.sourceTitles.set(id, null);
      }
    }));
    this.emit('memories');
  }

  /** A fact the user types; one that looks like a secret is refused with the server's message. */
  async addMemory(content: string): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      await this.backend.createMemory({ content, source_session_id: null });
    });
    if (ok) this.contextChanged();
    return ok;
  }

  async updateMemory(id: number, patch: MemoryPatch): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      await this.backend.updateMemory(id, patch);
    });
    if (ok) this.contextChanged();
    return ok;
  }

  /**
   * Accepts one of the model's proposals, with the user's wording when `content` is given (saved
   * first: a refused edit leaves the proposal pending). From the next prompt on it is in ⑤.
   */
  async acceptMemory(id: number, content?: string): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      const current = this.pendingMemories.find((m) => m.id === id);
      if (content !== undefined && content.trim() !== current?.content) await this.backend.updateMemory(id, { content });
      await this.backend.acceptMemory(id);
    });
    if (ok) this.contextChanged();
    return ok;
  }

  /** Drops one of the model's proposals. */
  async dismissMemory(id: number): Promise<boolean> {
    return this.memoryAction(async () => {
      await this.backend.deleteMemory(id);
    });
  }

  async deleteMemory(id: number): Promise<void> {
    await this.memoryAction(async () => {
      await this.backend.deleteMemory(id);
    });
    this.contextChanged();
  }

  /** A change to memory, then the lists again (also after a failure: the change may have half-happened). */
  private async memoryAction(fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
    } catch (e) {
      // A fact that looks like a secret: the server says why, in its words.
      if (e instanceof ApiError && e.code === 'secret_refused') toast(errorMessage(e), 'error');
      else this.fail(e);
      if (!(e instanceof ApiError && (e.offline || e.status === 401))) await this.loadMemories(true);
      return false;
    }
    await this.loadMemories();
    return true;
  }

  // ---- side panels and the context inspector

  togglePanel(panel: Exclude<Panel, null>): void {
    this.panel = this.panel === panel ? null : panel;
    this.emit('panel');
    if (this.panel === 'context') void this.loadContext();
    if (this.panel === 'memory') void this.loadMemories();
    if (this.panel === 'files') void this.loadChatFiles();
  }

  closePanel(): void {
    this.panel = null;
    this.emit('panel');
  }

  /** Something that feeds the system prompt changed: the inspector shows it again. */
  contextChanged(): void {
    if (this.panel === 'context') void this.loadContext();
  }

  async loadContext(): Promise<void> {
    const s = this.session;
    if (!s) {
      this.context = null;
      this.contextError = null;
      this.emit('context');
      return;
    }
    this.contextLoading = true;
    this.emit('context');
    try {
      const view = await this.backend.context(s.id);
      if (this.session?.id !== s.id) return;
      this.context = view;
      this.contextError = null;
    } catch (e) {
      this.contextError = errorMessage(e);
      if (e instanceof ApiError && (e.offline || e.status === 401)) this.fail(e);
    } finally {
      this.contextLoading = false;
      this.emit('context');
    }
  }

  // ---- files

  /** The open chat's own files and its project's (as far as loaded). */
  chatFiles(): { own: Attachment[]; project: Attachment[] } {
    const own = this.session ? this.files.get(scopeKey({ session_id: this.session.id })) ?? [] : [];
    const projectId = this.currentProject()?.id;
    const project = projectId !== undefined ? this.files.get(scopeKey({ project_id: projectId })) ?? [] : [];
    return { own, project };
  }

  /** Loads the open chat's files and its project's. */
  async loadChatFiles(): Promise<void> {
    const scopes: AttachmentScope[] = [];
    if (this.session) scopes.push({ session_id: this.session.id });
    const projectId = this.currentProject()?.id ?? this.draftProjectId;
    if (projectId != null) scopes.push({ project_id: projectId });
    await Promise.all(scopes.map((scope) => this.loadFiles(scope)));
  }

  async loadFiles(scope: AttachmentScope): Promise<void> {
    try {
      const list = await this.backend.listAttachments(scope);
      this.files.set(scopeKey(scope), list);
      for (const a of list) if (a.status === 'indexing') this.watch(a);
    } catch (e) {
      // A chat or project deleted meanwhile simply has no files.
      if (!(e instanceof ApiError && e.code === 'not_found')) this.fail(e);
    }
    this.emit('files');
  }

  /**
   * Attaches files to the open chat (created first when it is a draft), one after the other.
   * Each shows as a chip at once; a refused file is dropped with the server's reason.
   */
  async attachToChat(files: FileToAttach[]): Promise<void> {
    if (files.length === 0) return;
    const session = await this.ensureSession();
    if (!session) return;
    const uploads = files.map((f): Upload => ({ key: ++this.uploadKey, sessionId: session.id, name: f.name, size: f.blob.size, attachment: null }));
    this.uploads.push(...uploads);
    this.emit('files');
    for (const [i, f] of files.entries()) {
      const a = await this.upload({ session_id: session.id }, f);
      if (a) uploads[i].attachment = a;
      else this.uploads = this.uploads.filter((u) => u !== uploads[i]);
      this.emit('files');
    }
    this.contextChanged();
  }

  /** Attaches files to a project: every chat in it sees them. */
  async attachToProject(projectId: number, files: FileToAttach[]): Promise<void> {
    for (const f of files) await this.upload({ project_id: projectId }, f);
    this.contextChanged();
  }

  private async upload(scope: AttachmentScope, f: FileToAttach): Promise<Attachment | undefined> {
    // Refused here rather than after sending it all: the server would refuse it too.
    const maxMb = this.settings?.attachment_max_mb ?? 0;
    if (maxMb > 0 && f.blob.size > maxMb * 1024 * 1024) {
      toast(t('fileTooLarge', { name: f.name, mb: maxMb }), 'error');
      return undefined;
    }
    const a = await this.attempt(() => this.backend.uploadAttachment(scope, f.blob, f.name));
    if (!a) return undefined;
    const key = scopeKey(scope);
    // Listed once, even if a reload of the list already brought it.
    const list = (this.files.get(key) ?? []).filter((x) => x.id !== a.id);
    this.files.set(key, [...list, a]);
    if (a.status === 'indexing') this.watch(a);
    this.emit('files');
    return a;
  }

  async deleteFile(a: Attachment): Promise<boolean> {
    const ok = await this.attempt(async () => {
      await this.backend.deleteAttachment(a.id);
      return true;
    });
    if (!ok) return false;
    for (const [key, list] of this.files) this.files.set(key, list.filter((x) => x.id !== a.id));
    this.uploads = this.uploads.filter((u) => u.attachment?.id !== a.id);
    this.watched.delete(a.id);
    this.emit('files');
    this.contextChanged();
    return true;
  }

  /** Drops a chip without touching its file (it stays in the chat's files). */
  dismissUpload(key: number): void {
    this.uploads = this.uploads.filter((u) => u.key !== key);
    this.emit('files');
  }

  /** Asks about a file being indexed until it is ready or failed (or gone). */
  private watch(a: Attachment): void {
    if (this.watched.has(a.id)) return;
    this.watched.add(a.id);
    let delay = INDEX_POLL_MS[0];
    const until = Date.now() + INDEX_WATCH_MAX_MS;
    const tick = async () => {
      if (!this.watched.has(a.id)) return;
      // Still indexing after this long: the list shows it again when next loaded.
      if (Date.now() > until) {
        this.watched.delete(a.id);
        return;
      }
      try {
        const now = await this.backend.getAttachment(a.id);
        this.fileChanged(now);
        if (now.status !== 'indexing') {
          this.watched.delete(a.id);
          this.contextChanged();
          return;
        }
      } catch (e) {
        if (e instanceof ApiError && e.code === 'not_found') {
          this.watched.delete(a.id);
          return;
        }
      }
      delay = Math.min(INDEX_POLL_MS[1], delay * 1.5);
      window.setTimeout(() => void tick(), delay);
    };
    window.setTimeout(() => void tick(), delay);
  }

  private fileChanged(a: Attachment): void {
    for (const [key, list] of this.files) this.files.set(key, list.map((x) => (x.id === a.id ? a : x)));
    for (const u of this.uploads) if (u.attachment?.id === a.id) u.attachment = a;
    this.emit('files');
  }

  // ---- search

  /** Chats in every project matching the words, best first. */
  searchChats(q: string, limit = 20): Promise<ChatHit[]> {
    return this.backend.searchChats(q, limit);
  }

  /** Opens a search result's chat, at its message when it has one. */
  openHit(hit: ChatHit): Promise<void> {
    return this.openSession(hit.session_id, true, hit.message_id);
  }
}

/** Where a file list is kept in `App.files`. */
export function scopeKey(scope: AttachmentScope): string {
  return scope.session_id != null ? `s:${scope.session_id}` : `p:${scope.project_id}`;
}
