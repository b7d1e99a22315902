// Projects and their chats, as the sidebar lists them.

import type { Attachment, DeletedProject, InstructionFiles, Project, ProjectPatch, Session } from '../backend/types';
import { rememberedExpanded, rememberExpanded } from '../lib/expandedProjects';
import { t } from '../lib/i18n';
import type { Core } from './core';
import { scopeKey } from './files';
import { notify } from './notices';
import { alreadyGone, type Undoable } from './undo';

export interface ProjectEntry {
  project: Project;
  sessions: Session[];
  nextCursor: string | null;
  loaded: boolean;
  loading: boolean;
  expanded: boolean;
  /** Counts the reads of its list: only the latest one's answer is shown. */
  reads?: number;
}

const SESSION_PAGE = 30;

/** What the sidebar's lists need of the rest of the state. */
export interface SessionsNeeds extends Core {
  readonly chat: {
    session: Session | null;
    draftProjectId: number | null;
    keepDraft: boolean;
    newChat(projectId?: number): void;
    openSession(id: number): Promise<void>;
  };
  readonly attachments: { readonly files: Map<string, Attachment[]>; loadChatFiles(): Promise<void> };
  readonly panels: { contextChanged(): void };
  readonly undo: Undoable;
}

export class SessionsState {
  projects: ProjectEntry[] = [];
  /** Chats and projects deleted a moment ago, whose delete waits for Undo: not listed meanwhile. */
  readonly hiddenSessions = new Set<number>();
  readonly hiddenProjects = new Set<number>();
  /** Chats shown in Default while their project's delete waits for Undo, with their project. */
  private readonly movedToDefault = new Map<number, Session>();
  /** Chats a reply is being written in, as the changes told (`turn_started` until `turn_ended`). */
  readonly writing = new Set<number>();

  constructor(private readonly app: SessionsNeeds) {}

  defaultProjectId(): number | null {
    return this.projects.find((p) => p.project.is_default)?.project.id ?? null;
  }

  entry(projectId: number): ProjectEntry | undefined {
    return this.projects.find((p) => p.project.id === projectId);
  }

  setProjects(projects: Project[]): void {
    const old = new Map(this.projects.map((e) => [e.project.id, e]));
    const opened = old.size === 0 ? openAtStart(projects) : new Set<number>();
    this.projects = projects.filter((p) => !this.hiddenProjects.has(p.id)).map((project) => {
      const prev = old.get(project.id);
      // The same entry, changed in place: a read of its list under way still lands in it.
      if (prev) return Object.assign(prev, { project });
      return { project, sessions: [], nextCursor: null, loaded: false, loading: false, expanded: opened.has(project.id) };
    });
    // Also forgets the projects that are gone.
    this.noteExpanded();
  }

  async refreshProjects(): Promise<void> {
    this.setProjects(await this.app.backend.listProjects());
    // A new chat's project deleted (elsewhere): it goes to Default.
    const draft = this.app.chat.draftProjectId;
    if (!this.app.chat.session && draft !== null && !this.entry(draft) && !this.hiddenProjects.has(draft)) this.app.chat.draftProjectId = this.defaultProjectId();
    this.app.emit('sidebar', 'chat');
  }

  toggleProject(id: number): void {
    const e = this.entry(id);
    if (!e) return;
    e.expanded = !e.expanded;
    this.noteExpanded();
    this.app.emit('sidebar');
    if (e.expanded && !e.loaded) void this.app.attempt(() => this.loadSessions(id));
  }

  /** Opens a project in the sidebar, remembered for the next start; loading its chats is the caller's. */
  expandProject(id: number): ProjectEntry | undefined {
    const e = this.entry(id);
    if (e && !e.expanded) {
      e.expanded = true;
      this.noteExpanded();
    }
    return e;
  }

  private noteExpanded(): void {
    rememberExpanded(this.projects.filter((e) => e.expanded).map((e) => e.project.id));
  }

  async createProject(name: string, instructions: string): Promise<Project | undefined> {
    return this.app.attempt(async () => {
      const p = await this.app.backend.createProject({ name, instructions });
      await this.refreshProjects();
      const e = this.expandProject(p.id);
      if (e) e.loaded = true;
      this.app.emit('sidebar');
      return p;
    });
  }

  async updateProject(id: number, patch: ProjectPatch): Promise<boolean> {
    const ok = await this.app.attempt(async () => {
      await this.app.backend.updateProject(id, patch);
      await this.refreshProjects();
      return true;
    });
    if (ok) this.app.panels.contextChanged();
    return !!ok;
  }

