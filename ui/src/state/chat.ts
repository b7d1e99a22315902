// The open chat: which one it is (or a draft), its messages, and the replies being written.

import type { Attachment, ContextView, Decision, Message, Project, Session, ToolHints, ToolOutcome, TurnEvent, Usage } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { t } from '../lib/i18n';
import { routedChat, showChatInAddress } from '../lib/router';
import type { Core } from './core';
import { scopeKey, type Upload } from './files';
import { notify } from './notices';
import type { Panel } from './panels';
import type { ProjectEntry } from './sessions';

export interface LiveTool {
  id: string;
  name: string;
  arguments: string;
  result?: string;
  isError?: boolean;
  /** What the call did, as data (`tool_result.outcome`). */
  outcome?: ToolOutcome;
  /** A call of one of the user's tool servers that asked the user first. */
  approval?: LiveApproval;
}

/** A tool server's call waiting for the user (`approval_needed`), and how it was answered. */
export interface LiveApproval {
  /** The id to answer it by (`approveToolCall`, `denyToolCall`). */
  id: string;
  server: string;
  tool: string;
  /** JSON text, as the model wrote it. */
  arguments: string;
  /** What the tool's server says it does. */
  hints: ToolHints;
  /** How it was answered (here, in another window, or no answer: stopped, too late); null while it waits. */
  decision: Decision | null;
  /** This window's answer is on its way. */
  answering: boolean;
  /** This window's answer came too late: it was answered elsewhere (or the turn stopped). */
  elsewhere: boolean;
}

/** How the user answers a call waiting for approval. */
export type ApprovalAnswer = 'once' | 'always' | 'deny';

/** A turn in flight, drawn as the reply being written. */
export interface LiveTurn {
  sessionId: number;
  text: string;
  reasoning: string;
  tools: LiveTool[];
  usage: Usage | null;
  error: { code: string; message: string } | null;
  /** Messages after this id get a new version (regenerate, resend) and are hidden meanwhile;
   *  0: from the chat's first message. */
  cutAfter: number | null;
  startedAt: number;
  firstTokenAt: number | null;
  stopping: boolean;
  /** Followed from `attach` (started by another window, or before a reload), not started here. */
  attached: boolean;
  /** Settles with the turn's first event, or its end (see `ChatState.replyBegun`). */
  begun: Promise<void>;
  markBegun: () => void;
}

/** Older pages loaded, at most, to reach a message a search result points at. */
const FIND_PAGES = 10;
const MESSAGE_PAGE = 50;
const POLL_MS = 1500;

/** What the open chat needs of the rest of the state. */
export interface ChatNeeds extends Core {
  readonly sessions: {
    defaultProjectId(): number | null;
    entry(projectId: number): ProjectEntry | undefined;
    expandProject(id: number): ProjectEntry | undefined;
    loadSessions(projectId: number): Promise<void>;
    refreshProjects(): Promise<void>;
    findSession(id: number): Session | undefined;
    sessionChanged(s: Session): void;
  };
  readonly attachments: { readonly files: Map<string, Attachment[]>; uploads: Upload[]; loadChatFiles(): Promise<void> };
  readonly panels: { readonly panel: Panel; context: ContextView | null; loadContext(): Promise<void>; contextChanged(): void };
  readonly memory: { loadMemories(quiet?: boolean): Promise<void> };
}

export class ChatState {
  /** The open chat, or null for a new chat not yet sent (a draft). */
  session: Session | null = null;
  draftProjectId: number | null = null;
  /** The draft becomes a temporary chat (views/temporary.ts): never kept unless the user says so. */
  draftTemporary = false;
  draftPreset: string | null = null;
  /** The server and model a new chat will have once it is saved (chosen before its first message). */
  draftModel: { connection_id: number | null; model: string | null } = { connection_id: null, model: null };
  /** The open chat's messages, oldest first. */
  messages: Message[] = [];
  olderBefore: number | null = null;
  loadingMessages = false;
  live = new Map<number, LiveTurn>();
  /** The turn that ended last (for the desktop app's notification). */
  lastEnded: LiveTurn | null = null;
  /** The codes of replies that failed while this window watched: a stored reply keeps only the
   *  server's English text, and its code lets the chat show it in the UI's language. */
  readonly replyErrors = new Map<number, { code: string; message: string }>();
  /** A message to bring into view once the open chat shows it (from a search result). */
  focusMessageId: number | null = null;
  /** While set, the chat shown next keeps what is typed in the composer (the open one was deleted elsewhere). */
  keepDraft = false;

