// The window: sidebar, the chat, and a side panel (context inspector or memory), plus the
// banners for a server that is down or a missing access token, and the offer of a model server.

import type { App } from '../app';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { shortcutOf, type Action } from '../lib/shortcuts';
import { mountChat } from './chat';
import { mountFilesPanel } from './files';
import { mountServerBanner } from './serverBanner';
import { preloadProjectDialog } from './projectLink';
import { openSettingsDialog, preloadSettings } from './settingsLink';
import { toggleShortcuts } from './shortcuts';
import { mountSidebar } from './sidebar';
import { toast } from './toast';

export function mountLayout(app: App, root: HTMLElement): { perform: (action: Action) => boolean } {
  const sidebar = h('aside', { class: 'sidebar', 'aria-label': t('projects') });
  const scrim = h('div', { class: 'scrim', onClick: () => shell.classList.remove('sidebar-open') });
  const banner = h('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'banner' });
  const serverBanner = h('div', { class: 'banner banner-info', role: 'status', hidden: true, 'data-testid': 'server-banner' });
  const chat = h('section', { class: 'chat' });
  const main = h('main', { class: 'main' }, banner, serverBanner, chat);
  const panel = h('aside', { class: 'panel', hidden: true });
  const shell = h('div', { class: 'app' }, sidebar, scrim, main, panel);
  replaceChildren(root, shell);

  const toggleSidebar = sidebarToggle(shell);
  const side = mountSidebar(app, sidebar, toggleSidebar);
  mountChat(app, chat, toggleSidebar);
  mountServerBanner(app, serverBanner);
  mountPanels(app, shell, panel);

  // On a narrow window the sidebar is a drawer: choosing a chat closes it.
  app.on('chat', () => shell.classList.remove('sidebar-open'));
  // A notice's way to the servers (a chat whose server is off), unless a dialog is open already.
  app.on('showServerSettings', () => {
    if (!document.querySelector('dialog[open]')) openSettingsDialog(app, 'server');
  });
  // Labels made before the settings (and so the language) arrived follow them.
  app.on('settings', () => sidebar.setAttribute('aria-label', t('projects')));
  mountBanner(app, banner);
  ignoreStrayDrops();

  const perform = windowActions(app, shell, () => side.focusSearch(), toggleSidebar);
  document.addEventListener('keydown', (e) => {
    const shortcut = shortcutOf(e);
    if (shortcut && perform(shortcut, e.defaultPrevented)) e.preventDefault();
  });
  return { perform };
}

/** Where the sidebar's collapsed state is kept between visits. */
const SIDEBAR_KEY = 'maru.sidebarCollapsed';

/**
 * Shows or hides the sidebar: on a wide window it collapses (remembered for the next visit) and
 * gives its room to the chat and a panel; on a narrow one it is a drawer that slides in and out.
 */
function sidebarToggle(shell: HTMLElement): () => void {
  const narrow = window.matchMedia('(max-width: 760px)');
  let collapsed = false;
  try {
    collapsed = localStorage.getItem(SIDEBAR_KEY) === '1';
  } catch {
    // storage off: the sidebar starts shown
  }
  shell.classList.toggle('sidebar-collapsed', collapsed);
  return () => {
    if (narrow.matches) {
      shell.classList.toggle('sidebar-open');
      return;
    }
    collapsed = !collapsed;
    shell.classList.toggle('sidebar-collapsed', collapsed);
    try {
      localStorage.setItem(SIDEBAR_KEY, collapsed ? '1' : '0');
    } catch {
      // not remembered: it still collapses now
    }
  };
}

/** The side panel: the one open (context inspector, memory, files), or none. The context
 *  inspector and the memory panel are chunks of their own, loaded when first opened. */
function mountPanels(app: App, shell: HTMLElement, panel: HTMLElement): void {
  const close = () => app.panels.closePanel();
  const renderFiles = mountFilesPanel(app, panel, close);
  const renderPanel = () => {
    const open = app.panels.panel;
    panel.hidden = open === null;
    shell.dataset.panel = open ?? '';
    if (open === 'context') renderContext();
    else if (open === 'memory') renderMemory();
    else if (open === 'files') renderFiles();
    else panel.replaceChildren();
  };
  const renderContext = lazyPanel(app, panel, close, renderPanel, PANELS.context);
  const renderMemory = lazyPanel(app, panel, close, renderPanel, PANELS.memory);
  app.on('panel', renderPanel);
  renderPanel();
}

type MountPanel = (app: App, root: HTMLElement, onClose: () => void) => () => void;

const PANELS = {
  context: async (): Promise<MountPanel> => (await import('./contextPanel')).mountContextPanel,
  memory: async (): Promise<MountPanel> => (await import('./memoryPanel')).mountMemoryPanel,
};

/** Fetches the code of the panels and of Settings, once the window is idle: opening them is then
 *  immediate, and works while Maru is away for a moment (a restart). A failure here is tried
 *  again when the panel is opened. */
export function preloadViews(): void {
  for (const load of Object.values(PANELS)) load().catch(() => {});
  preloadSettings();
  preloadProjectDialog();
}

/** A panel whose code is loaded when it is first shown: empty until then, then mounted and, if
 *  it is still the one open, drawn (`again` draws the open panel). */
function lazyPanel(app: App, root: HTMLElement, close: () => void, again: () => void, load: () => Promise<MountPanel>): () => void {
  let render: (() => void) | null = null;
  let loading = false;
  return () => {
    if (render) return render();
    root.replaceChildren();
    if (loading) return;
    loading = true;
    load().then((mount) => {
      render = mount(app, root, close);
      again();
    }, (e: unknown) => {
      loading = false;
      console.error('Maru: a panel did not load', e);
      toast(t('offlineBody'), 'error');
    });
  };
}

/** The banner for a refused access token, a server that does not answer (with Retry), or Maru
 *  restarting on purpose (after a restore). */
export function mountBanner(app: App, banner: HTMLElement): void {
  const render = () => {
    if (app.unauthorized) {
      banner.hidden = false;
      banner.className = 'banner banner-error';
      replaceChildren(banner, icon('warn'), h('div', null, h('strong', null, t('unauthorizedTitle')), h('p', null, t('tokenWrong'))));
    } else if (!app.reachable && app.restarting) {
      // A restore restarts Maru on purpose: no fault to report, only the wait.
      banner.hidden = false;
      banner.className = 'banner banner-info';
      replaceChildren(banner, h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('div', { 'data-testid': 'banner-restarting' }, h('strong', null, t('restarting'))));
    } else if (!app.reachable) {
      banner.hidden = false;
      banner.className = 'banner banner-error';
      replaceChildren(banner, icon('warn'),
        h('div', null, h('strong', null, t('offlineTitle')), h('p', null, t('offlineBody'))),
        h('button', { class: 'btn btn-small', type: 'button', onClick: () => void app.reload().catch((e) => app.fail(e)) }, t('retry')));
    } else {
      banner.hidden = true;
      banner.replaceChildren();
    }
  };
  app.on('connection', render);
  render();
}

/** A file dropped where nothing takes it must not replace the app with the file. */
function ignoreStrayDrops(): void {
  const dragsFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
  window.addEventListener('dragover', (e) => {
    if (dragsFiles(e)) e.preventDefault();
  });
  window.addEventListener('drop', (e) => {
    if (dragsFiles(e)) e.preventDefault();
  });
}

/** What runs a window-wide action (a shortcut, or the desktop menu's item); it answers false when
 *  the action does not apply now. `handled`: Escape already did something. */
function windowActions(app: App, shell: HTMLElement, focusSearch: () => void, toggleSidebar: () => void): (action: Action, handled?: boolean) => boolean {
  return (action, handled = false) => {
    const dialogOpen = !!document.querySelector('dialog[open]');
    switch (action) {
      case 'search':
        // Searches every chat; on a narrow window the sidebar slides in.
        if (dialogOpen) return false;
        shell.classList.add('sidebar-open');
        focusSearch();
        return true;
      case 'toggleSidebar':
        if (dialogOpen) return false;
        toggleSidebar();
        return true;
      case 'newChat':
        if (dialogOpen) return false;
        app.chat.newChat(app.chat.currentProject()?.id);
        return true;
      case 'shortcuts':
        // Pressed again, it closes the list; over another dialog it waits.
        if (dialogOpen && !document.querySelector('dialog[open] [data-testid=shortcuts]')) return false;
        toggleShortcuts();
        return true;
      case 'settings':
        if (dialogOpen) return false;
        openSettingsDialog(app);
        return true;
      case 'stop':
        // Not when Escape already did something (closed a dialog or a menu, cleared the search).
        if (handled || dialogOpen || document.querySelector('.menu') || !app.chat.currentLive()) return false;
        void app.chat.stop();
        return false;
    }
  };
}

/** Shown instead of the app when the page was opened without a token. */
export function mountNoToken(root: HTMLElement): void {
  replaceChildren(root,
    h('div', { class: 'gate' },
      h('div', { class: 'gate-card' },
        h('div', { class: 'empty-mark', title: '마루' }, icon('logo')),
        h('h1', null, t('unauthorizedTitle')),
        h('p', null, t('unauthorizedBody')),
        h('pre', null, 'maru serve\nOpen http://127.0.0.1:8765/#token=…'),
      ),
    ));
}
