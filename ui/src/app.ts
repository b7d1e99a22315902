// The UI's state and every action on it, composed from one module per domain (`state/`): the
// sidebar's projects and chats, the open chat, files, memory, search, settings, the model servers,
// the tool servers, the side panels. Views read the state, call the actions (through `App`, which forwards them),
// and redraw when a topic they listen to is emitted. Nothing here touches the DOM except the
// address bar.

import { ApiError, errorMessage, type Backend } from './backend/backend';
import { ChangesFeed } from './state/changes';
import { ChatState } from './state/chat';
import { ConnectionsState } from './state/connections';
import { FilesState } from './state/files';
import { MemoryState } from './state/memory';
import { PanelsState } from './state/panels';
import { SearchState } from './state/search';
import { SessionsState } from './state/sessions';
import { SettingsState } from './state/settings';
import { ToolServersState } from './state/toolServers';
import { Undoable } from './state/undo';
import { toast } from './views/toast';

export type { ApprovalAnswer, LiveApproval, LiveTool, LiveTurn } from './state/chat';
export { scopeKey, type FileToAttach, type Upload } from './state/files';
export type { Panel } from './state/panels';
export type { ProjectEntry } from './state/sessions';
export type { ServerOffer } from './state/settings';
export type { ModelList } from './state/connections';

export type Topic = 'sidebar' | 'chat' | 'live' | 'panel' | 'settings' | 'presets' | 'memories' | 'context' | 'connection' | 'serverOffer' | 'files'
  | 'replyEnded' | 'toolServers' | 'servers'
  // Asks for the settings' servers tab (a notice's button in a view-less module).
  | 'showServerSettings';

// What `App` forwards from each domain (checked against the domain's public members).
const SESSIONS = ['projects', 'defaultProjectId', 'entry', 'refreshProjects', 'toggleProject', 'expandProject', 'createProject', 'updateProject', 'linkFolder', 'deleteProject',
  'loadSessions', 'loadMoreSessions', 'findSession', 'sessionChanged', 'renameSession', 'moveSession', 'deleteSession', 'projectName'] as const satisfies readonly (keyof SessionsState)[];
const CHAT = ['session', 'draftProjectId', 'draftPreset', 'messages', 'olderBefore', 'loadingMessages', 'live', 'replyErrors', 'focusMessageId',
  'openSession', 'newChat', 'currentProject', 'setPreset', 'setChatModel', 'loadMessages', 'shownMessages', 'loadOlder', 'send', 'ensureSession', 'regenerate',
  'resend', 'chooseVersion', 'stop', 'currentLive', 'lastEnded', 'answerToolCall'] as const satisfies readonly (keyof ChatState)[];
const FILES = ['files', 'uploads', 'chatFiles', 'loadChatFiles', 'loadFiles', 'attachToChat', 'attachToProject', 'deleteFile', 'dismissUpload'] as const satisfies readonly (keyof FilesState)[];
const MEMORY = ['memories', 'pendingMemories', 'memoriesLoaded', 'memoriesError', 'sourceTitles', 'loadMemories', 'pendingCount', 'sourceTitle',
  'addMemory', 'updateMemory', 'acceptMemory', 'dismissMemory', 'deleteMemory', 'focusMemoryId', 'showMemory'] as const satisfies readonly (keyof MemoryState)[];
const SEARCH = ['searchChats', 'searchFiles', 'openHit'] as const satisfies readonly (keyof SearchState)[];
const SETTINGS = ['settings', 'presets', 'serverOffer', 'version', 'saveSettings', 'checkModelServer', 'useServer', 'startDemo', 'dismissServerOffer',
  'refreshPresets', 'createPreset', 'updatePreset', 'deletePreset', 'presetName'] as const satisfies readonly (keyof SettingsState)[];
const TOOL_SERVERS = ['toolServers', 'toolServersLoaded', 'toolServersError', 'startingServers', 'toolsProblems', 'loadToolServers', 'addToolServer',
  'editToolServer', 'patchToolServer', 'removeToolServer', 'listServerTools'] as const satisfies readonly (keyof ToolServersState)[];
