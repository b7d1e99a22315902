// The sidebar: a search over every chat (Ctrl+K), then projects (Default first) with their chats,
// newest first. Chats open on click, have a menu (rename, move, export, delete) and can be dragged onto
// another project to move them. While there is a query, its results replace the projects.

import type { App } from '../app';
import type { Session } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { language, t } from '../lib/i18n';
import { isMac } from '../lib/shortcuts';
import type { ProjectEntry } from '../state/sessions';
import { confirmDialog, promptDialog } from './dialog';
import { exportChat, exportProject } from './exports';
import { showMenu, type MenuItem } from './menu';
import { openProjectDialog } from './projectLink';
import { mountSearch } from './search';
import { openSettingsDialog } from './settingsLink';
import { toggleShortcuts } from './shortcuts';

const DRAG_TYPE = 'application/x-maru-session';

export function mountSidebar(app: App, root: HTMLElement, toggleSidebar: () => void = () => {}): { focusSearch(): void } {
  const list = h('nav', { class: 'project-list', 'aria-label': t('projects') });
  const head = h('div', { class: 'sidebar-head' });
  const projects = h('div', { class: 'sidebar-body' });
  const foot = h('div', { class: 'sidebar-foot' });
  // The search box stays put (a redraw must not take the focus from it); its results replace
  // the projects while there is a query.
  const search = mountSearch(app, () => render());
  const rows: Rows = new WeakMap();
  root.replaceChildren(head, search.box, projects, search.results, foot);
  const render = () => {
    list.setAttribute('aria-label', t('projects'));
    projects.hidden = search.active();
    search.results.hidden = !search.active();
    search.render();
    replaceChildren(head,
      h('div', { class: 'brand' }, h('span', { class: 'brand-mark', title: '마루' }, icon('logo')), h('span', { class: 'brand-name' }, t('appName')),
        h('button', {
          class: 'icon-btn shortcuts-btn', type: 'button', 'data-testid': 'open-shortcuts', 'aria-label': t('kbTitle'),
          title: `${t('kbTitle')} (${isMac() ? '⌘/' : 'Ctrl+/'})`, onClick: () => toggleShortcuts(),
        }, '?'),
        h('button', {
          class: 'icon-btn collapse-btn', type: 'button', 'data-testid': 'collapse-sidebar', 'aria-label': t('hideSidebar'),
          title: `${t('hideSidebar')} (${isMac() ? '⌘⇧S' : 'Ctrl+Shift+S'})`, onClick: toggleSidebar,
        }, icon('sidebar'))),
      h('button', { class: 'btn btn-primary btn-block', type: 'button', 'data-testid': 'new-chat', onClick: () => app.chat.newChat(app.chat.currentProject()?.id) },
        icon('plus'), t('newChat')),
    );
    replaceChildren(projects,
      h('div', { class: 'section-head' },
        h('span', null, t('projects')),
        h('button', { class: 'icon-btn', type: 'button', title: t('newProject'), 'aria-label': t('newProject'), 'data-testid': 'new-project', onClick: () => openProjectDialog(app) }, icon('plus')),
      ),
      list,
    );
    renderFoot();
    replaceChildren(list, app.sessions.projects.map((e) => projectNode(app, e, rows)));
  };
  const renderFoot = () => {
    const pending = app.memory.pendingCount;
    replaceChildren(foot,
        h('button', {
          class: ['btn', 'btn-ghost', 'memory-btn', app.panels.panel === 'memory' && 'active'], type: 'button', 'data-testid': 'sidebar-memory',
          title: pending ? t('memoryPending', { n: pending }) : t('memoryTitle'), onClick: () => app.panels.togglePanel('memory'),
        }, icon('brain'), t('memory'), pendingBadge(app)),
        h('button', { class: 'btn btn-ghost', type: 'button', 'data-testid': 'open-settings', onClick: () => openSettingsDialog(app) }, icon('gear'), t('settings')),
      app.config.version ? h('span', { class: 'version', title: `maru ${app.config.version}`, 'data-testid': 'app-version' }, `v${app.config.version}`) : null,
    );
  };
  app.on('sidebar', render);
  app.on('panel', render);
  app.on('memories', renderFoot);
  render();
  return { focusSearch: () => search.focus() };
}

/** The chats' rows this sidebar drew, by chat, with what they showed: the sidebar is drawn again
 *  on every change to it, and a row is built anew only when its chat or what it shows changed
 *  (thousands of chats would otherwise be built again each time a page of them arrives). */
type Rows = WeakMap<Session, { key: string; el: HTMLElement }>;

function sessionRow(app: App, s: Session, rows: Rows): HTMLElement {
  const key = [app.chat.session?.id === s.id, app.chat.live.has(s.id), app.sessions.writing.has(s.id), language()].join();
  const kept = rows.get(s);
  if (kept?.key === key) return kept.el;
  const el = sessionNode(app, s);
  rows.set(s, { key, el });
  return el;
}

