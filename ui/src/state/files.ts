// Files: a chat's own and its project's, the chips of files given to the open chat, and the
// watch on files being indexed.

import type { Attachment, AttachmentScope, FolderSync, Project, Session, SettingsView } from '../backend/types';
import { ApiError } from '../lib/apiError';
import { t } from '../lib/i18n';
import type { Core } from './core';
import { notify } from './notices';

/** A file given to the open chat from this window, shown as a chip until the next message is sent. */
export interface Upload {
  /** Local, for the view. */
  key: number;
  sessionId: number;
  name: string;
  size: number;
  /** Null while it is being sent; then the server's record, kept current while it is indexed. */
  attachment: Attachment | null;
}

/** A file to attach: its content and the name it is shown under. */
export interface FileToAttach {
  blob: Blob;
  name: string;
}

/** Where a file list is kept in `App.files`. */
export function scopeKey(scope: AttachmentScope): string {
  return scope.session_id != null ? `s:${scope.session_id}` : `p:${scope.project_id}`;
}

/** How often an attachment being indexed is asked about, at first and at most, and for how long. */
const INDEX_POLL_MS = [400, 2000];
const INDEX_WATCH_MAX_MS = 30 * 60_000;

/** What files need of the rest of the state. */
export interface FilesNeeds extends Core {
  readonly chat: {
    readonly session: Session | null;
    readonly draftProjectId: number | null;
    currentProject(): Project | null;
    ensureSession(): Promise<Session | undefined>;
  };
  readonly config: { readonly settings: SettingsView | null };
  readonly panels: { contextChanged(): void };
}

/** How often a running folder sync is asked how far it got. */
const FOLDER_POLL_MS = 1000;

export class FilesState {
  /** Files by scope (`scopeKey`): a chat's own, a project's. Missing until loaded. */
  files = new Map<string, Attachment[]>();
  /** Files given to chats from this window since their last message was sent. */
  uploads: Upload[] = [];

  /** How far each linked folder's sync got, by project id, for the projects whose files are shown. */
  folderSyncs = new Map<number, FolderSync>();

  private watched = new Set<number>();
  private following = new Set<number>();
  private uploadKey = 0;

  constructor(private readonly app: FilesNeeds) {}

  /** The open chat's own files and its project's (as far as loaded). */
  chatFiles(): { own: Attachment[]; project: Attachment[] } {
    const app = this.app;
    const own = app.chat.session ? this.files.get(scopeKey({ session_id: app.chat.session.id })) ?? [] : [];
    const projectId = app.chat.currentProject()?.id;
    const project = projectId !== undefined ? this.files.get(scopeKey({ project_id: projectId })) ?? [] : [];
    return { own, project };
  }

  /** Loads the open chat's files and its project's. */
  async loadChatFiles(): Promise<void> {
    const app = this.app;
    const scopes: AttachmentScope[] = [];
    if (app.chat.session) scopes.push({ session_id: app.chat.session.id });
    const projectId = app.chat.currentProject()?.id ?? app.chat.draftProjectId;
    if (projectId != null) scopes.push({ project_id: projectId });
    await Promise.all(scopes.map((scope) => this.loadFiles(scope)));
  }

