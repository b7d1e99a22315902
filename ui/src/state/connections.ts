// The user's model servers ("connections" in the API, "servers" on screen): listed, added,
// edited (a key is written, never read back), turned on or off, made the default, removed; and
// the models each one lists, asked one server at a time so that a slow or absent one holds up
// no other. The default server is the settings' `endpoint_url` too: kept in step here.

import type { ConnectionPatch, ConnectionView, FoundServer, ModelInfo, NewConnection, Session, SettingsView } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { errorText, language } from '../lib/i18n';
import type { Core } from './core';
import type { ProjectEntry } from './sessions';

/** What the servers need of the rest of the state. */
export interface ConnectionsNeeds extends Core {
  readonly chat: { session: Session | null };
  readonly sessions: { readonly projects: ProjectEntry[] };
  readonly config: { settings: SettingsView | null; dismissServerOffer(): void };
  readonly panels: { contextChanged(): void };
}

/** What a server's models are known as: its last answer (kept while it is asked again), or why it gave none. */
export interface ModelList {
  models: ModelInfo[] | null;
  error: unknown;
  asking: boolean;
}

/** "llama.cpp (8080)": what a found server is and its port, the name it is added under. */
export function foundServerName(server: FoundServer): string {
  let port = '';
  try {
    const url = new URL(server.base_url);
    port = url.port || (url.protocol === 'https:' ? '443' : '80');
  } catch {
    // An address the server would refuse anyway: named by its kind alone.
  }
  return port ? `${server.kind_guess} (${port})` : server.kind_guess;
}

/** Two addresses of the same server: the server stores them without a trailing slash. */
export function sameAddress(a: string, b: string): boolean {
  const bare = (u: string) => u.trim().replace(/\/+$/, '').toLowerCase();
  return bare(a) === bare(b);
}

/** An error with the server's code (an `ApiError`, or a failed reply's stored code and message). */
function isCoded(e: unknown): e is { code: string; message: string; params?: Record<string, string> } {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && typeof (e as { message?: unknown }).message === 'string';
}

export class ConnectionsState {
  connections: ConnectionView[] = [];
  connectionsLoaded = false;
  /** Why the list could not be read (shown in the UI's language when drawn). */
  connectionsError: unknown = null;
  /** By server id. */
  readonly modelLists = new Map<number, ModelList>();
  /** Per server, the latest ask: an earlier answer (about an address since changed) is dropped. */
  private readonly asks = new Map<number, number>();
  /** Found servers being added, by address: a second click waits for the first, never adds twice. */
  private readonly adding = new Map<string, Promise<ConnectionView>>();

  constructor(private readonly app: ConnectionsNeeds) {}

  async loadConnections(): Promise<boolean> {
    try {
      await this.readConnections();
      return true;
    } catch (e) {
      this.connectionsError = e;
      this.app.emit('servers');
      return false;
    }
  }

  private async readConnections(): Promise<ConnectionView[]> {
    this.connections = await this.app.backend.listConnections();
    this.connectionsError = null;
    this.connectionsLoaded = true;
    const shown = this.defaultConnection();
    if (shown) this.mirrorDefault(shown);
    this.app.emit('servers');
    return this.connections;
  }

  defaultConnection(): ConnectionView | undefined {
    return this.connections.find((c) => c.is_default) ?? this.connections[0];
  }

  /** The server a chat asks: its own, else the default one (undefined until the list is read). */
  chatConnection(session: Pick<Session, 'connection_id'> | null): ConnectionView | undefined {
    const id = session?.connection_id ?? null;
    return id === null ? this.defaultConnection() : this.connections.find((c) => c.id === id);
  }

  /** Asks one server for its models. `fresh`: what it said before is about another address or key. */
  async loadModelList(id: number, fresh = false): Promise<void> {
    const ask = (this.asks.get(id) ?? 0) + 1;
    this.asks.set(id, ask);
    const before = fresh ? undefined : this.modelLists.get(id);
    this.modelLists.set(id, { models: before?.models ?? null, error: null, asking: true });
    this.app.emit('servers');
    let next: ModelList;
    try {
      next = { models: await this.app.backend.listModels(id), error: null, asking: false };
    } catch (e) {
      next = { models: null, error: e, asking: false };
    }
    if (this.asks.get(id) !== ask) return;
    this.modelLists.set(id, next);
    this.app.emit('servers');
  }

  /** The servers read again, then every one that is on asked for its models, all at once. */
  async loadModelLists(): Promise<void> {
    await this.loadConnections();
    await Promise.all(this.connections.filter((c) => c.enabled).map((c) => this.loadModelList(c.id)));
  }

