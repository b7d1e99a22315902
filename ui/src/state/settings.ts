// Settings, presets, and the model server: the offer of one found nearby when the configured one
// cannot be used.

import type { ConnectionPatch, ConnectionView, FoundServer, Preset, PresetPatch, Session, SettingsPatch, SettingsView } from '../backend/types';
import { ApiError } from '../lib/apiError';
import { chosenLanguage, language, rememberLanguageChoice, setLanguage, t, uiLanguage } from '../lib/i18n';
import { applyTheme } from '../lib/theme';
import type { Core } from './core';

/** What settings need of the rest of the state. */
export interface SettingsNeeds extends Core {
  readonly chat: { readonly session: Session | null };
  readonly sessions: { sessionChanged(s: Session): void };
  readonly panels: { contextChanged(): void };
  readonly servers: {
    addFoundServer(server: FoundServer): Promise<ConnectionView>;
    editConnection(id: number, patch: ConnectionPatch): Promise<ConnectionView>;
  };
}

/** Offered at start when the configured model server cannot be used: what answers nearby. */
export interface ServerOffer {
  /** No server is set up yet (a first run), the configured one does not answer, or it lists no
   *  model and none is set. */
  reason: 'none' | 'unreachable' | 'no_model';
  /** The configured address. */
  endpoint: string;
  /** Servers on the usual local ports (8000, 8080, 11434, 1234), the configured one left out. */
  servers: FoundServer[];
  /** The demo model, offered when no server was found and it can run here. */
  demo: boolean;
  /** When the demo model began starting (it takes a few seconds), while it starts. */
  demoStarting?: number;
}

/** `/api/models` error codes that mean the configured model server cannot be reached at all. */
const UNREACHABLE_CODES = new Set(['unreachable', 'dns', 'network', 'timeout_connect', 'invalid_url'].map((c) => `model_server.${c}`));

export class SettingsState {
  settings: SettingsView | null = null;
  presets: Preset[] = [];
  serverOffer: ServerOffer | null = null;
  version = '';

  constructor(private readonly app: SettingsNeeds) {}

  /** The settings from the server; the language shown is the user's choice, else the browser's
   *  (see `uiLanguage` in lib/i18n/index.ts). */
  applySettings(s: SettingsView): void {
    this.settings = s;
    // A choice noted here follows the server's setting when it changed elsewhere, so the next
    // start (before the settings arrive) is in the right language.
    const chosen = chosenLanguage();
    if (chosen !== null && chosen !== s.language) rememberLanguageChoice(s.language);
    setLanguage(uiLanguage(s.language));
    applyTheme(s.theme);
  }

  /** How far the files' passages are embedded for search by meaning, and why the last batch
   *  failed. */
  embeddingProgress() {
    return this.app.backend.embeddingProgress();
  }

  /** The calls other apps made of the tools the user shares, newest first. */
  sharedCalls() {
    return this.app.attempt(() => this.app.backend.sharedCalls());
  }

  /** Saves `patch`; a language in it is the user's choice (only the settings dialog sends one,
   *  and only when the user changed it), which the UI follows from now on, over the browser's. */
  async saveSettings(patch: SettingsPatch): Promise<boolean> {
    const app = this.app;
    const s = await app.attempt(() => app.backend.updateSettings(patch));
    if (!s) return false;
    if (patch.language) rememberLanguageChoice(patch.language);
    const before = language();
    this.applySettings(s);
    const langChanged = language() !== before;
    app.emit('settings');
    // A new address answers the offer of a found server.
    if (patch.endpoint_url !== undefined) this.dismissServerOffer();
    if (langChanged) app.emit('sidebar', 'chat', 'panel', 'memories', 'context');
    app.panels.contextChanged();
    return true;
  }