  /**
   * Links a project to a folder on disk (`null` unlinks) and answers the project as it is now.
   * A refusal (not a folder Maru can read) is thrown, for the caller to show beside the path.
   */
  async linkFolder(id: number, folder: string | null): Promise<Project> {
    const project = await this.app.backend.updateProject(id, { folder });
    await this.app.attempt(() => this.refreshProjects());
    this.app.panels.contextChanged();
    return project;
  }

  /** Saves the patterns of paths the project leaves out of its folder and answers the project;
   *  a refusal (a line that is not a pattern) is thrown, for the caller to show beside them. */
  async excludeFromFolder(id: number, exclude: string[]): Promise<Project> {
    const project = await this.app.backend.updateProject(id, { exclude });
    await this.app.attempt(() => this.refreshProjects());
    return project;
  }

  /** The instructions files of the project's folder: those the next request sends, and those
   *  found and not sent, with why (both empty without a folder). */
  projectInstructions(id: number): Promise<InstructionFiles> {
    return this.app.backend.projectInstructions(id);
  }

  /**
   * Deletes a project: it goes from the sidebar at once and its chats show in Default at once
   * (counted there, the open one's header naming Default), as they will be once it is deleted,
   * when Undo is no longer offered. Undo puts them back, the project open as it was.
   */
  async deleteProject(id: number): Promise<void> {
    const app = this.app;
    const e = this.entry(id);
    const defaultId = this.defaultProjectId();
    if (!e || e.project.is_default || this.hiddenProjects.has(id) || defaultId === null) return;
    // Its chats, to show in Default: those listed, else its first ones, read now.
    const sessions = e.loaded && !e.nextCursor ? e.sessions
      : (await app.attempt(() => app.backend.listSessions({ project_id: id, limit: 200 })))?.sessions ?? e.sessions;
    if (this.hiddenProjects.has(id)) return;
    this.hiddenProjects.add(id);
    this.projects = this.projects.filter((x) => x.project.id !== id);
    const shown = this.showInDefault(e, sessions, defaultId);
    if (app.chat.draftProjectId === id && !app.chat.session) app.chat.draftProjectId = defaultId;
    app.emit('sidebar', 'chat');
    const restore = () => {
      this.hiddenProjects.delete(id);
      shown.undo();
      void app.attempt(async () => {
        await this.refreshProjects();
        const back = this.entry(id);
        if (back && e.expanded) {
          this.expandProject(id);
          await this.loadSessions(id);
        }
        await this.loadSessions(defaultId);
      });
    };
    app.undo.offer(`project:${id}`, t('projectDeleted', { name: e.project.name }), async (closing) => {
      let res: DeletedProject;
      try {
        res = await app.backend.deleteProject(id, closing);
      } catch (err) {
        if (closing) return;
        if (alreadyGone(err)) {
          this.hiddenProjects.delete(id);
          shown.done();
          await app.attempt(() => this.refreshProjects());
          return;
        }
        app.fail(err);
        restore();
        return;
      }
      this.hiddenProjects.delete(id);
      shown.done();
      if (closing) return;
      notify(t('deleteProjectDone', { n: res.moved_sessions }));
      await app.attempt(async () => {
        if (app.chat.draftProjectId === id) app.chat.draftProjectId = res.default_project_id;
        await this.refreshProjects();
        await this.loadSessions(res.default_project_id);
        app.attachments.files.delete(scopeKey({ project_id: id }));
        void app.attachments.loadChatFiles();
        app.panels.contextChanged();
      });
    }, restore);
  }

  /** A deleted project's chats shown in Default while its delete waits for Undo: counted there,
   *  listed there (as far as loaded), the open one in it. `undo` takes them back; `done`, once
   *  the server has moved them, only forgets them (the lists are read again). */
  private showInDefault(e: ProjectEntry, sessions: Session[], defaultId: number): { undo(): void; done(): void } {
    const app = this.app;
    const moved = sessions.map((s) => ({ ...s, project_id: defaultId }));
    for (const s of moved) this.movedToDefault.set(s.id, s);
    const def = this.entry(defaultId);
    if (def) {
      def.project = { ...def.project, session_count: def.project.session_count + e.project.session_count };
      if (def.loaded) def.sessions = byActivity([...def.sessions.filter((s) => !this.movedToDefault.has(s.id)), ...moved]);
    }
    const open = app.chat.session;
    if (open?.project_id === e.project.id) app.chat.session = { ...open, project_id: defaultId };
    const forget = () => {
      for (const s of moved) this.movedToDefault.delete(s.id);
    };
    return {
      undo: () => {
        forget();
        const d = this.entry(defaultId);
        if (d) d.sessions = d.sessions.filter((s) => !moved.some((m) => m.id === s.id));
        const now = app.chat.session;
        if (now && moved.some((m) => m.id === now.id)) {
          app.chat.session = { ...now, project_id: e.project.id };
          app.panels.contextChanged();
        }
        app.emit('sidebar', 'chat');
      },
      done: forget,
    };
  }