  private pollTimer: number | undefined;
  private openToken = 0;
  private creating: Promise<Session | undefined> | null = null;
  private loadingOlder: Promise<void> | null = null;

  constructor(private readonly app: ChatNeeds) {}

  // ---- navigation

  /** Opens the chat the address names (a new chat when it names none). */
  async route(): Promise<void> {
    const id = routedChat();
    if (id !== null) await this.openSession(id, false);
    else this.newChat(this.draftProjectId ?? undefined, false);
  }

  /** Opens a chat; `focusMessageId` (from a search result) is brought into view once shown. */
  async openSession(id: number, push = true, focusMessageId: number | null = null): Promise<void> {
    const app = this.app;
    this.leaveTemporary(id);
    const token = ++this.openToken;
    try {
      const session = await app.backend.getSession(id);
      if (token !== this.openToken) return;
      this.session = session;
      this.messages = [];
      this.olderBefore = null;
      this.focusMessageId = focusMessageId;
      showChatInAddress(id, push);
      void app.attachments.loadChatFiles();
      const entry = app.sessions.entry(session.project_id);
      // The open chat's project is always open, whatever was remembered.
      if (entry && !entry.expanded) {
        app.sessions.expandProject(entry.project.id);
        if (!entry.loaded) void app.sessions.loadSessions(entry.project.id);
      }
      app.emit('chat', 'sidebar');
      await this.loadMessages(id);
      if (focusMessageId !== null) await this.loadUntil(id, focusMessageId);
      if (app.panels.panel === 'context') void app.panels.loadContext();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') {
        this.newChat(undefined, false);
        notify(errorMessage(e), 'error');
        return;
      }
      app.fail(e);
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
    const app = this.app;
    this.leaveTemporary(null);
    this.draftTemporary = false;
    this.openToken++;
    this.session = null;
    this.messages = [];
    this.olderBefore = null;
    this.focusMessageId = null;
    this.draftProjectId = projectId ?? app.sessions.defaultProjectId();
    this.draftPreset = null;
    this.draftModel = { connection_id: null, model: null };
    app.panels.context = null;
    showChatInAddress(null, push);
    app.emit('chat', 'sidebar', 'context');
    void app.attachments.loadChatFiles();
  }

  /** Closing a temporary chat deletes it (Maru deletes any left when it closes or starts). */
  private leaveTemporary(next: number | null): void {
    const s = this.session;
    if (s?.temporary && s.id !== next) void this.app.backend.deleteSession(s.id).catch(() => {});
  }

  /** The project the open chat (or draft) belongs to. */
  currentProject(): Project | null {
    const id = this.session ? this.session.project_id : this.draftProjectId;
    return this.app.sessions.entry(id ?? -1)?.project ?? null;
  }

  async setPreset(key: string | null): Promise<void> {
    const app = this.app;
    if (!this.session) {
      this.draftPreset = key;
      app.emit('chat');
      return;
    }
    const id = this.session.id;
    await app.attempt(async () => {
      app.sessions.sessionChanged(await app.backend.updateSession(id, { preset: key }));
      app.panels.contextChanged();
    });
  }

  /** This chat's server and model, set together (a model is one server's); `null, null` goes back
   *  to the default server's default model. A new chat keeps them until it is saved. */
  async setChatModel(connectionId: number | null, model: string | null): Promise<void> {
    const app = this.app;
    if (!this.session) {
      this.draftModel = { connection_id: connectionId, model };
      app.emit('chat');
      return;
    }
    const id = this.session.id;
    await app.attempt(async () => {
      app.sessions.sessionChanged(await app.backend.updateSession(id, { connection_id: connectionId, model }));
      app.panels.contextChanged();
    });
  }

  // ---- messages