const CONNECTIONS = ['connections', 'connectionsLoaded', 'connectionsError', 'modelLists', 'loadConnections', 'defaultConnection', 'chatConnection',
  'loadModelList', 'loadModelLists', 'serverError', 'addConnection', 'editConnection', 'removeConnection', 'addFoundServer'] as const satisfies readonly (keyof ConnectionsState)[];
const PANELS = ['panel', 'context', 'contextError', 'contextLoading', 'togglePanel', 'openPanel', 'closePanel', 'contextChanged', 'loadContext'] as const satisfies readonly (keyof PanelsState)[];

export interface App extends Pick<SessionsState, (typeof SESSIONS)[number]>, Pick<ChatState, (typeof CHAT)[number]>,
  Pick<FilesState, (typeof FILES)[number]>, Pick<MemoryState, (typeof MEMORY)[number]>, Pick<SearchState, (typeof SEARCH)[number]>,
  Pick<SettingsState, (typeof SETTINGS)[number]>, Pick<PanelsState, (typeof PANELS)[number]>, Pick<ToolServersState, (typeof TOOL_SERVERS)[number]>,
  Pick<ConnectionsState, (typeof CONNECTIONS)[number]> {}

export class App {
  readonly sessions = new SessionsState(this);
  readonly chat = new ChatState(this);
  readonly attachments = new FilesState(this);
  readonly memory = new MemoryState(this);
  readonly search = new SearchState(this);
  readonly config = new SettingsState(this);
  readonly panels = new PanelsState(this);
  readonly tooling = new ToolServersState(this);
  readonly servers = new ConnectionsState(this);
  /** Deletes waiting a few seconds for Undo. */
  readonly undo = new Undoable();
  /** What other tabs and the API change, heard as it happens (`GET /api/events`). */
  readonly changes = new ChangesFeed(this);

  reachable = true;
  unauthorized = false;

  private listeners = new Map<Topic, Set<() => void>>();
  private healthTimer: number | undefined;

  constructor(readonly backend: Backend) {
    forward(this, this.sessions, SESSIONS);
    forward(this, this.chat, CHAT);
    forward(this, this.attachments, FILES);
    forward(this, this.memory, MEMORY);
    forward(this, this.search, SEARCH);
    forward(this, this.config, SETTINGS);
    forward(this, this.panels, PANELS);
    forward(this, this.tooling, TOOL_SERVERS);
    forward(this, this.servers, CONNECTIONS);
  }

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

  // ---- start

  async start(): Promise<void> {
    window.addEventListener('popstate', () => void this.chat.route());
    // Opened first: what changes while everything is read is heard too.
    this.changes.start();
    try {
      await this.reload(true);
    } catch (e) {
      this.fail(e);
      this.emit('sidebar', 'chat', 'settings');
      return;
    }
    // The servers' names, for the chat header's label (their models are asked when the picker opens).
    void this.loadConnections();
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
    this.config.version = health.version;
    this.config.applySettings(settings);
    this.config.presets = presets;
    const first = this.projects.length === 0;
    // The first list opens the projects open when Maru was last used.
    this.sessions.setProjects(projects);
    this.setReachable(true);
    this.emit('sidebar', 'settings', 'presets', 'chat');
    if (initial || first) await this.chat.route();
    else if (this.session) await this.loadMessages(this.session.id);
    if (!initial && !first) void this.loadChatFiles();
    // The Memory buttons count the proposals waiting, so they are loaded at start.
    if (this.panel !== 'memory') void this.loadMemories(true);
    await Promise.all(this.projects.filter((p) => p.expanded).map((p) => this.loadSessions(p.project.id)));
    if (this.panel === 'context') await this.loadContext();
    if (this.panel === 'memory') await this.loadMemories();
  }
}

/** Makes `names` of `store` readable (and writable) on `app`: methods bound, state by accessor. */
function forward<S extends object>(app: App, store: S, names: readonly (keyof S)[]): void {
  for (const name of names) {
    const value = store[name];
    if (typeof value === 'function') {
      Object.defineProperty(app, name, { value: value.bind(store), configurable: true });
    } else {
      Object.defineProperty(app, name, {
        get: () => store[name],
        set: (v: S[keyof S]) => {
          store[name] = v;
        },
        configurable: true,
        enumerable: true,
      });
    }
  }
}