function projectNode(app: App, e: ProjectEntry, rows: Rows): HTMLElement {
  const p = e.project;
  const name = app.sessions.projectName(p);
  const current = app.chat.currentProject()?.id === p.id;
  const head = h('div', {
    class: ['project-head', current && 'current'],
    dataset: { projectId: String(p.id) },
    'data-testid': 'project',
    role: 'button',
    tabindex: 0,
    'aria-expanded': String(e.expanded),
    onClick: () => app.sessions.toggleProject(p.id),
    onKeydown: (ev: KeyboardEvent) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        app.sessions.toggleProject(p.id);
      }
    },
  },
    h('span', { class: ['chevron', e.expanded && 'open'] }, icon('chevron')),
    icon('folder'),
    h('span', { class: 'project-name', title: p.instructions ? `${name}\n\n${p.instructions}` : name }, name),
    h('span', { class: 'count', title: t('chatsCount', { n: p.session_count }) }, String(p.session_count)),
    h('button', {
      class: 'icon-btn hover-only', type: 'button', title: t('newChatIn', { project: name }), 'aria-label': t('newChatIn', { project: name }),
      onClick: (ev: Event) => {
        ev.stopPropagation();
        app.chat.newChat(p.id);
      },
    }, icon('plus')),
    h('button', {
      class: 'icon-btn hover-only', type: 'button', 'aria-label': `${name}: ${t('edit')}`, 'data-testid': 'project-menu',
      onClick: (ev: Event) => {
        ev.stopPropagation();
        showMenu(ev.currentTarget as HTMLElement, projectMenu(app, e));
      },
    }, icon('more')),
  );
  // Dropping a dragged chat here moves it to this project.
  head.addEventListener('dragover', (ev) => {
    if (!ev.dataTransfer?.types.includes(DRAG_TYPE)) return;
    ev.preventDefault();
    ev.dataTransfer.dropEffect = 'move';
    head.classList.add('drop-target');
  });
  head.addEventListener('dragleave', (ev) => {
    // Onto the project's name or a button in it is not off the project: the light stays,
    // whether or not a dragover follows (Playwright's emulated drag sends none).
    if (ev.relatedTarget instanceof Node && head.contains(ev.relatedTarget)) return;
    head.classList.remove('drop-target');
  });
  head.addEventListener('drop', (ev) => {
    head.classList.remove('drop-target');
    const id = Number(ev.dataTransfer?.getData(DRAG_TYPE));
    if (!id) return;
    ev.preventDefault();
    void app.sessions.moveSession(id, p.id);
  });

  const body = e.expanded
    ? h('ul', { class: 'session-list' },
        e.sessions.map((s) => sessionRow(app, s, rows)),
        e.loaded && e.sessions.length === 0 ? h('li', { class: 'empty-note' }, t('noChats')) : null,
        e.loading && !e.loaded ? h('li', { class: 'empty-note' }, t('loading')) : null,
        e.nextCursor
          ? h('li', null, h('button', { class: 'btn btn-ghost btn-small load-more', type: 'button', disabled: e.loading, onClick: () => app.sessions.loadMoreSessions(p.id) }, e.loading ? t('loading') : t('loadMore')))
          : null,
      )
    : null;
  return h('div', { class: 'project' }, head, body);
}

export function projectMenu(app: App, e: ProjectEntry): MenuItem[] {
  const p = e.project;
  return [
    { label: t('newChat'), icon: 'plus', onSelect: () => app.chat.newChat(p.id) },
    { label: t('projectSettingsMenu'), icon: 'gear', onSelect: () => openProjectDialog(app, p, 'name') },
    { label: t('rename'), icon: 'edit', disabled: p.is_default, title: p.is_default ? t('defaultCannotRename') : undefined, onSelect: () => openProjectDialog(app, p, 'name') },
    { label: t('editInstructions'), icon: 'layers', disabled: p.is_default, title: p.is_default ? t('defaultUsesCustomInstructions', { settings: t('settings'), tab: t('settingsInstructions') }) : undefined, onSelect: () => openProjectDialog(app, p, 'instructions') },
    { label: t('projectFolderMenu'), icon: 'folder', disabled: p.is_default, title: p.is_default ? t('defaultNoFolder') : undefined, onSelect: () => openProjectDialog(app, p, 'folder') },
    { label: t('projectFilesMenu'), icon: 'paperclip', onSelect: () => openProjectDialog(app, p, 'files') },
    { label: t('exportZip'), icon: 'download', onSelect: () => void exportProject(app, p) },
    {
      label: t('delete'), icon: 'trash', danger: true, disabled: p.is_default, title: p.is_default ? t('defaultCannotDelete') : undefined,
      onSelect: async () => {
        const ok = await confirmDialog({ title: t('deleteProjectTitle', { name: p.name }), body: t('deleteProjectBody', { n: p.session_count }), confirm: t('delete'), danger: true });
        if (ok) await app.sessions.deleteProject(p.id);
      },
    },
  ];
}

