// The open chat: its header (project, title, preset picker, files, panel buttons), its messages
// with the reply being written, and the composer. Files dropped anywhere on it are attached.

import type { App } from '../app';
import type { Session } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { isMac } from '../lib/shortcuts';
import { presetDescription, presetName } from '../lib/presets';
import { mountComposer } from './composer';
import { mountDropZone } from './files';
import { showMenu, type MenuItem } from './menu';
import { MessageList } from './messageList';
import { openSettingsDialog } from './settingsLink';
import { pendingBadge, renameSession, sessionMenu, sessionTitle } from './sidebar';
import { temporaryControl } from './temporary';
import { toast } from './toast';

/**
 * The chat's preset: a button naming it, and a menu to choose another. A preset that no longer
 * exists still shows, so the control never lies.
 */
function presetControl(app: App, presetValue: string): HTMLElement {
  const preset = app.config.presets.find((p) => p.key === presetValue);
  const presetLabel = !presetValue ? t('basePrompt') : preset ? presetName(preset) : presetValue;
  const summary = t('presetIs', { preset: presetLabel });
  const menu = (): MenuItem[] => {
    const builtin = app.config.presets.filter((p) => p.builtin);
    const mine = app.config.presets.filter((p) => !p.builtin);
    const presetItem = (key: string, label: string, title?: string): MenuItem => ({
      label, title, icon: 'layers', checked: key === presetValue, onSelect: () => void app.chat.setPreset(key || null),
    });
    return [
      { label: t('preset'), heading: true },
      presetItem('', t('basePrompt')),
      ...builtin.map((p) => presetItem(p.key, presetName(p), presetDescription(p))),
      ...(mine.length ? [{ label: t('yourPresets'), heading: true }, ...mine.map((p) => presetItem(p.key, p.name, p.description || undefined))] : []),
      ...(presetValue && !preset ? [presetItem(presetValue, presetValue)] : []),
    ];
  };
  return h('button', {
    class: 'btn setup-btn', type: 'button', 'data-testid': 'chat-setup', 'aria-haspopup': 'menu',
    'aria-label': summary, title: summary, onClick: (e: Event) => showMenu(e.currentTarget as HTMLElement, menu(), t('preset')),
  },
    icon('layers'),
    h('span', { class: 'setup-text' }, h('span', { class: 'setup-preset', 'data-testid': 'chat-preset' }, presetLabel)),
    h('span', { class: 'setup-caret' }, icon('chevron')),
  );
}

/** A chat's model as the picker reads it: a saved chat's, or what a new chat will get. */
type ChatModel = Pick<Session, 'connection_id' | 'model'>;

/** What the header says of a chat's model: its name and, off the default server, the server's;
 *  `whole`: both in one phrase, for the tooltip. */
function chatModelLabel(app: App, s: ChatModel): { model: string; server: string | null; whole: string } {
  const conn = app.servers.chatConnection(s);
  const onDefault = s.connection_id === null || !!conn?.is_default;
  const server = onDefault || !conn ? null : conn.name;
  // No model of its own: its server's default (the global setting on the default server).
  const model = s.model ?? (onDefault ? app.config.settings?.model || t('modelServerFirst') : t('serverFirstModel'));
  const whole = server === null ? model : s.model ? t('modelOnServer', { model, server }) : t('firstModelOf', { server });
  return { model, server, whole };
}

/**
 * The chat's server and model: a button naming both, and a menu to search and choose among every
 * server's models, grouped by server (see modelMenu.ts). Each server's list comes in as it
 * answers, into the menu while it is open. A new chat's choice is kept until it is saved.
 */
function modelControl(app: App, s: ChatModel): HTMLElement {
  const label = chatModelLabel(app, s);
  // The server is named when there is a choice of servers (or the chat is off the default one).
  const several = app.servers.connections.filter((c) => c.enabled).length > 1;
  const server = label.server ?? (several ? app.servers.chatConnection(s)?.name ?? null : null);
  const summary = t('modelIs', { model: label.whole });
  // The menu's code is loaded at its first opening: the entry script carries only the button.
  const open = async (e: Event) => {
    const anchor = e.currentTarget as HTMLElement;
    const loaded = await import('./modelMenu').catch((err: unknown) => {
      console.error('Maru: the model menu did not load', err);
      toast(t('offlineBody'), 'error');
      return null;
    });
    if (!loaded) return;
    const { chatModelItems } = loaded;
    const menu = () => chatModelItems(app, s, () => openSettingsDialog(app, 'server'));
    const shown = showMenu(anchor, menu(), t('chatModel'), { search: t('modelSearch') });
    const off = app.on('servers', () => (shown.open ? shown.update(menu()) : off()));
    void app.servers.loadModelLists();
  };
  return h('button', {
    class: 'btn model-btn', type: 'button', 'data-testid': 'chat-model-picker', 'aria-haspopup': 'menu',
    'aria-label': summary, title: summary, onClick: (e: Event) => void open(e),
  },
    icon('cpu'),
    h('span', { class: 'setup-text' },
      h('span', { class: 'setup-model', 'data-testid': 'chat-model' }, label.model),
      server ? h('span', { class: 'setup-server', 'data-testid': 'chat-server' }, server) : null),
    h('span', { class: 'setup-caret' }, icon('chevron')),
  );
}

