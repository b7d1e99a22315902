// The side panels (context inspector, memory, files) and what the context inspector shows.

import type { App } from '../app';
import { ApiError, errorMessage } from '../backend/backend';
import type { ContextView } from '../backend/types';

export type Panel = 'context' | 'memory' | 'files' | null;

export class PanelsState {
  panel: Panel = null;
  context: ContextView | null = null;
  contextError: string | null = null;
  contextLoading = false;

  constructor(private readonly app: App) {}

  togglePanel(panel: Exclude<Panel, null>): void {
    this.panel = this.panel === panel ? null : panel;
    this.app.emit('panel');
    if (this.panel === 'context') void this.loadContext();
    if (this.panel === 'memory') void this.app.loadMemories();
    if (this.panel === 'files') void this.app.loadChatFiles();
  }

  /** Opens a panel (left open when it is). */
  openPanel(panel: Exclude<Panel, null>): void {
    if (this.panel !== panel) this.togglePanel(panel);
  }

  closePanel(): void {
    this.panel = null;
    this.app.emit('panel');
  }

  /** Something that feeds the system prompt changed: the inspector shows it again. */
  contextChanged(): void {
    if (this.panel === 'context') void this.loadContext();
  }

  async loadContext(): Promise<void> {
    const app = this.app;
    const s = app.session;
    if (!s) {
      this.context = null;
      this.contextError = null;
      app.emit('context');
      return;
    }
    this.contextLoading = true;
    app.emit('context');
    try {
      const view = await app.backend.context(s.id);
      if (app.session?.id !== s.id) return;
      this.context = view;
      this.contextError = null;
    } catch (e) {
      this.contextError = errorMessage(e);
      if (e instanceof ApiError && (e.offline || e.status === 401)) app.fail(e);
    } finally {
      this.contextLoading = false;
      app.emit('context');
    }
  }
}