  /**
   * A server's error in the UI's language (a model list's, or a failed reply's). The server's
   * message starts with the server's name ("Laptop: …"); Korean shows its own sentence for the
   * code, so the name is put back in front of it.
   */
  serverError(e: unknown): string {
    if (!isCoded(e)) return errorMessage(e);
    const named = e.code.startsWith('model_server.') && language() !== 'en'
      ? this.connections.map((c) => c.name).filter((n) => e.message.startsWith(`${n}: `)).sort((a, b) => b.length - a.length)[0]
      : undefined;
    if (named === undefined) return errorText(e);
    return `${named}: ${errorText({ ...e, message: e.message.slice(named.length + 2) })}`;
  }

  /** What answers on the usual local ports (8000, 8080, 11434, 1234). */
  probeServers(): Promise<FoundServer[]> {
    return this.app.backend.probeServers();
  }

  /** Adds a server and asks it for its models; rejects with the server's error (the form shows it). */
  async addConnection(connection: NewConnection): Promise<ConnectionView> {
    const view = this.changed(await this.app.backend.createConnection(connection));
    void this.loadModelList(view.id, true);
    return view;
  }

  /** Changes a server; a new address or key is asked for its models at once. Rejects with the
   *  server's error (`default_connection` for turning the default one off). */
  async editConnection(id: number, patch: ConnectionPatch): Promise<ConnectionView> {
    const view = this.changed(await this.app.backend.updateConnection(id, patch));
    if (view.enabled && (patch.base_url !== undefined || patch.api_key !== undefined || patch.enabled)) void this.loadModelList(id, true);
    return view;
  }

  /** Removes a server; its chats go back to the default server and its default model (as the
   *  server does, so they are not read again). Rejects with the server's error. */
  async removeConnection(id: number): Promise<void> {
    const app = this.app;
    await app.backend.deleteConnection(id);
    this.connections = this.connections.filter((c) => c.id !== id);
    this.modelLists.delete(id);
    const back = (s: Session): Session => (s.connection_id === id ? { ...s, connection_id: null, model: null } : s);
    for (const e of app.sessions.projects) e.sessions = e.sessions.map(back);
    if (app.chat.session) app.chat.session = back(app.chat.session);
    app.emit('servers', 'chat', 'sidebar');
    app.panels.contextChanged();
  }

  /** A server found on a usual local port, as a server of the user's: the one with its address,
   *  else a new one named after it ("llama.cpp (8080)"). Never two for one address. */
  async addFoundServer(server: FoundServer): Promise<ConnectionView> {
    const key = server.base_url.trim().replace(/\/+$/, '').toLowerCase();
    let pending = this.adding.get(key);
    if (!pending) {
      pending = this.addFound(server).finally(() => this.adding.delete(key));
      this.adding.set(key, pending);
    }
    return pending;
  }

  private async addFound(server: FoundServer): Promise<ConnectionView> {
    // Read again: the server may have been added in another window since.
    const list = await this.readConnections();
    const same = list.find((c) => sameAddress(c.base_url, server.base_url));
    if (same) return same;
    return this.addConnection({ name: this.freeName(foundServerName(server)), base_url: server.base_url });
  }

  /** `name`, or `name 2`, `name 3`…: the first no server has (names are unique, case aside). */
  private freeName(name: string): string {
    const taken = new Set(this.connections.map((c) => c.name.toLowerCase()));
    if (!taken.has(name.toLowerCase())) return name;
    for (let i = 2; ; i++) if (!taken.has(`${name} ${i}`.toLowerCase())) return `${name} ${i}`;
  }

  /** A server as changed; one made the default is the only default, and first. */
  private changed(view: ConnectionView): ConnectionView {
    const others = this.connections.filter((c) => c.id !== view.id).map((c) => (view.is_default && c.is_default ? { ...c, is_default: false } : c));
    this.connections = [...others, view].sort((a, b) => Number(b.is_default) - Number(a.is_default) || a.id - b.id);
    if (view.is_default) this.mirrorDefault(view);
    this.app.emit('servers');
    this.app.panels.contextChanged();
    return view;
  }

  /** The settings' `endpoint_url`, `api_key_set` and `model` are the default server's, as the server shows them. */
  private mirrorDefault(view: ConnectionView): void {
    const app = this.app;
    const s = app.config.settings;
    if (!s || (s.endpoint_url === view.base_url && s.api_key_set === view.api_key_set && s.model === view.default_model)) return;
    // Another default server, or another address: the offer of a found one is answered.
    if (s.endpoint_url !== view.base_url) app.config.dismissServerOffer();
    app.config.settings = { ...s, endpoint_url: view.base_url, api_key_set: view.api_key_set, model: view.default_model };
    app.emit('settings');
  }
}