export function mountChat(app: App, root: HTMLElement, toggleSidebar: () => void): void {
  const head = h('header', { class: 'chat-head' });
  const messages = new MessageList(app);
  const composerRoot = h('footer', { class: 'composer-wrap' });
  root.append(head, messages.area, composerRoot);
  const composer = mountComposer(app, composerRoot);
  mountDropZone(root, () => t('dropFiles'), (files) => void app.attachments.attachToChat(files));
  const renderHead = chatHead(app, head, toggleSidebar);

  app.on('chat', () => {
    renderHead();
    messages.render();
  });
  app.on('live', () => messages.renderLive());
  app.on('presets', renderHead);
  app.on('panel', renderHead);
  app.on('sidebar', renderHead);
  app.on('files', renderHead);
  // A message of the user's names the files and images it went with.
  app.on('files', () => messages.render());
  app.on('memories', renderHead);
  // A fact proposed in a reply and accepted since no longer says "proposed".
  app.on('memories', () => messages.render());
  // The chat's server's name, once the servers are read (or one is renamed).
  app.on('servers', renderHead);
  renderHead();
  messages.render();
  composer.focus();
}

/** The chat's header (project, title, preset and model, files, panel buttons, menu); answers what
 *  draws it again, which it does only when something it shows changed (a redraw would close an
 *  open picker). */
function chatHead(app: App, head: HTMLElement, toggleSidebar: () => void): () => void {
  let headSig = '';
  return () => {
    const s = app.chat.session;
    const project = app.chat.currentProject();
    const presetValue = s ? s.preset ?? '' : app.chat.draftPreset ?? '';
    const files = app.attachments.chatFiles();
    const server = app.servers.chatConnection(s ?? app.chat.draftModel);
    const sig = JSON.stringify([s?.id, s?.title, s?.model, s?.connection_id, app.chat.draftModel, app.servers.connections.map((c) => c.enabled), server?.name, server?.is_default, app.config.settings?.model, presetValue, project?.id, project?.name, app.panels.panel, app.config.presets.map((p) => [p.key, p.name]), t('preset'), files.own.length, files.project.length, app.memory.pendingCount, s?.temporary, app.chat.draftTemporary]);
    if (sig === headSig) return;
    headSig = sig;
    document.title = s ? `${sessionTitle(s)} · ${t('appName')}` : t('appName');
    replaceChildren(head,
      h('button', { class: 'icon-btn sidebar-toggle', type: 'button', 'data-testid': 'show-sidebar', 'aria-label': t('showSidebar'), title: `${t('showSidebar')} (${isMac() ? '⌘⇧S' : 'Ctrl+Shift+S'})`, onClick: toggleSidebar }, icon('menu')),
      h('div', { class: 'crumbs' },
        project ? h('span', { class: 'crumb-project', 'data-testid': 'chat-project', title: app.sessions.projectName(project) }, icon('folder'), h('span', null, app.sessions.projectName(project))) : null,
        h('span', { class: 'crumb-sep' }, '/'),
        s
          ? h('button', { class: 'chat-title', type: 'button', title: t('rename'), 'data-testid': 'chat-title', onClick: () => void renameSession(app, s) }, sessionTitle(s),
              s.imported_at != null ? h('span', { class: 'copy-badge', title: t('importedCopyHint') }, t('importedCopy')) : null)
          : h('span', { class: 'chat-title draft' }, t('newChat')),
      ),
      h('div', { class: 'head-actions' },
        temporaryControl(app),
        presetControl(app, presetValue),
        modelControl(app, s ?? app.chat.draftModel),
        ...panelButtons(app, files.own.length, files.project.length),
        s ? h('button', {
          class: 'icon-btn chat-menu-btn', type: 'button', 'aria-label': t('chatMenu'), title: t('chatMenu'), 'data-testid': 'chat-menu', 'aria-haspopup': 'menu',
          onClick: (e: Event) => showMenu(e.currentTarget as HTMLElement, sessionMenu(app, s, e.currentTarget as HTMLElement)),
        }, icon('more')) : null,
      ),
    );
  };
}

/** The header's buttons for the side panels: files (with their count), context, memory (with the proposals waiting). */
function panelButtons(app: App, own: number, ofProject: number): HTMLElement[] {
  const panel = app.panels.panel;
  const fileCount = own + ofProject;
  const filesLabel = t('filesCount', { n: fileCount, own, project: ofProject });
  return [
    h('button', {
      class: ['btn', 'btn-ghost', 'files-btn', panel === 'files' && 'active'], type: 'button', 'data-testid': 'open-files',
      'aria-pressed': String(panel === 'files'), 'aria-label': filesLabel, title: filesLabel,
      onClick: () => app.panels.togglePanel('files'),
    }, icon('paperclip'), h('span', { class: 'label' }, t('files')), h('span', { class: ['files-count', fileCount > 0 && 'some'], 'data-testid': 'files-count' }, String(fileCount))),
    h('button', {
      class: ['btn', 'btn-ghost', panel === 'context' && 'active'], type: 'button', 'data-testid': 'open-context',
      'aria-pressed': String(panel === 'context'), title: t('contextInspector'), onClick: () => app.panels.togglePanel('context'),
    }, icon('eye'), h('span', { class: 'label' }, t('context'))),
    h('button', {
      class: ['btn', 'btn-ghost', 'memory-btn', panel === 'memory' && 'active'], type: 'button', 'data-testid': 'open-memory',
      'aria-pressed': String(panel === 'memory'), title: app.memory.pendingCount ? t('memoryPending', { n: app.memory.pendingCount }) : t('memoryTitle'),
      onClick: () => app.panels.togglePanel('memory'),
    }, icon('brain'), h('span', { class: 'label' }, t('memory')), pendingBadge(app)),
  ];
}