  /**
   * Follows the project's folder sync while it runs (asked again every `FOLDER_POLL_MS`), its
   * files read again as it ends; once per project however many views ask. `linked`: the folder
   * was just linked, so a sync is about to start (it waits a moment for changes to settle).
   */
  async followFolderSync(projectId: number, linked = false): Promise<void> {
    if (this.following.has(projectId)) return;
    this.following.add(projectId);
    try {
      let seenRunning = false;
      for (let asked = 0; ; asked++) {
        const sync = await this.app.backend.folderSync(projectId);
        seenRunning ||= sync.running;
        this.folderSyncs.set(projectId, sync);
        this.app.emit('files');
        if (!sync.running && seenRunning) await this.loadFiles({ project_id: projectId });
        const settled = seenRunning || (linked ? asked >= 4 : sync.done || asked >= 1);
        if (!sync.running && settled) {
          // A small folder's sync can start and end between two asks: just linked, its files are
          // read again anyway.
          if (!seenRunning && linked) await this.loadFiles({ project_id: projectId });
          return;
        }
        await new Promise((r) => setTimeout(r, FOLDER_POLL_MS));
      }
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'not_found')) this.app.fail(e);
    } finally {
      this.following.delete(projectId);
    }
  }

  async loadFiles(scope: AttachmentScope): Promise<void> {
    try {
      const list = await this.app.backend.listAttachments(scope);
      this.files.set(scopeKey(scope), list);
      for (const a of list) if (a.status === 'indexing') this.watch(a);
    } catch (e) {
      // A chat or project deleted meanwhile simply has no files.
      if (!(e instanceof ApiError && e.code === 'not_found')) this.app.fail(e);
    }
    this.app.emit('files');
  }

  /**
   * Attaches files to the open chat (created first when it is a draft), one after the other.
   * Each shows as a chip at once; a refused file is dropped with the server's reason.
   */
  async attachToChat(files: FileToAttach[]): Promise<void> {
    const app = this.app;
    if (files.length === 0) return;
    const session = await app.chat.ensureSession();
    if (!session) return;
    const uploads = files.map((f): Upload => ({ key: ++this.uploadKey, sessionId: session.id, name: f.name, size: f.blob.size, attachment: null }));
    this.uploads.push(...uploads);
    app.emit('files');
    for (const [i, f] of files.entries()) {
      const a = await this.upload({ session_id: session.id }, f);
      if (a) uploads[i].attachment = a;
      else this.uploads = this.uploads.filter((u) => u !== uploads[i]);
      app.emit('files');
    }
    app.panels.contextChanged();
  }

  /** Attaches files to a project: every chat in it sees them. Answers how many it took (a
   *  refused one is said so on its own). */
  async attachToProject(projectId: number, files: FileToAttach[]): Promise<number> {
    let added = 0;
    for (const f of files) if (await this.upload({ project_id: projectId }, f)) added++;
    this.app.panels.contextChanged();
    return added;
  }

  private async upload(scope: AttachmentScope, f: FileToAttach): Promise<Attachment | undefined> {
    const app = this.app;
    // Refused here rather than after sending it all: the server would refuse it too.
    const maxMb = app.config.settings?.attachment_max_mb ?? 0;
    if (maxMb > 0 && f.blob.size > maxMb * 1024 * 1024) {
      notify(t('fileTooLarge', { name: f.name, mb: maxMb }), 'error');
      return undefined;
    }
    const a = await app.attempt(() => app.backend.uploadAttachment(scope, f.blob, f.name));
    if (!a) return undefined;
    const key = scopeKey(scope);
    // Listed once, even if a reload of the list already brought it.
    const list = (this.files.get(key) ?? []).filter((x) => x.id !== a.id);
    this.files.set(key, [...list, a]);
    if (a.status === 'indexing') this.watch(a);
    app.emit('files');
    return a;
  }

  async deleteFile(a: Attachment): Promise<boolean> {
    const app = this.app;
    const ok = await app.attempt(async () => {
      await app.backend.deleteAttachment(a.id);
      return true;
    });
    if (!ok) return false;
    for (const [key, list] of this.files) this.files.set(key, list.filter((x) => x.id !== a.id));
    this.uploads = this.uploads.filter((u) => u.attachment?.id !== a.id);
    this.watched.delete(a.id);
    app.emit('files');
    app.panels.contextChanged();
    return true;
  }

  /** A file's bytes (the route needs the access token: fetched, never linked). */
  download(id: number): Promise<Blob> {
    return this.app.backend.downloadAttachment(id);
  }

  /** Drops a chip without touching its file (it stays in the chat's files). */
  dismissUpload(key: number): void {
    this.uploads = this.uploads.filter((u) => u.key !== key);
    this.app.emit('files');
  }

  /** Asks about a file being indexed until it is ready or failed (or gone). */
  private watch(a: Attachment): void {
    if (this.watched.has(a.id)) return;
    this.watched.add(a.id);
    let delay = INDEX_POLL_MS[0];
    const until = Date.now() + INDEX_WATCH_MAX_MS;
    const tick = async () => {
      if (!this.watched.has(a.id)) return;
      // Still indexing after this long: the list shows it again when next loaded.
      if (Date.now() > until) {
        this.watched.delete(a.id);
        return;
      }
      try {
        const now = await this.app.backend.getAttachment(a.id);
        this.fileChanged(now);
        if (now.status !== 'indexing') {
          this.watched.delete(a.id);
          this.app.panels.contextChanged();
          return;
        }
      } catch (e) {
        if (e instanceof ApiError && e.code === 'not_found') {
          this.watched.delete(a.id);
          return;
        }
      }
      delay = Math.min(INDEX_POLL_MS[1], delay * 1.5);
      window.setTimeout(() => void tick(), delay);
    };
    window.setTimeout(() => void tick(), delay);
  }

  private fileChanged(a: Attachment): void {
    for (const [key, list] of this.files) this.files.set(key, list.map((x) => (x.id === a.id ? a : x)));
    for (const u of this.uploads) if (u.attachment?.id === a.id) u.attachment = a;
    this.app.emit('files');
  }
}