  /**
   * At start: when the configured model server cannot be reached (or lists no model and none is
   * set), looks on the usual local ports and offers what answers, or says that nothing does.
   */
  async checkModelServer(): Promise<void> {
    const backend = this.app.backend;
    const endpoint = this.settings?.endpoint_url ?? '';
    let reason: ServerOffer['reason'];
    try {
      const models = await backend.listModels();
      if (models.length > 0 || this.settings?.model) return;
      reason = 'no_model';
    } catch (e) {
      if (!(e instanceof ApiError)) return;
      if (e.code === 'no_server') reason = 'none';
      else if (UNREACHABLE_CODES.has(e.code)) reason = 'unreachable';
      else return;
    }
    let servers: FoundServer[];
    try {
      servers = (await backend.probeServers()).filter((s) => s.base_url !== endpoint);
    } catch {
      return;
    }
    // A server that answers but lists no model: only worth a banner when there is another to use.
    if (reason === 'no_model' && servers.length === 0) return;
    // The user may have set an address meanwhile.
    if ((this.settings?.endpoint_url ?? '') !== endpoint) return;
    const demo = servers.length === 0 && (await backend.demoModel().then((d) => d.available, () => false));
    this.serverOffer = { reason, endpoint, servers, demo };
    this.app.emit('serverOffer');
  }

  /** Starts the demo model (saved as one server, "Demo model") and makes it the default. */
  async startDemo(): Promise<boolean> {
    const offer = this.serverOffer;
    if (offer) {
      offer.demoStarting = Date.now();
      this.app.emit('serverOffer');
    }
    const demo = await this.app.attempt(() => this.app.backend.startDemoModel());
    if (offer) offer.demoStarting = undefined;
    if (!demo?.base_url) {
      this.app.emit('serverOffer');
      return false;
    }
    return this.useServer({ base_url: demo.base_url, kind_guess: 'llama.cpp', models: [demo.model], needs_api_key: false });
  }

  /**
   * Switches to a found server: kept as one of the user's servers (the one with its address, else
   * added), made the default (the default is the one that cannot be used), its first model the
   * default model; the offer goes.
   */
  async useServer(server: FoundServer): Promise<boolean> {
    // A second click while the first is under way waits for it.
    this.using ??= this.switchTo(server).finally(() => (this.using = null));
    return this.using;
  }

  private using: Promise<boolean> | null = null;

  private async switchTo(server: FoundServer): Promise<boolean> {
    const app = this.app;
    const ok = await app.attempt(async () => {
      const found = await app.servers.addFoundServer(server);
      // One request makes it the default with its model, so the settings never show the new
      // address with the old model. The default server is never off: it is turned on with it.
      const patch: ConnectionPatch = {};
      if (!found.is_default) patch.is_default = true;
      if (!found.enabled) patch.enabled = true;
      // A model of its own that it lists stays; else its first one.
      const model = server.models.includes(found.default_model) ? found.default_model : (server.models[0] ?? '');
      if (model !== found.default_model) patch.default_model = model;
      if (Object.keys(patch).length > 0) await app.servers.editConnection(found.id, patch);
      return true;
    });
    if (ok) this.dismissServerOffer();
    return !!ok;
  }

  dismissServerOffer(): void {
    if (!this.serverOffer) return;
    this.serverOffer = null;
    this.app.emit('serverOffer');
  }

  async refreshPresets(): Promise<void> {
    this.presets = await this.app.backend.listPresets();
    this.app.emit('presets', 'chat');
  }

  async createPreset(name: string, description: string, prompt: string): Promise<boolean> {
    return !!(await this.app.attempt(async () => {
      await this.app.backend.createPreset({ name, description, prompt });
      await this.refreshPresets();
      return true;
    }));
  }

  async updatePreset(id: number, patch: PresetPatch): Promise<boolean> {
    const ok = !!(await this.app.attempt(async () => {
      await this.app.backend.updatePreset(id, patch);
      await this.refreshPresets();
      return true;
    }));
    if (ok) this.app.panels.contextChanged();
    return ok;
  }

  async deletePreset(id: number): Promise<void> {
    const app = this.app;
    await app.attempt(async () => {
      await app.backend.deletePreset(id);
      await this.refreshPresets();
      if (app.chat.session) app.sessions.sessionChanged(await app.backend.getSession(app.chat.session.id));
      app.panels.contextChanged();
    });
  }

  presetName(key: string | null): string {
    if (!key) return t('basePrompt');
    return this.presets.find((p) => p.key === key)?.name ?? key;
  }
}
