// The UI's state, composed from one module per domain (`state/`): the sidebar's projects and
// chats, the open chat, files, memory, search, settings, the model servers, the tool servers, the
// side panels. Views read a domain's state (`app.chat.messages`), call its actions
// (`app.sessions.renameSession(…)`), and draw again when a topic they listen to is emitted. Each
// domain is given this app as what it needs of the others (an interface it declares), so no
// state module imports this one.

import type { Backend } from './backend/backend';
import { onAddressChange } from './lib/router';
import { ChangesFeed } from './state/changes';
import { ChatState } from './state/chat';
import { CommandsState } from './state/commands';
import { ConnectionsState } from './state/connections';
import type { Core } from './state/core';
import { Errors } from './state/errors';
import { Events, type Topic } from './state/events';
import { ExportsState } from './state/exports';
import { FilesState } from './state/files';
import { MemoryState } from './state/memory';
import { PanelsState } from './state/panels';
import { SearchState } from './state/search';
import { SessionsState } from './state/sessions';
import { SettingsState } from './state/settings';
import { SkillsStore } from './state/skills';
import { ToolServersState } from './state/toolServers';
import { Undoable } from './state/undo';

export type { Topic } from './state/events';

export class App implements Core {
  readonly events = new Events();
  /** The server out of reach, the token refused, a failure told. */
  readonly errors = new Errors(this.events, async () => {
    await this.backend.health();
    await this.reload();
  });
  readonly sessions: SessionsState = new SessionsState(this);
  readonly chat: ChatState = new ChatState(this);
  readonly attachments: FilesState = new FilesState(this);
  readonly memory: MemoryState = new MemoryState(this);
  readonly search: SearchState = new SearchState(this);
  readonly config: SettingsState = new SettingsState(this);
  readonly panels: PanelsState = new PanelsState(this);
  readonly tooling: ToolServersState = new ToolServersState(this);
  readonly servers: ConnectionsState = new ConnectionsState(this);
  readonly exports: ExportsState = new ExportsState(this);
  /** What the composer's `/` menu offers. */
  readonly commands: CommandsState = new CommandsState(this);
  /** Deletes waiting a few seconds for Undo. */
  readonly undo = new Undoable();
  /** What other tabs and the API change, heard as it happens (`GET /api/events`). */
  readonly changes: ChangesFeed = new ChangesFeed(this);

  constructor(readonly backend: Backend) {
    // Closing or reloading the page sends the deletes still waiting; a page kept in the
    // back-forward cache keeps them waiting (it may come back with its Undo still showing).
    if (typeof window !== 'undefined') {
      window.addEventListener('pagehide', (e) => {
        if (!e.persisted) this.undo.flush();
      });
    }
  }

  /** A fresh list of skills for the settings' Skills tab. */
  skillsStore(): SkillsStore {
    return new SkillsStore(this.backend);
  }

  // ---- change notification and failures (what every domain is given)

  /** Listens to a topic; returns what stops listening. */
  on(topic: Topic, fn: () => void): () => void {
    return this.events.on(topic, fn);
  }

  emit(...topics: Topic[]): void {
    this.events.emit(...topics);
  }

  /** Runs an action; a failure is shown to the user and reported as `undefined`. */
  attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
    return this.errors.attempt(fn);
  }

  fail(e: unknown): void {
    this.errors.fail(e);
  }

  get reachable(): boolean {
    return this.errors.reachable;
  }

  /** Maru restarts on purpose (after a restore): the window says so instead of "cannot reach". */
  get restarting(): boolean {
    return this.errors.restarting;
  }

  get unauthorized(): boolean {
    return this.errors.unauthorized;
  }

  restartPlanned(): void {
    this.errors.restartPlanned();
  }

  /** Called by the backend on every request: shows or clears the "server is down" banner. */
  setReachable(reachable: boolean): void {
    this.errors.setReachable(reachable);
  }

  // ---- start

  async start(): Promise<void> {
    onAddressChange(() => void this.chat.route());
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
    void this.servers.loadConnections();
    void this.config.checkModelServer();
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
    const first = this.sessions.projects.length === 0;
    // The first list opens the projects open when Maru was last used.
    this.sessions.setProjects(projects);
    this.setReachable(true);
    this.emit('sidebar', 'settings', 'presets', 'chat');
    if (initial || first) await this.chat.route();
    else if (this.chat.session) await this.chat.loadMessages(this.chat.session.id);
    if (!initial && !first) void this.attachments.loadChatFiles();
    // The Memory buttons count the proposals waiting, so they are loaded at start.
    if (this.panels.panel !== 'memory') void this.memory.loadMemories(true);
    await Promise.all(this.sessions.projects.filter((p) => p.expanded).map((p) => this.sessions.loadSessions(p.project.id)));
    if (this.panels.panel === 'context') await this.panels.loadContext();
    if (this.panels.panel === 'memory') await this.memory.loadMemories();
  }
}