  /**
   * The newest messages. Once some are shown, only the newest page is asked for and merged in
   * (the end of a reply, a reply followed from elsewhere): a long chat is not fetched again.
   */
  async loadMessages(sessionId: number, follow = true, cutAfter: number | null = null): Promise<void> {
    const app = this.app;
    window.clearTimeout(this.pollTimer);
    this.loadingMessages = true;
    app.emit('chat');
    try {
      const page = await app.backend.listMessages(sessionId, { limit: MESSAGE_PAGE });
      if (this.session?.id !== sessionId) return;
      // What stays of those shown: saved, and before the point where a new version begins.
      const kept = this.messages.filter((m) => m.id > 0 && m.session_id === sessionId && (cutAfter === null || m.id <= cutAfter));
      if (kept.length === 0) {
        this.messages = page.messages.slice().reverse();
        this.olderBefore = page.next_before;
      } else {
        // Pages back to the newest message kept (one, unless the turn wrote many messages).
        const anchor = kept[kept.length - 1].id;
        const fresh = page.messages.slice();
        let next = page.next_before;
        while (next !== null && fresh.length && fresh[fresh.length - 1].id > anchor) {
          const older = await app.backend.listMessages(sessionId, { before: next, limit: MESSAGE_PAGE });
          if (this.session?.id !== sessionId) return;
          fresh.push(...older.messages);
          next = older.next_before;
        }
        fresh.reverse();
        const from = fresh.length ? fresh[0].id : Infinity;
        let before = kept.filter((m) => m.id < from);
        // What is kept must lead to the fresh pages: another window may have chosen another
        // version further back. If not, only the fresh pages are shown (older ones load on scroll).
        if (fresh.length && fresh[0].parent_id !== (before.at(-1)?.id ?? null)) before = [];
        const byId = new Map(this.messages.map((m) => [m.id, m]));
        // Unchanged messages keep their object, so the view knows it has them drawn.
        const merged = fresh.map((m) => {
          const old = byId.get(m.id);
          const same = old && old.updated_at === m.updated_at && old.status === m.status && old.content === m.content
            && old.versions.length === m.versions.length;
          return same ? old : m;
        });
        this.messages = before.concat(merged);
        if (before.length === 0) this.olderBefore = next;
      }
    } catch (e) {
      app.fail(e);
    } finally {
      this.loadingMessages = false;
      app.emit('chat');
    }
    if (follow) void this.followIfStreaming(sessionId);
    else this.pollIfStreaming(sessionId);
  }

  /** The open chat's messages as shown: while a reply is written, the live reply stands for it. */
  shownMessages(): Message[] {
    const live = this.currentLive();
    if (!live) return this.messages;
    // The messages getting a new version (regenerate, resend), or else those of the running turn (after
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
    if (this.messages.at(-1)?.status !== 'streaming' && !betweenRounds(this.messages)) return;
    await this.attachTo(sessionId);
  }

  /**
   * A turn began in a chat (`turn_started`). In the open chat, when this window did not start it
   * (another tab or the API sent a message): its question is read, then its reply followed here
   * as it streams, and the messages are read again when it ends.
   */
  async followTurn(sessionId: number): Promise<void> {
    if (this.live.has(sessionId) || this.session?.id !== sessionId) return;
    await this.loadMessages(sessionId, false);
    await this.attachTo(sessionId);
  }

  /** Follows the turn running in the open chat, from what streamed so far. */
  private async attachTo(sessionId: number): Promise<void> {
    const app = this.app;
    if (this.live.has(sessionId) || this.session?.id !== sessionId) return;
    const live = this.begin(sessionId, null);
    live.attached = true;
    try {
      await app.backend.attach(sessionId, (ev) => this.onEvent(live, ev));
    } catch (e) {
      live.markBegun();
      if (this.live.get(sessionId) === live) this.live.delete(sessionId);
      app.emit('chat', 'sidebar');
      if (e instanceof ApiError && e.code === 'no_turn_running') {
        // Ended meanwhile: the saved messages are the reply (asked again, without following).
        if (this.session?.id === sessionId) await this.loadMessages(sessionId, false);
        return;
      }
      if (e instanceof ApiError && e.code === 'not_found') return;
      app.fail(e);
      return;
    }
    await this.finish(live);
  }

  /**
   * Settles once the reply this window follows in `sessionId` shows its first event (or ends);
   * null when it follows none there. Until then the model server is reading the prompt, often on
   * this same machine, and reads that can wait do (`ChangesFeed`): a reply's first word comes
   * no later for them.
   */
  replyBegun(sessionId: number): Promise<void> | null {
    return this.live.get(sessionId)?.begun ?? null;
  }

