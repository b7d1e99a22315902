// Projects and their chats, as the sidebar lists them.

import type { App } from '../app';
import type { Project, ProjectPatch, Session } from '../backend/types';
import { t } from '../lib/i18n';
import { toast } from '../views/toast';
import { scopeKey } from './files';

export interface ProjectEntry {
  project: Project;
  sessions: Session[];
  nextCursor: string | null;
  loaded: boolean;
  loading: boolean;
  expanded: boolean;
}

const SESSION_PAGE = 30;

export class SessionsState {
  projects: ProjectEntry[] = [];

  constructor(private readonly app: App) {}

  defaultProjectId(): number | null {
    return this.projects.find((p) => p.project.is_default)?.project.id ?? null;
  }

  entry(projectId: number): ProjectEntry | undefined {
    return this.projects.find((p) => p.project.id === projectId);
  }

  setProjects(projects: Project[]): void {
    const old = new Map(this.projects.map((e) => [e.project.id, e]));
    this.projects = projects.map((project) => {
      const prev = old.get(project.id);
      return prev ? { ...prev, project } : { project, sessions: [], nextCursor: null, loaded: false, loading: false, expanded: false };
    });
  }

  async refreshProjects(): Promise<void> {
    this.setProjects(await this.app.backend.listProjects());
    this.app.emit('sidebar', 'chat');
  }

  toggleProject(id: number): void {
    const e = this.entry(id);
    if (!e) return;
    e.expanded = !e.expanded;
    this.app.emit('sidebar');
    if (e.expanded && !e.loaded) void this.app.attempt(() => this.loadSessions(id));
  }

  async createProject(name: string, instructions: string): Promise<Project | undefined> {
    return this.app.attempt(async () => {
      const p = await this.app.backend.createProject({ name, instructions });
      await this.refreshProjects();
      const e = this.entry(p.id);
      if (e) {
        e.expanded = true;
        e.loaded = true;
      }
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
    if (ok) this.app.contextChanged();
    return !!ok;
  }

  async deleteProject(id: number): Promise<void> {
    const app = this.app;
    await app.attempt(async () => {
      const res = await app.backend.deleteProject(id);
      toast(t('deleteProjectDone', { n: res.moved_sessions }));
      if (app.draftProjectId === id) app.draftProjectId = res.default_project_id;
      await this.refreshProjects();
      await this.loadSessions(res.default_project_id);
      app.files.delete(scopeKey({ project_id: id }));
      if (app.session && app.session.project_id === id) {
        app.session = { ...app.session, project_id: res.default_project_id };
        app.emit('chat');
        app.contextChanged();
      }
      void app.loadChatFiles();
    });
  }

  /** The first page of a project's chats (or as many as are shown, to keep the list stable). */
  async loadSessions(projectId: number): Promise<void> {
    const e = this.entry(projectId);
    if (!e) return;
    e.loading = true;
    this.app.emit('sidebar');
    try {
      const limit = Math.min(200, Math.max(SESSION_PAGE, e.sessions.length));
      const page = await this.app.backend.listSessions({ project_id: projectId, limit });
      e.sessions = page.sessions;
      e.nextCursor = page.next_cursor;
      e.loaded = true;
    } finally {
      e.loading = false;
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
      e.sessions.push(...page.sessions.filter((s) => !known.has(s.id)));
      e.nextCursor = page.next_cursor;
    });
    e.loading = false;
    this.app.emit('sidebar');
  }

  findSession(id: number): Session | undefined {
    if (this.app.session?.id === id) return this.app.session;
    for (const e of this.projects) {
      const s = e.sessions.find((x) => x.id === id);
      if (s) return s;
    }
    return undefined;
  }

  sessionChanged(s: Session): void {
    if (this.app.session?.id === s.id) this.app.session = s;
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

  async moveSession(id: number, projectId: number): Promise<void> {
    const app = this.app;
    const before = this.findSession(id);
    if (!before || before.project_id === projectId) return;
    await app.attempt(async () => {
      const s = await app.backend.updateSession(id, { project_id: projectId });
      this.sessionChanged(s);
      const target = this.entry(projectId);
      if (target) target.expanded = true;
      await this.refreshProjects();
      await Promise.all([this.loadSessions(before.project_id), this.loadSessions(projectId)]);
      toast(t('moved', { project: this.projectName(target?.project) }));
      if (app.session?.id === id) {
        app.contextChanged();
        void app.loadChatFiles();
      }
    });
  }

  async deleteSession(id: number): Promise<void> {
    const app = this.app;
    const s = this.findSession(id);
    await app.attempt(async () => {
      await app.backend.deleteSession(id);
      if (app.session?.id === id) app.newChat(s?.project_id);
      await this.refreshProjects();
      if (s) await this.loadSessions(s.project_id);
    });
  }

  projectName(p: Project | undefined | null): string {
    if (!p) return '';
    return p.is_default ? t('defaultProject') : p.name;
  }
}
