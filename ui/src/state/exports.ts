// Getting data out and back in, as the settings' Data tab and the sidebar's menus ask for it: a
// chat or a project exported, a chat or a project imported, a backup made and restored.

import type { DownloadedFile } from '../backend/backend';
import type { ChatExport, ExportFormat, ImportedProject, RestoredBackup, Session } from '../backend/types';
import type { Core } from './core';

/** What exports need of the rest of the state. */
export interface ExportsNeeds extends Core {
  /** Maru is about to restart on purpose (a restore). */
  restartPlanned(): void;
}

export class ExportsState {
  constructor(private readonly app: ExportsNeeds) {}

  exportChat(sessionId: number, format: ExportFormat): Promise<DownloadedFile> {
    return this.app.backend.exportChat(sessionId, format);
  }

  exportProject(projectId: number): Promise<DownloadedFile> {
    return this.app.backend.exportProject(projectId);
  }

  /** Adds a chat Maru exported (JSON) as a new chat. */
  importChat(chat: ChatExport): Promise<Session> {
    return this.app.backend.importChat(chat);
  }

  /** Adds a project Maru exported (a zip) as a new project. */
  /** A chat export of Maru's, ChatGPT's or Claude's (zip or JSON) into `projectId` (null: a
   *  project of its own): a chat at once, or a job to follow with `importJob`. */
  importFile(file: Blob, projectId: number | null, name: string) {
    return this.app.backend.importFile(file, projectId, name);
  }

  importJob(id: number) {
    return this.app.backend.importJob(id);
  }

  /** A new chat continuing from message `messageId` (the way to it copied). */
  forkMessage(messageId: number): Promise<Session> {
    return this.app.backend.forkMessage(messageId);
  }

  /** A temporary chat kept from now on. */
  keepSession(id: number): Promise<Session> {
    return this.app.backend.keepSession(id);
  }

  importProject(file: Blob, name: string): Promise<ImportedProject> {
    return this.app.backend.importProject(file, name);
  }

  /** Everything, as one zip. */
  backup(onProgress?: (got: number, total: number | null) => void): Promise<DownloadedFile> {
    return this.app.backend.backup(onProgress);
  }

  /** Replaces everything with a backup's contents; the server restarts after. */
  async restoreBackup(file: Blob, name: string): Promise<RestoredBackup> {
    const restored = await this.app.backend.restoreBackup(file, name);
    // Maru restarts now: its being away for a moment is no fault to report.
    this.app.restartPlanned();
    return restored;
  }

  /** Whether the server answers (while it restarts after a restore). */
  async serverAnswers(): Promise<void> {
    await this.app.backend.health();
  }
}