  /** A reply marked as being written that no turn follows: shows up as it is saved. */
  private pollIfStreaming(sessionId: number): void {
    if (this.live.has(sessionId)) return;
    if (!this.messages.some((m) => m.status === 'streaming')) return;
    this.pollTimer = window.setTimeout(() => {
      if (this.session?.id === sessionId && !this.live.has(sessionId)) void this.loadMessages(sessionId);
    }, POLL_MS);
  }

  /** The page before the oldest loaded message (once at a time: scrolling asks often). */
  loadOlder(): Promise<void> {
    this.loadingOlder ??= this.fetchOlder().finally(() => {
      this.loadingOlder = null;
    });
    return this.loadingOlder;
  }

  private async fetchOlder(): Promise<void> {
    const app = this.app;
    const s = this.session;
    if (!s || this.olderBefore === null) return;
    await app.attempt(async () => {
      const page = await app.backend.listMessages(s.id, { before: this.olderBefore, limit: MESSAGE_PAGE });
      if (this.session?.id !== s.id) return;
      this.messages = page.messages.slice().reverse().concat(this.messages);
      this.olderBefore = page.next_before;
      app.emit('chat');
    });
  }

  // ---- turns

  private begin(sessionId: number, cutAfter: number | null): LiveTurn {
    let markBegun = () => {};
    const begun = new Promise<void>((resolve) => (markBegun = resolve));
    const live: LiveTurn = {
      sessionId, text: '', reasoning: '', tools: [], usage: null, error: null, cutAfter,
      startedAt: performance.now(), firstTokenAt: null, stopping: false, attached: false, begun, markBegun,
    };
    this.live.set(sessionId, live);
    window.clearTimeout(this.pollTimer);
    this.app.emit('chat', 'sidebar');
    return live;
  }