export function sessionTitle(s: Session): string {
  return s.title.trim() || t('untitled');
}

function sessionNode(app: App, s: Session): HTMLElement {
  const active = app.chat.session?.id === s.id;
  const streaming = app.chat.live.has(s.id);
  // A reply being written in another chat than the open one, here or elsewhere (another tab, the API).
  const writing = !active && (streaming || app.sessions.writing.has(s.id));
  const title = sessionTitle(s);
  const item = h('li', {
    class: ['session', active && 'active'],
    draggable: 'true',
    dataset: { sessionId: String(s.id) },
    'data-testid': 'session',
  },
    h('a', {
      class: 'session-link',
      href: `#/chat/${s.id}`,
      title,
      'aria-label': writing ? t('chatWritingLabel', { title }) : undefined,
      'aria-current': active ? 'page' : undefined,
      onClick: (ev: MouseEvent) => {
        if (ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
        ev.preventDefault();
        void app.chat.openSession(s.id);
      },
    }, streaming || writing ? h('span', { class: 'live-dot', title: t('statusStreaming') }) : null, h('span', { class: 'session-title' }, title),
      s.imported_at != null ? h('span', { class: 'copy-badge', title: t('importedCopyHint'), 'data-testid': 'imported-copy' }, t('importedCopy')) : null,
      writing ? h('span', { class: 'writing-badge', title: t('chatWritingHint'), 'aria-hidden': 'true', 'data-testid': 'session-writing' }, t('chatWriting')) : null),
    h('button', {
      class: 'icon-btn hover-only', type: 'button', 'aria-label': `${title}: ${t('edit')}`, 'data-testid': 'session-menu',
      onClick: (ev: Event) => {
        ev.stopPropagation();
        showMenu(ev.currentTarget as HTMLElement, sessionMenu(app, s, ev.currentTarget as HTMLElement));
      },
    }, icon('more')),
  );
  item.addEventListener('dragstart', (ev) => {
    ev.dataTransfer?.setData(DRAG_TYPE, String(s.id));
    ev.dataTransfer?.setData('text/plain', title);
    if (ev.dataTransfer) ev.dataTransfer.effectAllowed = 'move';
    item.classList.add('dragging');
  });
  item.addEventListener('dragend', () => item.classList.remove('dragging'));
  return item;
}

export function sessionMenu(app: App, s: Session, anchor: HTMLElement): MenuItem[] {
  return [
    { label: t('rename'), icon: 'edit', onSelect: () => renameSession(app, s) },
    // A temporary chat is never titled.
    ...(s.temporary ? [] : [{ label: t('regenerateTitle'), icon: 'refresh' as const, onSelect: () => void app.sessions.regenerateTitle(s.id) }]),
    { label: t('moveToProject'), icon: 'move', onSelect: () => showMenu(anchor, moveMenu(app, s), t('moveTo')) },
    { label: t('exportMarkdown'), icon: 'download', onSelect: () => void exportChat(app, s, 'markdown') },
    { label: t('exportJson'), icon: 'download', onSelect: () => void exportChat(app, s, 'json') },
    { label: t('delete'), icon: 'trash', danger: true, onSelect: () => deleteSession(app, s) },
  ];
}

export function moveMenu(app: App, s: Session): MenuItem[] {
  return [
    { label: t('moveTo'), heading: true },
    ...app.sessions.projects.map((e) => ({
      label: app.sessions.projectName(e.project),
      icon: 'folder' as const,
      checked: e.project.id === s.project_id,
      disabled: e.project.id === s.project_id,
      onSelect: () => void app.sessions.moveSession(s.id, e.project.id),
    })),
  ];
}

export async function renameSession(app: App, s: Session): Promise<void> {
  const title = await promptDialog({ title: t('renameChat'), label: t('chatTitle'), value: s.title, placeholder: t('untitled') });
  if (title !== null && title !== s.title) await app.sessions.renameSession(s.id, title);
}

export async function deleteSession(app: App, s: Session): Promise<void> {
  const ok = await confirmDialog({ title: t('deleteChatTitle'), body: t('deleteChatBody', { title: sessionTitle(s) }), confirm: t('delete'), danger: true });
  if (ok) await app.sessions.deleteSession(s.id);
}

/** The count of proposals waiting, for the Memory buttons (nothing when there are none). */
export function pendingBadge(app: App): HTMLElement | null {
  const n = app.memory.pendingCount;
  if (n === 0) return null;
  return h('span', { class: 'pending-count', 'data-testid': 'memory-pending-count', title: t('memoryPending', { n }), 'aria-label': t('memoryPending', { n }) }, String(n));
}
