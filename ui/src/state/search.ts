// Search over every chat and the files attached to chats and projects, and opening a result at
// its message (a file's: its chat).

import type { ChatHit, FileHit } from '../backend/types';
import type { Core } from './core';

/** What search needs of the rest of the state. */
export interface SearchNeeds extends Core {
  readonly sessions: { readonly hiddenSessions: ReadonlySet<number> };
  readonly chat: { openSession(id: number, push?: boolean, focusMessageId?: number | null): Promise<void> };
}

export class SearchState {
  constructor(private readonly app: SearchNeeds) {}

  /** Chats in every project matching the words, best first; `versions`: in earlier versions of
   *  messages too (a reply regenerated since, a message edited and resent). */
  async searchChats(q: string, limit = 20, versions = false): Promise<ChatHit[]> {
    const hits = await (versions ? this.app.backend.searchChats(q, limit, true) : this.app.backend.searchChats(q, limit));
    // A chat deleted a moment ago (Undo still offered) is not found.
    return hits.filter((h) => !this.app.sessions.hiddenSessions.has(h.session_id));
  }

  /** Passages of the files of every chat and project matching the words, best first. */
  async searchFiles(q: string, limit = 20): Promise<FileHit[]> {
    const hits = await this.app.backend.searchFiles(q, limit);
    // A file of a chat deleted a moment ago (Undo still offered) is not found either.
    return hits.filter((h) => h.session_id === null || !this.app.sessions.hiddenSessions.has(h.session_id));
  }

  /** Opens a search result's chat, at its message when it has one (an earlier version is not
   *  among the messages shown: the chat simply opens). */
  openHit(hit: ChatHit): Promise<void> {
    return this.app.chat.openSession(hit.session_id, true, hit.message_id);
  }
}
