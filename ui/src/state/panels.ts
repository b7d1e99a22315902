// The side panels (context inspector, memory, files) and what the context inspector shows.

import type { ContextView, Session } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import type { Core } from './core';

export type Panel = 'context' | 'memory' | 'files' | null;

/** What the panels need of the rest of the state. */
export interface PanelsNeeds extends Core {
  readonly chat: { readonly session: Session | null };
  readonly memory: { loadMemories(quiet?: boolean): Promise<void> };
  readonly attachments: { loadChatFiles(): Promise<void> };
}

export class PanelsState {
  panel: Panel = null;
  context: ContextView | null = null;
  contextError: string | null = null;
  contextLoading = false;

  constructor(private readonly app: PanelsNeeds) {}

  togglePanel(panel: Exclude<Panel, null>): void {
    this.panel = this.panel === panel ? null : panel;
    this.app.emit('panel');
    if (this.panel === 'context') void this.loadContext();
    if (this.panel === 'memory') void this.app.memory.loadMemories();
    if (this.panel === 'files') void this.app.attachments.loadChatFiles();
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

  /** Summarises everything but the open chat's last turn now; whether there was anything to. */
  async compact(sessionId: number): Promise<boolean> {
    return (await this.app.backend.compact(sessionId)).compacted;
  }

  /** Drops the chat's summaries: the next request sends every message again. */
  async uncompact(sessionId: number): Promise<void> {
    await this.app.backend.uncompact(sessionId);
  }

  async loadContext(): Promise<void> {
    const app = this.app;
    const s = app.chat.session;
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
      if (app.chat.session?.id !== s.id) return;
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
