// What other tabs, windows and the API change, as it happens: one `GET /api/events` stream kept
// open for the page's life (reopened with growing waits when it drops, as when the server
// restarts, and everything shown read again then, since changes were missed meanwhile). Each
// change reads again only what it names: the chat, its project's list, the projects. A burst (a
// turn changes its chat several times) is read at most once per DEBOUNCE_MS per thing.

import type { Change, Session } from '../backend/types';
import { ApiError } from '../lib/apiError';
import type { Core } from './core';
import type { SessionsState } from './sessions';
import { alreadyGone } from './undo';

/** What the feed reads again, of the rest of the state. */
export interface ChangesNeeds extends Core {
  readonly sessions: Pick<SessionsState, 'refetchSession' | 'sessionGone' | 'refreshProjects' | 'turnStarted' | 'turnEnded' | 'writing'
    | 'entry' | 'loadSessions' | 'projects' | 'sessionChanged'>;
  readonly chat: {
    readonly session: Session | null;
    replyBegun(sessionId: number): Promise<void> | null;
    followTurn(sessionId: number): Promise<void>;
    loadMessages(sessionId: number): Promise<void>;
  };
}

/** The least time between two reads of the same thing. */
export const DEBOUNCE_MS = 250;
/** How long to wait before opening the stream again, by failures in a row (the last one repeats). */
export const BACKOFF_MS: readonly number[] = [500, 1000, 2000, 5000, 10_000, 30_000];

export interface FeedOptions {
  backoffMs?: readonly number[];
}

/** One thing read again: at most one read in flight, and the next not before DEBOUNCE_MS after it began. */
interface Slot {
  fn: () => Promise<void>;
  last: number;
  timer: number | undefined;
  running: boolean;
  /** Asked again while it was being read: read once more after. */
  queued: boolean;
}

export class ChangesFeed {
  private running = false;
  private abort: AbortController | null = null;
  private retry: number | undefined;
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly app: ChangesNeeds) {}

  /** Opens the stream (once; later calls change nothing). */
  start(opts: FeedOptions = {}): void {
    if (this.running) return;
    this.running = true;
    void this.run(opts.backoffMs?.length ? opts.backoffMs : BACKOFF_MS);
  }

  /** Closes the stream and forgets the reads waiting. */
  stop(): void {
    this.running = false;
    this.abort?.abort();
    window.clearTimeout(this.retry);
    for (const slot of this.slots.values()) window.clearTimeout(slot.timer);
    this.slots.clear();
  }

  private async run(backoff: readonly number[]): Promise<void> {
    let failures = 0;
    let openedBefore = false;
    while (this.running) {
      const abort = (this.abort = new AbortController());
      try {
        await this.app.backend.changes((change) => this.receive(change), () => {
          failures = 0;
          // Whatever changed while the stream was closed was not heard.
          if (openedBefore) this.receive({ type: 'resync' });
          openedBefore = true;
        }, abort.signal);
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) {
          this.app.fail(e);
          this.running = false;
          return;
        }
        // Unreachable (the banner says so) or refused: tried again below.
      }
      if (!this.running) return;
      const wait = backoff[Math.min(failures, backoff.length - 1)];
      failures++;
      await new Promise<void>((resolve) => (this.retry = window.setTimeout(resolve, wait)));
    }
  }

  /** One change, as the stream brought it. */
  receive(change: Change): void {
    const sessions = this.app.sessions;
    switch (change.type) {
      case 'session_changed': {
        const id = change.session_id;
        const reread = () =>
          this.later(`session:${id}`, async () => {
            const read = await sessions.refetchSession(id);
            for (const projectId of read?.lists ?? []) this.relist(projectId);
            // A chat new to its project, or moved: the projects' counts changed.
            if (read?.recount) this.later('projects', () => sessions.refreshProjects());
          });
        // A turn this window follows changed the chat as it began: read once its reply has.
        const begun = this.app.chat.replyBegun(id);
        if (begun) void begun.then(reread);
        else reread();
        break;
      }
      case 'session_deleted':
        this.forget(`session:${change.session_id}`);
        sessions.sessionGone(change.session_id);
        // Its project counts one less (counted here only when it was listed).
        this.later('projects', () => sessions.refreshProjects());
        break;
      case 'projects_changed':
        this.later('projects', () => sessions.refreshProjects());
        break;
      case 'turn_started':
        sessions.turnStarted(change.session_id);
        void this.app.chat.followTurn(change.session_id);
        break;
      case 'turn_ended':
        sessions.turnEnded(change.session_id);
        break;
      case 'resync':
        this.later('resync', () => this.resync());
        break;
    }
  }

  /** A project's list of chats, read again (when it is shown). */
  private relist(projectId: number): void {
    this.later(`list:${projectId}`, async () => {
      if (this.app.sessions.entry(projectId)?.loaded) await this.app.sessions.loadSessions(projectId);
    });
  }

  /** Everything shown, read again: the projects, the lists of chats, the open chat. */
  private async resync(): Promise<void> {
    const app = this.app;
    // What `resync` replaces is read now.
    for (const [key, slot] of this.slots) {
      if (key === 'resync' || slot.running) continue;
      window.clearTimeout(slot.timer);
      this.slots.delete(key);
    }
    // A turn's end may have been missed: its chat no longer shows as being written.
    app.sessions.writing.clear();
    await app.sessions.refreshProjects();
    for (const e of app.sessions.projects) if (!e.expanded) e.loaded = false;
    const open = app.chat.session;
    await Promise.all([
      ...app.sessions.projects.filter((e) => e.expanded).map((e) => app.sessions.loadSessions(e.project.id)),
      open ? this.reopen(open.id) : Promise.resolve(),
    ]);
  }

  /** The open chat read again, and its messages (following a reply being written). */
  private async reopen(id: number): Promise<void> {
    const app = this.app;
    try {
      const s = await app.backend.getSession(id);
      if (app.chat.session?.id !== id) return;
      app.sessions.sessionChanged(s);
    } catch (e) {
      if (alreadyGone(e)) return app.sessions.sessionGone(id);
      throw e;
    }
    await app.chat.loadMessages(id);
  }

  /** Reads `key` again now, or as soon as DEBOUNCE_MS have passed since its last read began. */
  private later(key: string, fn: () => Promise<void>): void {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { fn, last: -Infinity, timer: undefined, running: false, queued: false }));
    slot.fn = fn;
    if (slot.timer !== undefined || slot.queued) return;
    if (slot.running) {
      slot.queued = true;
      return;
    }
    const wait = slot.last + DEBOUNCE_MS - performance.now();
    if (wait <= 0) this.read(key, slot);
    else {
      const s = slot;
      s.timer = window.setTimeout(() => {
        s.timer = undefined;
        this.read(key, s);
      }, wait);
    }
  }

  private read(key: string, slot: Slot): void {
    if (!this.running || this.slots.get(key) !== slot) return;
    slot.running = true;
    slot.last = performance.now();
    void this.quietly(slot.fn).finally(() => {
      slot.running = false;
      if (slot.queued) {
        slot.queued = false;
        this.later(key, slot.fn);
      }
    });
  }

  private forget(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    window.clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.queued = false;
  }

  /** A read in the background: an unreachable server or a lost token shows as always, anything
   *  else (a chat gone meanwhile) is not the user's to see. */
  private async quietly(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (e instanceof ApiError && (e.offline || e.status === 401)) this.app.fail(e);
    }
  }
}