  /** The first page of a project's chats (or as many as are shown, to keep the list stable). */
  async loadSessions(projectId: number): Promise<void> {
    const e = this.entry(projectId);
    if (!e) return;
    e.loading = true;
    const mine = (e.reads = (e.reads ?? 0) + 1);
    this.app.emit('sidebar');
    try {
      const limit = Math.min(200, Math.max(SESSION_PAGE, e.sessions.length));
      const page = await this.app.backend.listSessions({ project_id: projectId, limit });
      // A later read (after a move, a change heard from elsewhere) answers for the list.
      if (e.reads !== mine) return;
      e.sessions = page.sessions.filter((s) => !this.hiddenSessions.has(s.id));
      // Default, while a project's delete waits: its chats show here already.
      if (e.project.is_default && this.movedToDefault.size) {
        const known = new Set(e.sessions.map((s) => s.id));
        e.sessions = byActivity([...e.sessions, ...[...this.movedToDefault.values()].filter((s) => !known.has(s.id))]);
      }
      e.nextCursor = page.next_cursor;
      e.loaded = true;
    } finally {
      if (e.reads === mine) e.loading = false;
      this.app.emit('sidebar');
    }
  }

  async loadMoreSessions(projectId: number): Promise<void> {
    const e = this.entry(projectId);
    if (!e || !e.nextCursor || e.loading) return;
    e.loading = true;
    this.app.emit('sidebar');
    await this.app.attempt(async () => {
      const page = await this.app.backend.listSessions({ project_id: projectId, cursor: e.nextCursor, limit: SESSION_PAGE });
      const known = new Set(e.sessions.map((s) => s.id));
      e.sessions.push(...page.sessions.filter((s) => !known.has(s.id) && !this.hiddenSessions.has(s.id)));
      e.nextCursor = page.next_cursor;
    });
    e.loading = false;
    this.app.emit('sidebar');
  }

  findSession(id: number): Session | undefined {
    if (this.app.chat.session?.id === id) return this.app.chat.session;
    for (const e of this.projects) {
      const s = e.sessions.find((x) => x.id === id);
      if (s) return s;
    }
    return undefined;
  }

  sessionChanged(s: Session): void {
    if (this.app.chat.session?.id === s.id) this.app.chat.session = s;
    for (const e of this.projects) {
      const i = e.sessions.findIndex((x) => x.id === s.id);
      if (i !== -1) e.sessions[i] = s;
    }
    this.app.emit('sidebar', 'chat');
  }

  async renameSession(id: number, title: string): Promise<void> {
    await this.app.attempt(async () => {
      const s = await this.app.backend.updateSession(id, { title });
      this.sessionChanged(s);
      await this.loadSessions(s.project_id);
    });
  }

  /** Asks the model for a new title, saying it is asking; the new title can be undone. */
  async regenerateTitle(id: number): Promise<void> {
    const before = this.findSession(id)?.title ?? '';
    const asking = notify(t('titleAsking'), 'info', { ms: 120_000 });
    await this.app.attempt(async () => {
      const s = await this.app.backend.regenerateTitle(id).finally(() => asking.close());
      this.sessionChanged(s);
      notify(t('titleNew', { title: s.title }), 'info', { action: { label: t('undo'), run: () => void this.renameSession(id, before) } });
    });
  }

  async moveSession(id: number, projectId: number): Promise<void> {
    const app = this.app;
    const before = this.findSession(id);
    if (!before || before.project_id === projectId) return;
    await app.attempt(async () => {
      const s = await app.backend.updateSession(id, { project_id: projectId });
      this.sessionChanged(s);
      const target = this.expandProject(projectId);
      await this.refreshProjects();
      await Promise.all([this.loadSessions(before.project_id), this.loadSessions(projectId)]);
      notify(t('moved', { project: this.projectName(target?.project) }));
      if (app.chat.session?.id === id) {
        app.panels.contextChanged();
        void app.attachments.loadChatFiles();
      }
    });
  }

