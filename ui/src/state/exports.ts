// Getting data out and back in, as the settings' Data tab and the sidebar's menus ask for it: a
// chat or a project exported, a chat or a project imported, a backup made and restored.

import type { DownloadedFile } from '../backend/backend';
import type { ChatExport, ExportFormat, ImportedProject, RestoredBackup, Session } from '../backend/types';
import type { Core } from './core';

export class ExportsState {
  constructor(private readonly app: Core) {}

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
  importProject(file: Blob, name: string): Promise<ImportedProject> {
    return this.app.backend.importProject(file, name);
  }

  /** Everything, as one zip. */
  backup(): Promise<DownloadedFile> {
    return this.app.backend.backup();
  }

  /** Replaces everything with a backup's contents; the server restarts after. */
  restoreBackup(file: Blob, name: string): Promise<RestoredBackup> {
    return this.app.backend.restoreBackup(file, name);
  }

  /** Whether the server answers (while it restarts after a restore). */
  async serverAnswers(): Promise<void> {
    await this.app.backend.health();
  }
}