  private onEvent(live: LiveTurn, ev: TurnEvent): void {
    live.markBegun();
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
          call.outcome = ev.outcome;
        }
        break;
      }
      case 'approval_needed': {
        let call = live.tools.find((c) => c.id === ev.id);
        if (!call) live.tools.push((call = { id: ev.id, name: `${ev.server}__${ev.tool}`, arguments: ev.arguments }));
        call.approval = { id: ev.approval, server: ev.server, tool: ev.tool, arguments: ev.arguments, hints: ev.hints, decision: null, answering: false, elsewhere: false };
        break;
      }
      case 'approval_decided': {
        const approval = live.tools.find((c) => c.approval?.id === ev.approval)?.approval;
        if (approval) {
          approval.decision = ev.decision;
          approval.answering = false;
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
    if (this.session?.id === live.sessionId) this.app.emit('live');
  }

  /** Reads the chat again a little later, to show the title the model writes after the first
   *  exchange (a few hundred milliseconds on a fast server, seconds on a slow one). */
  private followTitle(sid: number, title: string): void {
    for (const wait of [1500, 5000]) {
      setTimeout(() => {
        void this.app.backend.getSession(sid).then((s) => {
          if (s.title !== title) this.app.sessions.sessionChanged(s);
        }, () => {});
      }, wait);
    }
  }

  private async finish(live: LiveTurn): Promise<void> {
    live.markBegun();
    const app = this.app;
    const sid = live.sessionId;
    this.lastEnded = live;
    app.emit('replyEnded');
    try {
      if (this.session?.id === sid) {
        const session = await app.backend.getSession(sid);
        app.sessions.sessionChanged(session);
        await this.loadMessages(sid, false, live.cutAfter);
        // After the first exchange the model writes the chat's title, in the background.
        if (this.messages.filter((m) => m.role === 'user').length === 1) this.followTitle(sid, session.title);
      }
    } catch (e) {
      app.fail(e);
    }
    if (this.live.get(sid) === live) this.live.delete(sid);
    app.emit('chat', 'sidebar');
    // The model may have proposed (or, in automatic mode, saved) a fact during the turn.
    void app.memory.loadMemories(true);
    if (this.session?.id === sid) {
      // A reply followed from elsewhere that still shows as being written is asked again later.
      if (live.attached) this.pollIfStreaming(sid);
      else void this.followIfStreaming(sid);
    }
    const s = app.sessions.findSession(sid);
    if (s) void app.attempt(() => app.sessions.loadSessions(s.project_id));
    if (this.session?.id === sid) app.panels.contextChanged();
  }

  private refused(sid: number, e: unknown): void {
    this.live.get(sid)?.markBegun();
    this.live.delete(sid);
    if (e instanceof ApiError && e.code === 'turn_running') notify(t('turnRunning'), 'error');
    // The chat's server is off: the way to turn it on, beside the words.
    else if (e instanceof ApiError && e.code === 'connection_off') {
      notify(errorMessage(e), 'error', { action: { label: t('serverSettings'), run: () => this.app.emit('showServerSettings') } });
    } else this.app.fail(e);
    this.app.emit('chat', 'sidebar');
  }

  /** Sends a message (creating the chat first if this is a draft), with the skills it loads
   *  (`/` in the composer). False if it was refused. */
  async send(content: string, skills: string[] = []): Promise<boolean> {
    const app = this.app;
    if (!content.trim()) {
      notify(t('nothingToSend'), 'error');
      return false;
    }
    const session = await this.ensureSession();
    if (!session) return false;
    const sid = session.id;
    if (this.live.has(sid)) {
      notify(t('turnRunning'), 'error');
      return false;
    }
    // Images uploaded in the composer go with the message (the model sees them); other files are
    // read by the model through search.
    const images = app.attachments.uploads
      .filter((u) => u.sessionId === sid && u.attachment?.kind === 'image' && u.attachment.status === 'ready')
      .map((u) => u.attachment!.id);
    const pending = pendingMessage(sid, content, images);
    this.messages.push(pending);
    const live = this.begin(sid, null);
    // A new chat gets its title (and its project's count) from its first message, stored by the
    // time the reply's first event arrives.
    let untitled = !session.title.trim();
    let accepted = false;
    const sink = (ev: TurnEvent) => {
      this.onEvent(live, ev);
      // The message is stored: its files show on it now, no longer as chips in the composer.
      if (!accepted) {
        accepted = true;
        app.attachments.uploads = app.attachments.uploads.filter((u) => u.sessionId !== sid);
        app.emit('files');
      }
      if (untitled) {
        untitled = false;
        void this.firstMessageStored(sid);
      }
    };
    try {
      await app.backend.sendMessage(sid, content, sink, images, skills);
    } catch (e) {
      this.messages = this.messages.filter((m) => m !== pending);
      this.refused(sid, e);
      return false;
    }
    await this.finish(live);
    return true;
  }

  /** A new chat's first message is stored: its title and its project's count are shown. */
  private async firstMessageStored(sid: number): Promise<void> {
    try {
      this.app.sessions.sessionChanged(await this.app.backend.getSession(sid));
      await this.app.sessions.refreshProjects();
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
    const app = this.app;
    const token = this.openToken;
    const created = await app.attempt(async () => {
      let s = await app.backend.createSession({ project_id: this.draftProjectId, temporary: this.draftTemporary });
      if (this.draftPreset) s = await app.backend.updateSession(s.id, { preset: this.draftPreset });
      if (this.draftModel.connection_id !== null || this.draftModel.model !== null) s = await app.backend.updateSession(s.id, { ...this.draftModel });
      return s;
    });
    if (!created) return undefined;
    const e = created.temporary ? undefined : app.sessions.entry(created.project_id);
    if (e) {
      // The list may have been read again while it was created (a change heard from the
      // server): then it holds the chat already.
      if (!e.sessions.some((s) => s.id === created.id)) e.sessions.unshift(created);
      app.sessions.expandProject(e.project.id);
    }
    // The project counts it.
    void app.attempt(() => app.sessions.refreshProjects());
    // Another chat was opened meanwhile: this one exists now, but is not the one shown.
    if (token !== this.openToken) {
      app.emit('sidebar');
      return undefined;
    }
    this.session = created;
    this.messages = [];
    app.attachments.files.set(scopeKey({ session_id: created.id }), []);
    showChatInAddress(created.id, true);
    app.emit('chat', 'sidebar', 'files');
    return created;
  }

  /** Answers the last message again; the reply so far stays as an earlier version. */
  async regenerate(): Promise<void> {
    const s = this.session;
    if (!s || this.live.has(s.id)) return;
    const lastUser = [...this.messages].reverse().find((m) => m.role === 'user');
    const live = this.begin(s.id, lastUser?.id ?? null);
    try {
      await this.app.backend.regenerate(s.id, (ev) => this.onEvent(live, ev));
    } catch (e) {
      this.refused(s.id, e);
      return;
    }
    await this.finish(live);
  }

  /**
   * Sends an edited copy of one of the user's messages as a new version: shown in place of the
   * original (and what followed it) while the reply is written; the original stays a version.
   */
  async resend(messageId: number, content: string): Promise<boolean> {
    const s = this.session;
    if (!s || this.live.has(s.id)) return false;
    if (!content.trim()) {
      notify(t('nothingToSend'), 'error');
      return false;
    }
    const original = this.messages.find((m) => m.id === messageId);
    const pending = pendingMessage(s.id, content, original?.images ?? []);
    this.messages.push(pending);
    const live = this.begin(s.id, original?.parent_id ?? 0);
    try {
      await this.app.backend.resend(messageId, content, (ev) => this.onEvent(live, ev));
    } catch (e) {
      this.messages = this.messages.filter((m) => m !== pending);
      this.refused(s.id, e);
      return false;
    }
    await this.finish(live);
    return true;
  }

  /** Shows another version of a message; the chat goes on from it. */
  async chooseVersion(messageId: number): Promise<void> {
    const app = this.app;
    const s = this.session;
    const m = this.messages.find((x) => x.id === messageId);
    if (!s || this.live.has(s.id)) return;
    const shown = await app.attempt(() => app.backend.chooseVersion(messageId));
    if (!shown || this.session?.id !== s.id) return;
    // What precedes the message is the same on every version: only the rest is read again.
    const parent = m?.parent_id ?? 0;
    await this.loadMessages(s.id, false, parent);
    app.panels.contextChanged();
  }

  /**
   * Answers a tool server's call waiting for the user. Whatever window answers, every window
   * following the turn hears how (`approval_decided`); an answer that comes too late (answered
   * in another window, or the turn stopped) says so on the card.
   */
  async answerToolCall(approvalId: string, answer: ApprovalAnswer): Promise<void> {
    const app = this.app;
    const found = [...this.live.values()].flatMap((live) => live.tools.map((c) => ({ live, approval: c.approval })))
      .find((x) => x.approval?.id === approvalId);
    const approval = found?.approval;
    if (!found || !approval || approval.decision !== null || approval.answering) return;
    const shown = () => {
      if (this.session?.id === found.live.sessionId) app.emit('live');
    };
    approval.answering = true;
    shown();
    try {
      const answered = answer === 'deny' ? await app.backend.denyToolCall(approvalId) : await app.backend.approveToolCall(approvalId, answer === 'always');
      approval.decision ??= answered.decision;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_pending') approval.elsewhere = true;
      else app.fail(e);
    }
    approval.answering = false;
    shown();
  }

  async stop(): Promise<void> {
    const s = this.session;
    const live = s && this.live.get(s.id);
    if (!s || !live) return;
    live.stopping = true;
    this.app.emit('live');
    await this.app.attempt(() => this.app.backend.stop(s.id));
  }

  currentLive(): LiveTurn | undefined {
    return this.session ? this.live.get(this.session.id) : undefined;
  }
}

/**
 * The chat's stored messages end between two rounds of a reply: the model's calls are stored, and
 * not every result yet. Its turn is running tools (a tool server's call may be waiting for the
 * user), with no reply marked as being written until the next round begins.
 */
export function betweenRounds(messages: readonly Message[]): boolean {
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'tool') {
      if (m.tool_call_id) answered.add(m.tool_call_id);
      continue;
    }
    if (m.role !== 'assistant' || m.status !== 'complete') return false;
    return m.tool_calls.some((c) => !answered.has(c.id)) || answered.size > 0;
  }
  return false;
}

/** A message of the user's shown at once, before the server has stored it (a negative id). */
function pendingMessage(sessionId: number, content: string, images: number[]): Message {
  const now = Date.now();
  return {
    id: -now, session_id: sessionId, role: 'user', content, status: 'complete', error: null, error_code: null, model: null, server: null,
    prompt_tokens: null, completion_tokens: null, cached_tokens: null, ttft_ms: null, tokens_per_second: null,
    runtime_note: null, reasoning: null, tool_calls: [], tool_call_id: null, tool_name: null, tool_outcome: null, images, parent_id: null, versions: [],
    created_at: now, updated_at: now,
  };
}
