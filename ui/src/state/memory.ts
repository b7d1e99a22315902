// Long-term memory: the accepted facts, the model's proposals waiting for the user, and the
// titles of the chats they came from.

import type { Memory, MemoryPatch, Session } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { t } from '../lib/i18n';
import type { Core } from './core';
import { notify } from './notices';
import type { Panel } from './panels';
import { alreadyGone, type Undoable } from './undo';

/** What memory needs of the rest of the state. */
export interface MemoryNeeds extends Core {
  readonly sessions: { findSession(id: number): Session | undefined };
  readonly panels: { openPanel(panel: Exclude<Panel, null>): void; contextChanged(): void };
  readonly undo: Undoable;
}

export class MemoryState {
  /** The accepted facts (section ⑤ uses them). */
  memories: Memory[] = [];
  /** The model's proposals waiting for the user (memory in review mode); counted on the Memory buttons. */
  pendingMemories: Memory[] = [];
  memoriesLoaded = false;
  memoriesError: string | null = null;
  /** Titles of the chats facts came from, by id, for the ones not in the sidebar's lists. */
  sourceTitles = new Map<number, string | null>();
  /** A fact or proposal to bring into view in the memory panel (from a tool call's chip). */
  focusMemoryId: number | null = null;
  /** Facts deleted and proposals dismissed a moment ago, waiting for Undo: not listed meanwhile. */
  private readonly hidden = new Set<number>();

  private memoriesAsked = 0;

  constructor(private readonly app: MemoryNeeds) {}

  /**
   * The accepted facts and the proposals waiting. `quiet` (at start, after a turn): a failure
   * is not shown, the lists simply stay as they were.
   */
  async loadMemories(quiet = false): Promise<void> {
    const app = this.app;
    const asked = ++this.memoriesAsked;
    try {
      const [accepted, pending] = await Promise.all([app.backend.listMemories(), app.backend.listMemories('pending')]);
      // A later load (another change meanwhile) has the newer lists.
      if (asked !== this.memoriesAsked) return;
      this.memories = accepted.filter((m) => !this.hidden.has(m.id));
      this.pendingMemories = pending.filter((m) => m.status === 'pending' && !this.hidden.has(m.id));
      this.memoriesLoaded = true;
      this.memoriesError = null;
      void this.loadSourceTitles();
    } catch (e) {
      if (quiet || asked !== this.memoriesAsked) return;
      this.memoriesError = errorMessage(e);
      app.fail(e);
    }
    app.emit('memories');
  }

  /** How many of the model's proposals wait for the user. */
  get pendingCount(): number {
    return this.pendingMemories.length;
  }

  /** The title of the chat a fact came from: from the sidebar's lists, else asked once. */
  sourceTitle(sessionId: number): string | null {
    const s = this.app.sessions.findSession(sessionId);
    if (s) return s.title.trim() || t('untitled');
    return this.sourceTitles.get(sessionId) ?? null;
  }

  private async loadSourceTitles(): Promise<void> {
    const app = this.app;
    const ids = new Set<number>();
    for (const m of [...this.pendingMemories, ...this.memories]) {
      const id = m.source_session_id;
      if (id != null && !app.sessions.findSession(id) && !this.sourceTitles.has(id)) ids.add(id);
    }
    if (ids.size === 0) return;
    await Promise.all([...ids].slice(0, 30).map(async (id) => {
      try {
        const s = await app.backend.getSession(id);
        this.sourceTitles.set(id, s.title.trim() || t('untitled'));
      } catch {
        // Deleted since: the fact shows its chat by number.
        this.sourceTitles.set(id, null);
      }
    }));
    app.emit('memories');
  }

  /** A fact the user types; one that looks like a secret is refused with the server's message. */
  async addMemory(content: string): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      await this.app.backend.createMemory({ content, source_session_id: null });
    });
    if (ok) this.app.panels.contextChanged();
    return ok;
  }

  async updateMemory(id: number, patch: MemoryPatch): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      await this.app.backend.updateMemory(id, patch);
    });
    if (ok) this.app.panels.contextChanged();
    return ok;
  }

  /**
   * Accepts one of the model's proposals, with the user's wording when `content` is given (saved
   * first: a refused edit leaves the proposal pending). From the next prompt on it is in ⑤.
   */
  async acceptMemory(id: number, content?: string): Promise<boolean> {
    const ok = await this.memoryAction(async () => {
      const current = this.pendingMemories.find((m) => m.id === id);
      if (content !== undefined && content.trim() !== current?.content) await this.app.backend.updateMemory(id, { content });
      await this.app.backend.acceptMemory(id);
    });
    if (ok) this.app.panels.contextChanged();
    return ok;
  }

  /** Drops one of the model's proposals (undoable for a few seconds). */
  async dismissMemory(id: number): Promise<boolean> {
    this.deleteLater(id, t('proposalDismissed'));
    return true;
  }

  /** Deletes a fact (undoable for a few seconds). */
  async deleteMemory(id: number): Promise<void> {
    this.deleteLater(id, t('memoryDeleted'));
  }

  /** Hides a fact or proposal at once; the server deletes it once Undo is no longer offered. */
  private deleteLater(id: number, message: string): void {
    const app = this.app;
    if (this.hidden.has(id)) return;
    this.hidden.add(id);
    this.memories = this.memories.filter((m) => m.id !== id);
    this.pendingMemories = this.pendingMemories.filter((m) => m.id !== id);
    app.emit('memories');
    const restore = () => {
      this.hidden.delete(id);
      void this.loadMemories(true);
    };
    app.undo.offer(`memory:${id}`, message, async (closing) => {
      try {
        await app.backend.deleteMemory(id, closing);
      } catch (e) {
        if (closing) return;
        if (!alreadyGone(e)) {
          app.fail(e);
          restore();
          return;
        }
      }
      this.hidden.delete(id);
      if (closing) return;
      await this.loadMemories(true);
      app.panels.contextChanged();
    }, restore);
  }

  /** Opens the memory panel at a fact or proposal (a tool call's chip links to it); says so when
   *  it is no longer there. */
  async showMemory(id: number): Promise<void> {
    const app = this.app;
    this.focusMemoryId = id;
    app.panels.openPanel('memory');
    await this.loadMemories();
    if (this.focusMemoryId !== id) return;
    if (![...this.pendingMemories, ...this.memories].some((m) => m.id === id)) {
      this.focusMemoryId = null;
      notify(t('memoryGone'));
    }
  }

  /** A change to memory, then the lists again (also after a failure: the change may have half-happened). */
  private async memoryAction(fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
    } catch (e) {
      // A fact that looks like a secret: the server says why, in its words.
      if (e instanceof ApiError && e.code === 'secret_refused') notify(errorMessage(e), 'error');
      else this.app.fail(e);
      if (!(e instanceof ApiError && (e.offline || e.status === 401))) await this.loadMemories(true);
      return false;
    }
    await this.loadMemories();
    return true;
  }
}
