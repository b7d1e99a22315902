// The open chat: its header (project, title, preset picker, files, panel buttons), its messages
// with the reply being written, and the composer. Files dropped anywhere on it are attached.

import type { App } from '../app';
import type { Message } from '../backend/types';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { mountComposer } from './composer';
import { mountDropZone } from './files';
import { showMenu } from './menu';
import { pendingBadge } from './memoryPanel';
import { liveNode, messageNode, updateLiveNode } from './message';
import { renameSession, sessionMenu, sessionTitle } from './sidebar';
import { toast } from './toast';

export function mountChat(app: App, root: HTMLElement, toggleSidebar: () => void): void {
  const head = h('header', { class: 'chat-head' });
  const list = h('div', { class: 'messages', 'data-testid': 'messages' });
  const scroller = h('div', { class: 'scroller' }, list);
  const composerRoot = h('footer', { class: 'composer-wrap' });
  root.append(head, scroller, composerRoot);
  const composer = mountComposer(app, composerRoot);
  mountDropZone(root, () => t('dropFiles'), (files) => void app.attachToChat(files));

  let editingId: number | null = null;
  let liveEl: HTMLElement | null = null;
  let frame = 0;
  let shownSession: number | null | undefined;

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
  const toBottom = () => {
    scroller.scrollTop = scroller.scrollHeight;
  };

  // Copy buttons inside rendered code blocks.
  list.addEventListener('click', async (e) => {
    const btn = (e.target as HTMLElement).closest('.copy-code') as HTMLButtonElement | null;
    if (!btn) return;
    const code = btn.closest('.code-block')?.querySelector('code');
    try {
      await copyText(code?.textContent ?? '');
      btn.textContent = t('copied');
      setTimeout(() => (btn.textContent = t('copy')), 1500);
    } catch (err) {
      toast(String(err), 'error');
    }
  });

  let headSig = '';
  const renderHead = () => {
    const s = app.session;
    const project = app.currentProject();
    const presetValue = s ? s.preset ?? '' : app.draftPreset ?? '';
    // Redrawn only when something it shows changed (a redraw would close an open picker).
    const files = app.chatFiles();
    const fileCount = files.own.length + files.project.length;
    const sig = JSON.stringify([s?.id, s?.title, presetValue, project?.id, project?.name, app.panel, app.presets.map((p) => [p.key, p.name]), t('preset'), files.own.length, files.project.length, app.pendingCount]);
    if (sig === headSig) return;
    headSig = sig;
    document.title = s ? `${sessionTitle(s)} · Maru` : 'Maru';
    const builtin = app.presets.filter((p) => p.builtin);
    const mine = app.presets.filter((p) => !p.builtin);
    const select = h('select', {
      class: 'preset-select',
      'aria-label': t('preset'),
      title: t('preset'),
      'data-testid': 'preset-picker',
      onChange: (e: Event) => void app.setPreset((e.target as HTMLSelectElement).value || null),
    },
      h('option', { value: '' }, t('basePrompt')),
      builtin.length ? h('optgroup', { label: t('builtinPresets') }, builtin.map((p) => h('option', { value: p.key, title: p.description }, p.name))) : null,
      mine.length ? h('optgroup', { label: t('yourPresets') }, mine.map((p) => h('option', { value: p.key, title: p.description }, p.name))) : null,
    );
    // A preset that no longer exists still shows, so the picker never lies.
    if (presetValue && !app.presets.some((p) => p.key === presetValue)) select.appendChild(h('option', { value: presetValue }, presetValue));
    select.value = presetValue;

    replaceChildren(head,
      h('button', { class: 'icon-btn sidebar-toggle', type: 'button', 'aria-label': t('projects'), onClick: toggleSidebar }, icon('menu')),
      h('div', { class: 'crumbs' },
        project ? h('span', { class: 'crumb-project', 'data-testid': 'chat-project', title: app.projectName(project) }, icon('folder'), h('span', null, app.projectName(project))) : null,
        h('span', { class: 'crumb-sep' }, '/'),
        s
          ? h('button', { class: 'chat-title', type: 'button', title: t('rename'), 'data-testid': 'chat-title', onClick: () => void renameSession(app, s) }, sessionTitle(s))
          : h('span', { class: 'chat-title draft' }, t('newChat')),
      ),
      h('div', { class: 'head-actions' },
        h('label', { class: 'preset-picker' }, icon('layers'), select),
        h('button', {
          class: ['btn', 'btn-ghost', 'files-btn', app.panel === 'files' && 'active'], type: 'button', 'data-testid': 'open-files',
          'aria-pressed': String(app.panel === 'files'),
          'aria-label': t('filesCount', { n: fileCount, own: files.own.length, project: files.project.length }),
          title: t('filesCount', { n: fileCount, own: files.own.length, project: files.project.length }),
          onClick: () => app.togglePanel('files'),
        }, icon('paperclip'), h('span', { class: 'label' }, t('files')), h('span', { class: ['files-count', fileCount > 0 && 'some'], 'data-testid': 'files-count' }, String(fileCount))),
        h('button', {
          class: ['btn', 'btn-ghost', app.panel === 'context' && 'active'], type: 'button', 'data-testid': 'open-context',
          'aria-pressed': String(app.panel === 'context'), title: t('contextInspector'), onClick: () => app.togglePanel('context'),
        }, icon('eye'), h('span', { class: 'label' }, t('context'))),
        h('button', {
          class: ['btn', 'btn-ghost', 'memory-btn', app.panel === 'memory' && 'active'], type: 'button', 'data-testid': 'open-memory',
          'aria-pressed': String(app.panel === 'memory'), title: app.pendingCount ? t('memoryPending', { n: app.pendingCount }) : t('memoryTitle'),
          onClick: () => app.togglePanel('memory'),
        }, icon('brain'), h('span', { class: 'label' }, t('memory')), pendingBadge(app)),
        s ? h('button', {
          class: 'icon-btn', type: 'button', 'aria-label': t('edit'), 'data-testid': 'chat-menu',
          onClick: (e: Event) => showMenu(e.currentTarget as HTMLElement, sessionMenu(app, s, e.currentTarget as HTMLElement)),
        }, icon('more')) : null,
      ),
    );
  };

  const renderList = () => {
    const s = app.session;
    const stick = shownSession !== (s?.id ?? null) || nearBottom();
    // Otherwise the view stays on the same messages (older ones load above them).
    const fromBottom = scroller.scrollHeight - scroller.scrollTop;
    shownSession = s?.id ?? null;
    const live = app.currentLive();
    const visible = app.shownMessages();
    if (editingId !== null && !visible.some((m) => m.id === editingId)) editingId = null;

    if (visible.length === 0 && !live) {
      liveEl = null;
      const project = app.currentProject();
      replaceChildren(list, app.loadingMessages && s
        ? h('div', { class: 'empty' }, t('loading'))
        : h('div', { class: 'empty' },
            h('div', { class: 'empty-mark', title: '마루' }, icon('logo')),
            h('h2', null, t('emptyTitle')),
            h('p', null, t('emptyBody')),
            project && !project.is_default ? h('p', { class: 'empty-project' }, icon('folder'), t('emptyInProject', { project: project.name })) : null,
          ));
      return;
    }
    const last = visible[visible.length - 1];
    const nodes = visible.map((m: Message) => messageNode(app, m, {
      regenerable: !live && m === last && m.id > 0 && (m.role === 'assistant' || m.role === 'user'),
      busy: !!live,
      editing: editingId === m.id,
      onEdit: () => {
        editingId = m.id;
        renderList();
      },
      onCancelEdit: () => {
        editingId = null;
        renderList();
      },
    }));
    liveEl = live ? liveNode(live) : null;
    replaceChildren(list,
      app.olderBefore !== null
        ? h('div', { class: 'older' }, h('button', { class: 'btn btn-ghost btn-small', type: 'button', onClick: () => void app.loadOlder() }, t('loadOlder')))
        : null,
      nodes,
      liveEl,
    );
    if (stick) toBottom();
    else scroller.scrollTop = scroller.scrollHeight - fromBottom;
    showFocused();
  };

  /** A message a search result pointed at: brought into view and flashed once it is shown. */
  const showFocused = () => {
    const id = app.focusMessageId;
    if (id === null) return;
    const el = list.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
    if (!el) return;
    app.focusMessageId = null;
    el.scrollIntoView({ block: 'center' });
    el.classList.add('flash');
    window.setTimeout(() => el.classList.remove('flash'), 2600);
  };

  const renderLive = () => {
    const live = app.currentLive();
    if (!live || !liveEl) {
      renderList();
      return;
    }
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const current = app.currentLive();
      if (!current || !liveEl) return;
      const stick = nearBottom();
      updateLiveNode(liveEl, current);
      if (stick) toBottom();
    });
  };

  app.on('chat', () => {
    renderHead();
    renderList();
  });
  app.on('live', renderLive);
  app.on('presets', renderHead);
  app.on('panel', renderHead);
  app.on('sidebar', renderHead);
  app.on('files', renderHead);
  app.on('memories', renderHead);
  renderHead();
  renderList();
  composer.focus();
}