  /**
   * Deletes a chat: it goes from the sidebar (and from view, when open) at once, and is deleted
   * when Undo is no longer offered. Undo brings it back, and opens it again if it was open and no
   * other chat has been opened since.
   */
  async deleteSession(id: number): Promise<void> {
    const app = this.app;
    const s = this.findSession(id);
    if (this.hiddenSessions.has(id)) return;
    this.hiddenSessions.add(id);
    const wasOpen = app.chat.session?.id === id;
    for (const e of this.projects) {
      if (!e.sessions.some((x) => x.id === id)) continue;
      e.sessions = e.sessions.filter((x) => x.id !== id);
      e.project = { ...e.project, session_count: Math.max(0, e.project.session_count - 1) };
    }
    if (wasOpen) app.chat.newChat(s?.project_id);
    app.emit('sidebar');
    const relist = async () => {
      await this.refreshProjects();
      if (s) await this.loadSessions(s.project_id);
    };
    const restore = () => {
      this.hiddenSessions.delete(id);
      void app.attempt(relist);
      if (wasOpen && !app.chat.session) void app.chat.openSession(id);
    };
    app.undo.offer(`session:${id}`, t('chatDeleted', { title: s?.title.trim() || t('untitled') }), async (closing) => {
      try {
        await app.backend.deleteSession(id, closing);
      } catch (err) {
        if (closing) return;
        if (alreadyGone(err)) {
          this.hiddenSessions.delete(id);
          await app.attempt(relist);
          return;
        }
        app.fail(err);
        restore();
        return;
      }
      this.hiddenSessions.delete(id);
      if (!closing) await app.attempt(relist);
    }, restore);
  }

  // ---- changes made elsewhere (another tab, the API), as `ChangesFeed` hears them

  /**
   * A chat created or changed elsewhere (or here), read again and shown as it is now. Answers the
   * lists to read again (its project's, and the one it left) and whether the projects' counts
   * changed; null when there is nothing to show: gone, or its delete here waits for Undo (the
   * chat stays hidden until then).
   */
  async refetchSession(id: number): Promise<{ lists: number[]; recount: boolean } | null> {
    const app = this.app;
    if (this.hiddenSessions.has(id)) return null;
    let s: Session;
    try {
      s = await app.backend.getSession(id);
    } catch (e) {
      if (!alreadyGone(e)) throw e;
      this.sessionGone(id);
      return null;
    }
    if (this.hiddenSessions.has(id)) return null;
    const left = this.projects.filter((e) => e.project.id !== s.project_id && e.sessions.some((x) => x.id === id));
    for (const e of left) e.sessions = e.sessions.filter((x) => x.id !== id);
    const known = !!this.entry(s.project_id)?.sessions.some((x) => x.id === id);
    const moved = app.chat.session?.id === id && app.chat.session.project_id !== s.project_id;
    this.sessionChanged(s);
    if (moved) {
      app.panels.contextChanged();
      void app.attachments.loadChatFiles();
    }
    return { lists: [...left.map((e) => e.project.id), s.project_id], recount: !known || left.length > 0 };
  }

  /**
   * A chat deleted: it goes from the lists. Deleted elsewhere while open, it gives way to a new
   * chat as when the user deletes it, with a notice saying why (what is typed stays).
   */
  sessionGone(id: number): void {
    const app = this.app;
    this.writing.delete(id);
    const s = this.findSession(id);
    let listed = false;
    for (const e of this.projects) {
      if (!e.sessions.some((x) => x.id === id)) continue;
      listed = true;
      e.sessions = e.sessions.filter((x) => x.id !== id);
      e.project = { ...e.project, session_count: Math.max(0, e.project.session_count - 1) };
    }
    // (A chat deleted here is no longer open by the time its delete is sent, after Undo.)
    if (app.chat.session?.id === id) {
      app.chat.keepDraft = true;
      try {
        app.chat.newChat(s?.project_id);
      } finally {
        app.chat.keepDraft = false;
      }
      notify(t('chatDeletedElsewhere'));
    } else if (listed) {
      app.emit('sidebar');
    }
  }

  /** A reply began being written in a chat (here or elsewhere). */
  turnStarted(id: number): void {
    if (this.writing.has(id)) return;
    this.writing.add(id);
    this.app.emit('sidebar');
  }

  turnEnded(id: number): void {
    if (this.writing.delete(id)) this.app.emit('sidebar');
  }

  projectName(p: Project | undefined | null): string {
    if (!p) return '';
    return p.is_default ? t('defaultProject') : p.name;
  }
}

/** Chats newest activity first, as the server lists them. */
function byActivity(sessions: Session[]): Session[] {
  return [...sessions].sort((a, b) => b.updated_at - a.updated_at || b.id - a.id);
}

/** The projects the first list opens: those open when Maru was last used, the Default one on a first run. */
function openAtStart(projects: Project[]): Set<number> {
  return rememberedExpanded() ?? new Set(projects.filter((p) => p.is_default).map((p) => p.id));
}
